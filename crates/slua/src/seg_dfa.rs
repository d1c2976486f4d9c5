//! A segment regex compiled to a lazy DFA ([`SegDfa`]: regex-automata's hybrid DFA,
//! anchored, all matches), and the A1 check on it: no match has a proper extension
//! that also matches. The automata are compiled once per environment and kept by
//! [`crate::dfa::DfaCache`].
//!
//! The DFA is lazy: a state is determinized the first time a byte reaches it, so a
//! segment the checker crosses with a dozen bytes costs a dozen states, not the
//! whole DFA (a statement start's union of some 60 alternatives has hundreds), and
//! a mask's trie walk builds only the states its tokens reach.
//!
//! A lazy DFA's states live in its cache; regex-automata clears a full cache, which
//! would invalidate the state ids that segment states and state masks hold. So the
//! cache is never cleared: its capacity is far above any segment's DFA (see
//! [`SegDfa::CACHE_CAPACITY`]), and past it the automaton refuses further bytes
//! rather than clear.

use std::cell::RefCell;
use std::collections::HashMap;

use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::hybrid::LazyStateID;
use regex_automata::nfa::thompson;
use regex_automata::util::start;
use regex_automata::util::syntax;
use regex_automata::{Anchored, MatchKind};
use regex_syntax::hir::Hir;
use rustc_hash::FxHashMap;

/// A state of a [`SegDfa`] (meaningful only with the automaton that made it).
pub type DfaState = LazyStateID;

/// A compiled segment regex.
pub struct SegDfa {
    dfa: DFA,
    /// The lazily built states (never cleared: see the module doc).
    cache: RefCell<Cache>,
    start: DfaState,
    /// Memo of [`SegDfa::distance`].
    dist: RefCell<FxHashMap<DfaState, Option<u32>>>,
}

impl std::fmt::Debug for SegDfa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SegDfa").field("states_bytes", &self.cache.borrow().memory_usage()).finish()
    }
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

impl SegDfa {
    /// The most memory one automaton's states may take (the largest segment DFA of
    /// the game's API, a statement start, takes well under 1 MiB when fully built).
    pub const CACHE_CAPACITY: usize = 256 << 20;

    /// Compiles `regex` (anchored at the start; a match must cover the whole input).
    pub fn build(regex: &str) -> Result<SegDfa, DfaError> {
        SegDfa::from_hir(&SegDfa::parse(regex)?).map_err(|e| DfaError(format!("{regex}: {e}")))
    }

    /// Parses `regex` as segment regexes are read: bytes, not Unicode.
    fn parse(regex: &str) -> Result<Hir, DfaError> {
        syntax::parse_with(regex, &syntax::Config::new().unicode(false).utf8(false))
            .map_err(|e| DfaError(format!("{regex}: {e}")))
    }

    /// Compiles a parsed regex; the error without the regex (the caller names it).
    pub(crate) fn from_hir(hir: &Hir) -> Result<SegDfa, String> {
        // No capture states in the NFA: the DFA is only stepped byte by byte.
        let nfa = thompson::Compiler::new()
            .configure(thompson::Config::new().which_captures(thompson::WhichCaptures::None))
            .build_from_hir(hir)
            .map_err(|e| e.to_string())?;
        let dfa = DFA::builder()
            .configure(
                DFA::config()
                    .match_kind(MatchKind::All)
                    .cache_capacity(SegDfa::CACHE_CAPACITY)
                    .skip_cache_capacity_check(true)
                    .minimum_cache_clear_count(Some(0)),
            )
            .build_from_nfa(nfa)
            .map_err(|e| e.to_string())?;
        let mut cache = dfa.create_cache();
        let start = dfa
            .start_state(&mut cache, &start::Config::new().anchored(Anchored::Yes))
            .map_err(|e| e.to_string())?;
        Ok(SegDfa { dfa, cache: RefCell::new(cache), start, dist: RefCell::default() })
    }

    /// The memory its states take so far.
    pub fn states_bytes(&self) -> usize {
        self.cache.borrow().memory_usage()
    }

    /// The start state.
    pub fn start(&self) -> DfaState {
        self.start
    }

    /// The state after byte `b`; `None` when no continuation can match any more
    /// (or, never seen, when the automaton outgrows [`SegDfa::CACHE_CAPACITY`]).
    #[inline]
    pub fn next(&self, s: DfaState, b: u8) -> Option<DfaState> {
        let t = self.dfa.next_state(&mut self.cache.borrow_mut(), s, b).ok()?;
        (!t.is_dead() && !t.is_quit()).then_some(t)
    }

    /// Whether the bytes read so far match the whole regex.
    #[inline]
    pub fn accepts(&self, s: DfaState) -> bool {
        self.dfa.next_eoi_state(&mut self.cache.borrow_mut(), s).is_ok_and(|t| t.is_match())
    }

    /// The fewest bytes that lead from `s` to a whole match (0 when `s` accepts);
    /// `None` when none does. Breadth-first over the byte classes, memoised.
    pub fn distance(&self, s: DfaState) -> Option<u32> {
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
                    if let Some(u) = self.next(t, b).filter(|u| seen.insert(*u)) {
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
    pub fn run(&self, mut s: DfaState, bytes: &[u8]) -> Option<DfaState> {
        for &b in bytes {
            s = self.next(s, b)?;
        }
        Some(s)
    }

    /// The A1 property: no accepting state reaches an accepting state through a
    /// non-empty path. Returns a witness pair of strings when it fails.
    pub fn check_a1(&self) -> Result<(), (Vec<u8>, Vec<u8>)> {
        // Breadth-first search from the start gives every reachable state and a
        // shortest string reaching it.
        let mut path: HashMap<DfaState, Vec<u8>> = HashMap::new();
        let mut order = vec![self.start];
        path.insert(self.start, Vec::new());
        let mut i = 0;
        while i < order.len() {
            let s = order[i];
            i += 1;
            for b in 0..=255u8 {
                let Some(t) = self.next(s, b).filter(|t| !path.contains_key(t)) else { continue };
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
            let mut todo: Vec<(DfaState, Vec<u8>)> = Vec::new();
            for b in 0..=255u8 {
                if let Some(t) = self.next(s, b).filter(|t| seen.insert(*t)) {
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
                    if let Some(u) = self.next(t, b).filter(|u| seen.insert(*u)) {
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

/// A shortest string one of `a` and `b` matches and the other does not; `None` when
/// they match the same language (breadth-first over the pairs of states).
#[cfg(test)]
pub(crate) fn difference(a: &SegDfa, b: &SegDfa) -> Option<Vec<u8>> {
    let mut seen = HashMap::from([((Some(a.start()), Some(b.start())), Vec::new())]);
    let mut todo = std::collections::VecDeque::from([(Some(a.start()), Some(b.start()))]);
    while let Some((s, t)) = todo.pop_front() {
        let path = seen[&(s, t)].clone();
        if s.is_some_and(|s| a.accepts(s)) != t.is_some_and(|t| b.accepts(t)) {
            return Some(path);
        }
        for byte in 0..=255u8 {
            let next = (s.and_then(|s| a.next(s, byte)), t.and_then(|t| b.next(t, byte)));
            if next != (None, None) && !seen.contains_key(&next) {
                let mut p = path.clone();
                p.push(byte);
                seen.insert(next, p);
                todo.push_back(next);
            }
        }
    }
    None
}

/// Checks A1 for `regex` (compiling it; see [`A1Checks`] to check many).
pub fn a1_holds(regex: &str) -> Result<(), String> {
    SegDfa::build(regex).map_err(|e| e.to_string()).and_then(|d| {
        d.check_a1().map_err(|(a, b)| {
            format!(
                "A1 fails for /{regex}/: {:?} and its extension {:?} both match",
                String::from_utf8_lossy(&a),
                String::from_utf8_lossy(&b)
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_count_the_bytes_still_needed() {
        let d = SegDfa::build("[ ]*ab;").unwrap();
        assert_eq!(d.distance(d.start()), Some(3));
        let s = d.run(d.start(), b"  a").unwrap();
        assert_eq!(d.distance(s), Some(2));
        assert_eq!(d.distance(d.run(s, b"b;").unwrap()), Some(0));
    }

    #[test]
    fn dfa_accepts_whole_matches_only() {
        let d = SegDfa::build("[ ]*ab;").unwrap();
        let s = d.run(d.start(), b"  ab").unwrap();
        assert!(!d.accepts(s));
        assert!(d.accepts(d.next(s, b';').unwrap()));
        assert!(d.run(d.start(), b"x").is_none());
    }
}
