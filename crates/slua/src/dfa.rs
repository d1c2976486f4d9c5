//! Segment regexes as DFAs (regex-automata's dense DFA, anchored, all matches), a
//! cache of them ([`DfaCache`], owned by the [`crate::Env`] the trees share), and the
//! A1 check: no match has a proper extension that also matches.
//!
//! Building a dense DFA costs from tens of microseconds to a few milliseconds; the
//! fixed parts of segments (keywords, operators, API names: everything but the names
//! in scope, which [`crate::seg_auto`] walks in the scope's trie) come from the API
//! and recur constantly (`;`, `end`, operator sets), so each is built once per
//! environment and shared.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::Hasher;
use std::rc::Rc;

use regex_automata::dfa::{dense, Automaton, StartKind};
use rustc_hash::FxHashMap;
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind};

use crate::lexeme::{Alt, AltKey};
use crate::state_masks::StateMasks;

/// A compiled segment regex.
#[derive(Debug)]
pub struct SegDfa {
    dfa: dense::DFA<Vec<u32>>,
    start: StateID,
    /// Memo of [`SegDfa::distance`].
    dist: RefCell<FxHashMap<StateID, Option<u32>>>,
}

/// A regex that could not be compiled (a bug in a parser node, reported as text).
#[derive(Debug, Clone)]
pub struct DfaError(pub String);

impl std::fmt::Display for DfaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "segment regex does not compile: {}", self.0)
    }
}

impl std::error::Error for DfaError {}

/// Compiled segment DFAs by regex. The regexes it sees are the fixed parts of
/// segments, a set bounded by the API; past `CAP` entries it starts afresh anyway.
///
/// Segments are looked up by their alternatives ([`DfaCache::get_for_alts`]) rather
/// than by regex: writing the regex of a segment (character classes, the words a new
/// name may not be) cost more than the rest of feeding it.
///
/// It also keeps the tree-independent part of masks by DFA state
/// ([`crate::state_masks`]), which lives as long as the DFAs it is keyed by.
#[derive(Debug, Default)]
pub struct DfaCache(RefCell<FxHashMap<String, Rc<SegDfa>>>, RefCell<FxHashMap<u64, Vec<(Vec<AltKey>, Rc<SegDfa>)>>>, StateMasks);

impl DfaCache {
    const CAP: usize = 20_000;

    /// The DFA of `regex`, built on first use.
    pub fn get(&self, regex: &str) -> Result<Rc<SegDfa>, DfaError> {
        if let Some(d) = self.0.borrow().get(regex) {
            return Ok(d.clone());
        }
        let d = Rc::new(SegDfa::build(regex)?);
        let mut c = self.0.borrow_mut();
        if c.len() >= Self::CAP {
            c.clear();
        }
        c.insert(regex.to_string(), d.clone());
        Ok(d)
    }

    /// The DFA of the union of `alts` (none of them names in scope), whose regex
    /// `regex` writes; built on first use.
    pub fn get_for_alts(&self, alts: &[&Alt], regex: impl FnOnce() -> String) -> Result<Rc<SegDfa>, DfaError> {
        let mut h = rustc_hash::FxHasher::default();
        for a in alts {
            a.hash_key(&mut h);
        }
        let hash = h.finish();
        if let Some(bucket) = self.1.borrow().get(&hash) {
            let hit = bucket.iter().find(|(key, _)| key.len() == alts.len() && alts.iter().zip(key).all(|(a, k)| a.has_key(k)));
            if let Some((_, d)) = hit {
                return Ok(d.clone());
            }
        }
        let d = self.get(&regex())?;
        let key: Option<Vec<AltKey>> = alts.iter().map(|a| a.key()).collect();
        if let Some(key) = key {
            let mut c = self.1.borrow_mut();
            if c.len() >= Self::CAP {
                c.clear();
            }
            c.entry(hash).or_default().push((key, d.clone()));
        }
        Ok(d)
    }

    /// The masks by DFA state (see [`crate::state_masks`]).
    pub(crate) fn masks(&self) -> &StateMasks {
        &self.2
    }

    /// The number of state masks built and kept (see [`crate::state_masks`]).
    pub fn state_masks_built(&self) -> usize {
        self.2.built()
    }

    /// The number of DFAs held.
    pub fn len(&self) -> usize {
        self.0.borrow().len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl SegDfa {
    /// Compiles `regex` (anchored at the start; a match must cover the whole input).
    pub fn build(regex: &str) -> Result<SegDfa, DfaError> {
        // No capture states in the NFA and no acceleration analysis: the DFA is only
        // stepped byte by byte, and both cut the build time of large segments.
        let dfa = dense::Builder::new()
            .configure(dense::Config::new().start_kind(StartKind::Anchored).match_kind(MatchKind::All).accelerate(false))
            .thompson(regex_automata::nfa::thompson::Config::new().which_captures(regex_automata::nfa::thompson::WhichCaptures::None))
            .syntax(regex_automata::util::syntax::Config::new().unicode(false).utf8(false))
            .build(regex)
            .map_err(|e| DfaError(format!("{regex}: {e}")))?;
        let start = dfa
            .start_state(&start::Config::new().anchored(Anchored::Yes))
            .map_err(|e| DfaError(format!("{regex}: {e}")))?;
        Ok(SegDfa { dfa, start, dist: RefCell::default() })
    }

    /// The start state.
    pub fn start(&self) -> StateID {
        self.start
    }

    /// The state after byte `b`.
    pub fn next(&self, s: StateID, b: u8) -> StateID {
        self.dfa.next_state(s, b)
    }

    /// Whether no continuation can match any more.
    pub fn is_dead(&self, s: StateID) -> bool {
        self.dfa.is_dead_state(s) || self.dfa.is_quit_state(s)
    }

    /// Whether the bytes read so far match the whole regex.
    pub fn accepts(&self, s: StateID) -> bool {
        self.dfa.is_match_state(self.dfa.next_eoi_state(s))
    }

    /// The fewest bytes that lead from `s` to a whole match (0 when `s` accepts);
    /// `None` when none does. Breadth-first over the byte classes, memoised.
    pub fn distance(&self, s: StateID) -> Option<u32> {
        if let Some(d) = self.dist.borrow().get(&s) {
            return *d;
        }
        let mut seen = std::collections::HashSet::from([s]);
        let mut level = vec![s];
        let mut d = 0u32;
        let found = loop {
            if level.iter().any(|&t| self.accepts(t)) {
                break Some(d);
            }
            let mut next = Vec::new();
            for &t in &level {
                for b in self.dfa.byte_classes().representatives(0..=255) {
                    let Some(b) = b.as_u8() else { continue };
                    let u = self.next(t, b);
                    if !self.is_dead(u) && seen.insert(u) {
                        next.push(u);
                    }
                }
            }
            if next.is_empty() {
                break None;
            }
            level = next;
            d += 1;
        };
        self.dist.borrow_mut().insert(s, found);
        found
    }

    /// Runs `bytes` from `s`; `None` when the DFA dies.
    pub fn run(&self, mut s: StateID, bytes: &[u8]) -> Option<StateID> {
        for &b in bytes {
            s = self.next(s, b);
            if self.is_dead(s) {
                return None;
            }
        }
        Some(s)
    }

    /// The A1 property: no accepting state reaches an accepting state through a
    /// non-empty path. Returns a witness pair of strings when it fails.
    pub fn check_a1(&self) -> Result<(), (Vec<u8>, Vec<u8>)> {
        // Breadth-first search from the start gives every reachable state and a
        // shortest string reaching it.
        let mut path: HashMap<StateID, Vec<u8>> = HashMap::new();
        let mut order = vec![self.start];
        path.insert(self.start, Vec::new());
        let mut i = 0;
        while i < order.len() {
            let s = order[i];
            i += 1;
            for b in 0..=255u8 {
                let t = self.next(s, b);
                if self.is_dead(t) || path.contains_key(&t) {
                    continue;
                }
                let mut p = path[&s].clone();
                p.push(b);
                path.insert(t, p);
                order.push(t);
            }
        }
        for &s in &order {
            if !self.accepts(s) {
                continue;
            }
            // Search from s's successors for another accepting state.
            let mut seen = std::collections::HashSet::new();
            let mut todo: Vec<(StateID, Vec<u8>)> = Vec::new();
            for b in 0..=255u8 {
                let t = self.next(s, b);
                if !self.is_dead(t) && seen.insert(t) {
                    todo.push((t, vec![b]));
                }
            }
            while let Some((t, ext)) = todo.pop() {
                if self.accepts(t) {
                    let mut longer = path[&s].clone();
                    longer.extend(&ext);
                    return Err((path[&s].clone(), longer));
                }
                for b in 0..=255u8 {
                    let u = self.next(t, b);
                    if !self.is_dead(u) && seen.insert(u) {
                        let mut e = ext.clone();
                        e.push(b);
                        todo.push((u, e));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Checks A1 for `regex`, memoised per thread (tests check every regex they see).
pub fn a1_holds(regex: &str) -> Result<(), String> {
    thread_local! {
        static DONE: RefCell<HashMap<String, Result<(), String>>> = RefCell::new(HashMap::new());
    }
    if let Some(r) = DONE.with(|d| d.borrow().get(regex).cloned()) {
        return r;
    }
    let r = SegDfa::build(regex).map_err(|e| e.to_string()).and_then(|d| {
        d.check_a1().map_err(|(a, b)| {
            format!("A1 fails for /{regex}/: {:?} and its extension {:?} both match", String::from_utf8_lossy(&a), String::from_utf8_lossy(&b))
        })
    });
    DONE.with(|d| d.borrow_mut().insert(regex.to_string(), r.clone()));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a1_is_detected_on_the_dfa() {
        assert!(a1_holds("[a-z]+").is_err());
        assert!(a1_holds("(?:if|iffy)").is_err());
        assert!(a1_holds("[ ]*(?:if|iffy)[ (]").is_ok());
        assert!(a1_holds("[0-9]+(?:\\.[0-9]+)?[ ;]").is_ok());
    }

    #[test]
    fn distances_count_the_bytes_still_needed() {
        let d = SegDfa::build("[ ]*ab;").unwrap();
        assert_eq!(d.distance(d.start()), Some(3));
        let s = d.run(d.start(), b"  a").unwrap();
        assert_eq!(d.distance(s), Some(2));
        assert_eq!(d.distance(d.next(d.next(s, b'b'), b';')), Some(0));
    }

    #[test]
    fn dfa_accepts_whole_matches_only() {
        let d = SegDfa::build("[ ]*ab;").unwrap();
        let s = d.run(d.start(), b"  ab").unwrap();
        assert!(!d.accepts(s));
        assert!(d.accepts(d.next(s, b';')));
        assert!(d.run(d.start(), b"x").is_none());
    }
}
