//! The segment automaton: what recognises the next segment byte by byte.
//!
//! A segment is the union of its alternatives. All of them but the names in scope
//! come from keywords, punctuation and the API, so their union regex recurs and its
//! DFA is compiled once per environment ([`crate::dfa::DfaCache`]). The names in scope
//! ([`ScopedNames`]) are walked in the scope's trie instead: a prefix is alive while
//! its trie node lists an accepted kind, and a name ends at a byte of its kind's
//! look-ahead class. The automaton runs both in step (a product): a state is the DFA
//! state and the trie position; it is dead when both are, and accepts when either
//! does. It recognises exactly the language of the segment's regex
//! ([`crate::tree::Segment::regex`]), which is still written out for error messages
//! and A1 checks, but its cost per byte and to build does not depend on how many
//! names are in scope.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::byte_set::{is_ws, ByteSet};
use crate::scope_trie::ScopeNode;
use crate::scoped_names::ScopedNames;
use crate::seg_dfa::{DfaState, SegDfa};

/// The automaton of one segment.
#[derive(Debug)]
pub struct SegAuto {
    /// The DFA of every alternative but the names in scope (`None` when there is none).
    fixed: Option<Rc<SegDfa>>,
    /// The names in scope, and the byte of them already consumed (a carried byte).
    names: Option<(Rc<ScopedNames>, Option<u8>)>,
    /// Trie nodes met so far, so that a state is a small copyable value (an index
    /// here): the mask's trie walk pushes one state per byte and pops them in bulk.
    /// Each keeps what a step from it needs (its look-ahead class, its live
    /// children and their indices once met), so a byte inside a name costs a bit
    /// test and a search among a node's few children: the walk steps these states
    /// tens of thousands of times per mask, and looking nodes up by address in a
    /// hash map, cloning them and re-deciding which children are live cost 10% of
    /// a statement start's mask.
    nodes: RefCell<Vec<NameNode>>,
    /// Index of the trie's root in `nodes`, [`UNSEEN`] until met.
    root: Cell<u32>,
}

/// A trie node of the names in scope as the automaton steps it.
#[derive(Debug)]
struct NameNode {
    /// The look-ahead class after an accepted name ending here (empty when none does).
    la: ByteSet,
    /// The children with an accepted name at or below them, by increasing byte, and
    /// their index in [`SegAuto::nodes`] ([`UNSEEN`] until met). A trie has one path
    /// to each node, so a node is met through its parent only and needs no look-up
    /// by address.
    kids: Vec<(u8, Cell<u32>, Rc<ScopeNode>)>,
}

/// A child not yet in [`SegAuto::nodes`].
const UNSEEN: u32 = u32::MAX;

/// Where the names part of a [`SegState`] stands: [`OFF`] (no name can match any
/// more), [`WS`] (before the name, leading whitespace allowed), [`DONE`] (a name and
/// its look-ahead byte were read), or `IN + i`: inside a name, at trie node `i` of
/// [`SegAuto::nodes`].
type NameState = u32;
const OFF: NameState = 0;
const WS: NameState = 1;
const DONE: NameState = 2;
const IN: NameState = 3;

/// A state of a [`SegAuto`] (meaningful only with the automaton that made it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegState {
    fixed: Option<DfaState>,
    name: NameState,
}

impl SegAuto {
    /// The automaton of the union of `fixed` and `names` (with its consumed byte).
    pub fn new(fixed: Option<Rc<SegDfa>>, names: Option<(Rc<ScopedNames>, Option<u8>)>) -> SegAuto {
        SegAuto { fixed, names, nodes: RefCell::default(), root: Cell::new(UNSEEN) }
    }

    /// Adds `node` to [`SegAuto::nodes`]; its index.
    fn intern(&self, names: &ScopedNames, node: &ScopeNode) -> u32 {
        let la = names.la_at(node).unwrap_or_default();
        let kids = node
            .children()
            .filter(|(_, c)| names.live(c))
            .map(|(b, c)| (b, Cell::new(UNSEEN), c.clone()))
            .collect();
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(NameNode { la, kids });
        nodes.len() as u32 - 1
    }

    /// The root's index in [`SegAuto::nodes`]; `None` for an empty scope.
    fn root_index(&self, names: &ScopedNames) -> Option<u32> {
        if self.root.get() == UNSEEN {
            let root = names.scope.root()?;
            self.root.set(self.intern(names, root));
        }
        Some(self.root.get())
    }

    /// The state after byte `b` from node `i`: the name ends (its look-ahead byte),
    /// goes on to a live child, or dies.
    fn step_node(&self, names: &ScopedNames, i: u32, b: u8) -> NameState {
        let child = {
            let nodes = self.nodes.borrow();
            let node = &nodes[i as usize];
            if node.la.contains(b) {
                return DONE;
            }
            let Ok(k) = node.kids.binary_search_by_key(&b, |kid| kid.0) else { return OFF };
            let seen = node.kids[k].1.get();
            if seen != UNSEEN {
                return IN + seen;
            }
            (k, node.kids[k].2.clone())
        };
        let (k, kid) = child;
        let j = self.intern(names, &kid);
        self.nodes.borrow()[i as usize].kids[k].1.set(j);
        IN + j
    }

    /// The start state.
    pub fn start(&self) -> SegState {
        let name = match &self.names {
            None => OFF,
            Some((_, None)) => WS,
            Some((n, Some(c))) => match self.root_index(n) {
                // A carried byte is never the look-ahead of an empty name.
                Some(r) => match self.step_node(n, r, *c) {
                    DONE => OFF,
                    s => s,
                },
                None => OFF,
            },
        };
        SegState { fixed: self.fixed.as_ref().map(|d| d.start()), name }
    }

    /// The state after byte `b`.
    #[inline]
    pub fn next(&self, s: &SegState, b: u8) -> SegState {
        let fixed = match (&self.fixed, s.fixed) {
            (Some(d), Some(f)) => d.next(f, b),
            _ => None,
        };
        let name = match &self.names {
            Some((n, _)) if s.name != OFF && s.name != DONE => self.next_name(n, s.name, b),
            _ => OFF,
        };
        SegState { fixed, name }
    }

    #[inline]
    fn next_name(&self, n: &ScopedNames, state: NameState, b: u8) -> NameState {
        if state == WS {
            if is_ws(b) {
                return WS;
            }
            let Some(r) = self.root_index(n) else { return OFF };
            // The root binds no name (names are not empty): no look-ahead there.
            return match self.step_node(n, r, b) {
                DONE => OFF,
                s => s,
            };
        }
        self.step_node(n, state - IN, b)
    }

    /// The fixed part's DFA and state when the names part is absent or dead from
    /// `s` on (then the fixed part alone decides every continuation).
    pub(crate) fn fixed_only(&self, s: &SegState) -> Option<(&Rc<SegDfa>, DfaState)> {
        if self.names.is_some() && s.name != OFF {
            return None;
        }
        Some((self.fixed.as_ref()?, s.fixed?))
    }

    /// Whether no continuation can match any more.
    #[inline]
    pub fn is_dead(&self, s: &SegState) -> bool {
        s.fixed.is_none() && s.name == OFF
    }

    /// Whether the bytes read so far are a whole segment.
    #[inline]
    pub fn accepts(&self, s: &SegState) -> bool {
        s.name == DONE || matches!((&self.fixed, s.fixed), (Some(d), Some(f)) if d.accepts(f))
    }

    /// Runs `bytes` from `s`; `None` when the automaton dies.
    pub fn run(&self, s: &SegState, bytes: &[u8]) -> Option<SegState> {
        let mut s = *s;
        for &b in bytes {
            s = self.next(&s, b);
            if self.is_dead(&s) {
                return None;
            }
        }
        Some(s)
    }
}
