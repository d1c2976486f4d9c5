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
}

/// Where the names part of a [`SegState`] stands.
#[derive(Clone, Debug)]
enum NameState {
    /// No name can match any more.
    Off,
    /// Before the name (leading whitespace allowed).
    Ws,
    /// Inside a name: the trie node of the bytes read.
    In(Rc<ScopeNode>),
    /// A name and its look-ahead byte were read: a whole match.
    Done,
}

/// A state of a [`SegAuto`].
#[derive(Clone, Debug)]
pub struct SegState {
    fixed: Option<StateID>,
    name: NameState,
}

impl SegAuto {
    /// The automaton of the union of `fixed` and `names` (with its consumed byte).
    pub fn new(fixed: Option<Rc<SegDfa>>, names: Option<(Rc<ScopedNames>, Option<u8>)>) -> SegAuto {
        SegAuto { fixed, names }
    }

    /// The start state.
    pub fn start(&self) -> SegState {
        let name = match &self.names {
            None => NameState::Off,
            Some((_, None)) => NameState::Ws,
            Some((n, Some(c))) => match n.scope.root().and_then(|r| n.step(r, *c)) {
                Some(node) => NameState::In(node.clone()),
                None => NameState::Off,
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
        let name = match (&self.names, &s.name) {
            (Some((n, _)), NameState::Ws) => match n.scope.root().and_then(|r| n.step(r, b)) {
                _ if is_ws(b) => NameState::Ws,
                Some(c) => NameState::In(c.clone()),
                None => NameState::Off,
            },
            (Some((n, _)), NameState::In(node)) => {
                if n.la_at(node).is_some_and(|la| la.contains(b)) {
                    NameState::Done
                } else {
                    match n.step(node, b) {
                        Some(c) => NameState::In(c.clone()),
                        None => NameState::Off,
                    }
                }
            }
            _ => NameState::Off,
        };
        SegState { fixed, name }
    }

    /// Whether no continuation can match any more.
    #[inline]
    pub fn is_dead(&self, s: &SegState) -> bool {
        s.fixed.is_none() && matches!(s.name, NameState::Off)
    }

    /// Whether the bytes read so far are a whole segment.
    #[inline]
    pub fn accepts(&self, s: &SegState) -> bool {
        matches!(s.name, NameState::Done) || matches!((&self.fixed, s.fixed), (Some(d), Some(f)) if d.accepts(f))
    }

    /// Runs `bytes` from `s`; `None` when the automaton dies.
    pub fn run(&self, s: &SegState, bytes: &[u8]) -> Option<SegState> {
        let mut s = s.clone();
        for &b in bytes {
            s = self.next(&s, b);
            if self.is_dead(&s) {
                return None;
            }
        }
        Some(s)
    }
}
