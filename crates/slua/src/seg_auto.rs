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

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use regex_automata::util::primitives::StateID;

use crate::dfa::SegDfa;
use crate::lexeme::is_ws;
use crate::scope::ScopeNode;
use crate::scoped_names::ScopedNames;

/// The automaton of one segment.
#[derive(Debug)]
pub struct SegAuto {
    /// The DFA of every alternative but the names in scope (`None` when there is none).
    fixed: Option<Rc<SegDfa>>,
    /// The names in scope, and the byte of them already consumed (a carried byte).
    names: Option<(Rc<ScopedNames>, Option<u8>)>,
    /// Trie nodes met so far, so that a state is a small copyable value (an index
    /// here): the mask's trie walk pushes one state per byte and pops them in bulk.
    nodes: RefCell<Vec<Rc<ScopeNode>>>,
    /// Index of each node of `nodes` by address (the `Rc`s in `nodes` keep them alive,
    /// so an address is never reused while it is a key).
    index: RefCell<HashMap<*const ScopeNode, u32>>,
}

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
    fixed: Option<StateID>,
    name: NameState,
}

impl SegAuto {
    /// The automaton of the union of `fixed` and `names` (with its consumed byte).
    pub fn new(fixed: Option<Rc<SegDfa>>, names: Option<(Rc<ScopedNames>, Option<u8>)>) -> SegAuto {
        SegAuto { fixed, names, nodes: RefCell::default(), index: RefCell::default() }
    }

    fn node_state(&self, node: &Rc<ScopeNode>) -> NameState {
        let key = Rc::as_ptr(node);
        if let Some(&i) = self.index.borrow().get(&key) {
            return IN + i;
        }
        let mut nodes = self.nodes.borrow_mut();
        let i = nodes.len() as u32;
        nodes.push(node.clone());
        self.index.borrow_mut().insert(key, i);
        IN + i
    }

    /// The start state.
    pub fn start(&self) -> SegState {
        let name = match &self.names {
            None => OFF,
            Some((_, None)) => WS,
            Some((n, Some(c))) => match n.scope.root().and_then(|r| n.step(r, *c)) {
                Some(node) => self.node_state(node),
                None => OFF,
            },
        };
        SegState { fixed: self.fixed.as_ref().map(|d| d.start()), name }
    }

    /// The state after byte `b`.
    #[inline]
    pub fn next(&self, s: &SegState, b: u8) -> SegState {
        let fixed = match (&self.fixed, s.fixed) {
            (Some(d), Some(f)) => Some(d.next(f, b)).filter(|t| !d.is_dead(*t)),
            _ => None,
        };
        let name = match &self.names {
            Some((n, _)) if s.name != OFF && s.name != DONE => self.next_name(n, s.name, b),
            _ => OFF,
        };
        SegState { fixed, name }
    }

    fn next_name(&self, n: &ScopedNames, state: NameState, b: u8) -> NameState {
        let child = if state == WS {
            if is_ws(b) {
                return WS;
            }
            n.scope.root().and_then(|r| n.step(r, b)).cloned()
        } else {
            let node = self.nodes.borrow()[(state - IN) as usize].clone();
            if n.la_at(&node).is_some_and(|la| la.contains(b)) {
                return DONE;
            }
            n.step(&node, b).cloned()
        };
        child.map_or(OFF, |c| self.node_state(&c))
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
