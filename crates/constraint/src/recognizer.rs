//! The narrow interface between a trie walk and whatever decides bytes.
//!
//! Borrowed from llguidance's `Recognizer`: a walk pushes one byte at a time and pops
//! back when it leaves a subtree, so the recognizer keeps a stack of its states and
//! nothing is re-computed from the start. [`StackRecognizer`] adapts any cheaply
//! cloneable byte-level recognizer (the grammar crate's) to it by keeping one slot per
//! depth and `clone_from`-ing into it, which reuses the slots' allocations across the
//! whole walk.

/// A byte acceptor with an undo stack, driven by [`crate::TokTrie::walk`].
pub trait Recognizer {
    /// Pushes `byte` if the text stays viable and returns `true`; otherwise leaves
    /// the state unchanged and returns `false`.
    fn try_push_byte(&mut self, byte: u8) -> bool;
    /// Undoes the last `n` accepted bytes.
    fn pop_bytes(&mut self, n: usize);
}

/// A byte-level recognizer that can be copied cheaply: the shape of the grammar
/// crate's recognizers. Implemented for them in [`crate::grammar_constraint`].
pub trait ByteState: Clone {
    /// Feeds one byte; `false` when the text is no longer a viable prefix (the state
    /// may then be garbage: callers drop it).
    fn push_byte(&mut self, byte: u8) -> bool;
    /// Whether the bytes fed so far form a complete program.
    fn is_complete(&self) -> bool;
    /// Fills what the visualizer shows of this state (parser stack, accept
    /// sequences, remainder); the default shows nothing.
    fn describe(&self, _out: &mut crate::Inspection) {}
}

/// [`Recognizer`] over a [`ByteState`]: one slot per depth, reused across walks.
#[derive(Clone, Debug)]
pub struct StackRecognizer<S> {
    slots: Vec<S>,
    depth: usize,
}

impl<S: ByteState> StackRecognizer<S> {
    /// Starts from `state` at depth 0.
    pub fn new(state: S) -> Self {
        Self { slots: vec![state], depth: 0 }
    }

    /// Resets to `state` at depth 0, keeping the slots' allocations.
    pub fn reset(&mut self, state: &S) {
        self.slots[0].clone_from(state);
        self.depth = 0;
    }

    /// The state after the bytes pushed so far.
    pub fn top(&self) -> &S {
        &self.slots[self.depth]
    }

    /// How many bytes are pushed.
    pub fn depth(&self) -> usize {
        self.depth
    }
}

impl<S: ByteState> Recognizer for StackRecognizer<S> {
    #[inline]
    fn try_push_byte(&mut self, byte: u8) -> bool {
        let d = self.depth;
        if self.slots.len() == d + 1 {
            let next = self.slots[d].clone();
            self.slots.push(next);
        } else {
            let (lo, hi) = self.slots.split_at_mut(d + 1);
            hi[0].clone_from(&lo[d]);
        }
        if self.slots[d + 1].push_byte(byte) {
            self.depth = d + 1;
            true
        } else {
            false
        }
    }

    #[inline]
    fn pop_bytes(&mut self, n: usize) {
        debug_assert!(n <= self.depth, "pop {n} below depth {}", self.depth);
        self.depth -= n.min(self.depth);
    }
}
