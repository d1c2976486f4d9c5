//! The stack of live parser nodes, root first, cheap to clone however deep.
//!
//! The tree of parsers is cloned for every look-ahead and every token tried across a
//! segment boundary, and only its top few nodes ever change: a choice ends nodes
//! above the offering one, steps that one and pushes children. So the stack keeps
//! its top nodes in a small vector ([`FrameStack::top`]) and freezes the nodes below
//! into a persistent linked list shared by every clone. Cloning copies at most
//! `2 * KEEP` nodes; touching a frozen node thaws the nodes above it (copies them
//! back into the vector), which costs the distance from the top, the same as the
//! work that reached it. With a plain vector, `if true then` nested 800 deep made
//! every segment copy 1,600 nodes.

use std::rc::Rc;

use crate::node::Frame;

/// Nodes kept thawed after a freeze; the vector holds up to twice this.
const KEEP: usize = 8;

#[derive(Debug)]
struct Link {
    frame: Frame,
    below: Option<Rc<Link>>,
}

/// A stack of frames: a frozen shared bottom and a small owned top.
#[derive(Clone, Debug)]
pub struct FrameStack {
    /// Frozen frames, the highest first.
    frozen: Option<Rc<Link>>,
    frozen_len: usize,
    /// The frames above the frozen ones, bottom first.
    top: Vec<Frame>,
}

impl FrameStack {
    /// A stack holding `root` only.
    pub fn new(root: Frame) -> FrameStack {
        FrameStack { frozen: None, frozen_len: 0, top: vec![root] }
    }

    /// The number of frames.
    pub fn len(&self) -> usize {
        self.frozen_len + self.top.len()
    }

    /// Whether the stack is empty (never, for a tree of parsers).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The frame at `i` (0 is the root). Costs the distance from the top when `i` is
    /// frozen.
    pub fn get(&self, i: usize) -> &Frame {
        if i >= self.frozen_len {
            return &self.top[i - self.frozen_len];
        }
        let mut link = self.frozen.as_deref().expect("a frozen index has a frozen link");
        for _ in i + 1..self.frozen_len {
            link = link.below.as_deref().expect("the frozen list holds frozen_len links");
        }
        &link.frame
    }

    /// The frames from the top down, lazily.
    pub fn iter_down(&self) -> impl Iterator<Item = &Frame> {
        let mut link = self.frozen.as_deref();
        self.top.iter().rev().chain(std::iter::from_fn(move || {
            let l = link?;
            link = l.below.as_deref();
            Some(&l.frame)
        }))
    }

    /// The frames root first (allocates; for the visualizer).
    pub fn to_vec(&self) -> Vec<&Frame> {
        let mut v: Vec<&Frame> = self.iter_down().collect();
        v.reverse();
        v
    }

    /// Thaws frozen frames until index `i` is in the owned top.
    fn thaw_to(&mut self, i: usize) {
        while self.frozen_len > i {
            let link = self.frozen.take().expect("frozen_len > 0 means a link");
            let (frame, below) = match Rc::try_unwrap(link) {
                Ok(l) => (l.frame, l.below),
                Err(shared) => (shared.frame.clone(), shared.below.clone()),
            };
            self.frozen = below;
            self.frozen_len -= 1;
            self.top.insert(0, frame);
        }
    }

    /// The frame at `i`, mutably (thaws it if frozen).
    pub fn get_mut(&mut self, i: usize) -> &mut Frame {
        self.thaw_to(i);
        &mut self.top[i - self.frozen_len]
    }

    /// The top frame, mutably.
    pub fn last_mut(&mut self) -> Option<&mut Frame> {
        let n = self.len();
        (n > 0).then(|| self.get_mut(n - 1))
    }

    /// Removes and returns the top frame.
    pub fn pop(&mut self) -> Option<Frame> {
        if self.top.is_empty() && self.frozen_len > 0 {
            self.thaw_to(self.frozen_len - 1);
        }
        self.top.pop()
    }

    /// Pushes a frame; freezes the bottom of the owned top when it grows past
    /// `2 * KEEP`.
    pub fn push(&mut self, frame: Frame) {
        self.top.push(frame);
        if self.top.len() > 2 * KEEP {
            let keep = self.top.split_off(self.top.len() - KEEP);
            for f in std::mem::replace(&mut self.top, keep) {
                self.frozen = Some(Rc::new(Link { frame: f, below: self.frozen.take() }));
                self.frozen_len += 1;
            }
        }
    }

    /// Pushes every frame of `frames`, bottom first.
    pub fn extend(&mut self, frames: impl IntoIterator<Item = Frame>) {
        for f in frames {
            self.push(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::node::{Args, ArgsState, Ctx};
    use crate::scope::Scope;
    use crate::types::Type;

    /// A frame labelled `k` (an argument list at argument `k`).
    fn ret(k: u8) -> Frame {
        let ctx = Ctx { scope: Scope::default(), ret: Type::Void, in_loop: false };
        Frame::Args(Args { ctx, params: vec![], i: k.into(), state: ArgsState::Done })
    }

    /// The label of a frame made by `ret`.
    fn state(f: &Frame) -> u8 {
        match f {
            Frame::Args(a) => a.i as u8,
            _ => 255,
        }
    }

    #[test]
    fn a_deep_stack_behaves_like_a_vector_and_clones_share_the_bottom() {
        let mut s = FrameStack::new(ret(0));
        let mut model = vec![0u8];
        for k in 1..100u8 {
            s.push(ret(k));
            model.push(k);
        }
        assert_eq!(s.len(), 100);
        assert!(s.top.len() <= 2 * KEEP);
        let copy = s.clone();
        // Pop below the owned top, change a thawed frame, push again.
        for _ in 0..30 {
            assert_eq!(s.pop().map(|f| state(&f)), model.pop());
        }
        *s.get_mut(10) = ret(200);
        model[10] = 200;
        s.push(ret(201));
        model.push(201);
        let got: Vec<u8> = s.to_vec().into_iter().map(state).collect();
        assert_eq!(got, model);
        assert_eq!((0..s.len()).map(|i| state(s.get(i))).collect::<Vec<_>>(), model);
        // The clone taken before is unchanged.
        let before: Vec<u8> = copy.to_vec().into_iter().map(state).collect();
        assert_eq!(before, (0..100).collect::<Vec<u8>>());
        while s.pop().is_some() {}
        assert!(s.is_empty());
    }
}
