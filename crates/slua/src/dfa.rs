//! Segment regexes as lazy DFAs (regex-automata's hybrid DFA, anchored, all
//! matches), a cache of them ([`DfaCache`], owned by the [`crate::Env`] the trees
//! share), and the A1 check: no match has a proper extension that also matches.
//!
//! The fixed parts of segments (keywords, operators, API names: everything but the
//! names in scope, which [`crate::seg_auto`] walks in the scope's trie) come from
//! the API and recur constantly (`;`, `end`, operator sets), so each union is built
//! once per environment and shared. Building one is what a cold script pays for
//! (a fresh environment: a decoder's first generation, one `espalier check` run),
//! so it is made cheap in two ways:
//!
//! - a segment's union is built as HIR ([`crate::lexeme::Lex::hir_rest`]), not
//!   written out and parsed (parsing was a sixth of a cold script's mask time, the
//!   words a new name may not be making long regexes), and compiled to a Thompson
//!   NFA;
//! - the DFA is lazy: a state is determinized the first time a byte reaches it, so a
//!   segment the checker crosses with a dozen bytes costs a dozen states, not the
//!   whole DFA (a statement start's union of some 60 alternatives has hundreds), and
//!   a mask's trie walk builds only the states its tokens reach.
//!
//! A lazy DFA's states live in its cache; regex-automata clears a full cache, which
//! would invalidate the state ids that segment states and state masks hold. So the
//! cache is never cleared: its capacity is far above any segment's DFA (see
//! [`SegDfa::CACHE_CAPACITY`]), and past it the automaton refuses further bytes
//! rather than clear.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::Hasher;
use std::rc::Rc;

use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::hybrid::LazyStateID;
use regex_automata::nfa::thompson;
use regex_automata::util::start;
use regex_automata::util::syntax;
use regex_automata::{Anchored, MatchKind};
use regex_syntax::hir::{Hir, Repetition};
use rustc_hash::FxHashMap;

use crate::alt::{Alt, AltKey};
use crate::byte_set::WS_BYTES;
use crate::lexeme::{byte_class, Lex};
use crate::state_masks::StateMasks;
use crate::viability::Viability;

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

/// A union's alternatives' keys and its DFA.
type AltEntry = (Vec<AltKey>, Rc<SegDfa>);

/// Compiled segment DFAs. The segments it sees are the fixed parts of segments, a
/// set bounded by the API; past `CAP` entries it starts afresh anyway.
///
/// Segments are looked up by their alternatives ([`DfaCache::get_for_alts`]) rather
/// than by regex: writing the regex of a segment (character classes, the words a new
/// name may not be) cost more than the rest of feeding it.
///
/// It also keeps the tree-independent part of masks by DFA state
/// ([`crate::state_masks`]), which lives as long as the DFAs it is keyed by, and the
/// expressions' [`Viability`] table (the operator stacks' automaton).
#[derive(Debug, Default)]
pub struct DfaCache {
    by_regex: RefCell<FxHashMap<String, Rc<SegDfa>>>,
    by_alts: RefCell<FxHashMap<u64, Vec<AltEntry>>>,
    /// The HIR of new names' rests (see [`DfaCache::name_hir`]).
    #[allow(clippy::type_complexity)]
    names: RefCell<FxHashMap<(usize, bool, Option<u8>), (Rc<Vec<String>>, Hir)>>,
    /// Word lists of new names, one per content (see [`DfaCache::words`]).
    words: RefCell<Vec<Rc<Vec<String>>>>,
    masks: StateMasks,
    viability: Viability,
}

impl DfaCache {
    const CAP: usize = 20_000;

    /// The DFA of `regex`, built on first use.
    pub fn get(&self, regex: &str) -> Result<Rc<SegDfa>, DfaError> {
        if let Some(d) = self.by_regex.borrow().get(regex) {
            return Ok(d.clone());
        }
        let d = Rc::new(SegDfa::build(regex)?);
        self.keep(regex.to_string(), &d);
        Ok(d)
    }

    fn keep(&self, regex: String, d: &Rc<SegDfa>) {
        let mut c = self.by_regex.borrow_mut();
        if c.len() >= Self::CAP {
            c.clear();
        }
        c.insert(regex, d.clone());
    }

    /// The DFA of the union of `alts` (none of them names in scope), built on first
    /// use from the alternatives' HIR.
    pub fn get_for_alts(&self, alts: &[&Alt]) -> Result<Rc<SegDfa>, DfaError> {
        let mut h = rustc_hash::FxHasher::default();
        for a in alts {
            a.hash_key(&mut h);
        }
        let hash = h.finish();
        if let Some(bucket) = self.by_alts.borrow().get(&hash) {
            let hit = bucket.iter().find(|(key, _)| {
                key.len() == alts.len() && alts.iter().zip(key).all(|(a, k)| a.has_key(k))
            });
            if let Some((_, d)) = hit {
                return Ok(d.clone());
            }
        }
        let d = self.build_for_alts(alts)?;
        let key: Option<Vec<AltKey>> = alts.iter().map(|a| a.key()).collect();
        if let Some(key) = key {
            let mut c = self.by_alts.borrow_mut();
            if c.len() >= Self::CAP {
                c.clear();
            }
            c.entry(hash).or_default().push((key, d.clone()));
        }
        Ok(d)
    }

    /// The union DFA of `alts`, compiled from the alternatives' HIR. (Within one
    /// environment equal unions have equal keys: the only word lists, of new names,
    /// are the environment's.)
    fn build_for_alts(&self, alts: &[&Alt]) -> Result<Rc<SegDfa>, DfaError> {
        let parts = alts.iter().map(|a| self.alt_hir(a)).collect::<Result<Vec<_>, _>>()?;
        let d = SegDfa::from_hir(&Hir::alternation(parts)).map_err(|e| {
            let regex =
                alts.iter().map(|a| format!("(?:{})", a.regex())).collect::<Vec<_>>().join("|");
            DfaError(format!("{regex}: {e}"))
        })?;
        Ok(Rc::new(d))
    }

    /// The HIR of one alternative, what [`Alt::regex`] writes: leading whitespace
    /// (unless a byte was carried), the lexeme's rest, the look-ahead class.
    fn alt_hir(&self, a: &Alt) -> Result<Hir, DfaError> {
        let mut parts = Vec::with_capacity(3);
        if a.done.is_empty() {
            parts.push(Hir::repetition(Repetition {
                min: 0,
                max: None,
                greedy: true,
                sub: Box::new(byte_class(WS_BYTES)),
            }));
        }
        parts.push(match &a.lex {
            Lex::Name { upper, exclude } => self.name_hir(*upper, exclude, a)?,
            lex => lex
                .hir_rest(&a.done)
                .ok_or_else(|| DfaError("names in scope have no fixed automaton".into()))?,
        });
        if let Some(la) = a.la {
            parts.push(byte_class(la));
        }
        Ok(Hir::concat(parts))
    }

    /// The HIR of a new name's rest (see [`Lex::hir_rest`]), kept by word list and
    /// consumed byte: the words a new name may not be (some 100 names of the API)
    /// make it the largest part of a union, and the lists are the environment's.
    fn name_hir(&self, upper: bool, exclude: &Rc<Vec<String>>, a: &Alt) -> Result<Hir, DfaError> {
        let key = (Rc::as_ptr(exclude) as usize, upper, a.done.first().copied());
        if let Some((_, h)) = self.names.borrow().get(&key) {
            return Ok(h.clone());
        }
        let h = a
            .lex
            .hir_rest(&a.done)
            .ok_or_else(|| DfaError("a new name has no fixed automaton".into()))?;
        // The list is held, so that its address (the key) stays its own.
        self.names.borrow_mut().insert(key, (exclude.clone(), h.clone()));
        Ok(h)
    }

    /// The shared copy of a list of words new names may not be: environments
    /// sharing this cache get equal lists at one address, which keys their
    /// segments (see [`crate::alt::AltKey`]), so the segments of a decoder's
    /// later generations (each with its own environment) are found compiled.
    pub fn words(&self, list: Vec<String>) -> Rc<Vec<String>> {
        let mut words = self.words.borrow_mut();
        if let Some(w) = words.iter().find(|w| ***w == list) {
            return w.clone();
        }
        if words.len() >= 64 {
            words.clear();
        }
        let w = Rc::new(list);
        words.push(w.clone());
        w
    }

    /// Whether expressions can still end in a wanted type (see [`crate::viability`]).
    pub fn viability(&self) -> &Viability {
        &self.viability
    }

    /// The masks by DFA state (see [`crate::state_masks`]).
    pub(crate) fn masks(&self) -> &StateMasks {
        &self.masks
    }

    /// The number of state masks built and kept (see [`crate::state_masks`]).
    pub fn state_masks_built(&self) -> usize {
        self.masks.built()
    }

    /// The number of DFAs held.
    pub fn len(&self) -> usize {
        self.by_regex.borrow().len() + self.by_alts.borrow().values().map(Vec::len).sum::<usize>()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held by the states the DFAs have built so far.
    pub fn states_bytes(&self) -> usize {
        let bytes = |d: &Rc<SegDfa>| d.cache.borrow().memory_usage();
        let by_alts: usize = self.by_alts.borrow().values().flatten().map(|(_, d)| bytes(d)).sum();
        by_alts + self.by_regex.borrow().values().map(bytes).sum::<usize>()
    }
}

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

/// [`a1_holds`] with its answers kept by regex: the tests and the fuzzer check
/// every segment regex they meet, and most recur (`;`, `end`, a statement start).
#[derive(Debug, Default)]
pub struct A1Checks(RefCell<HashMap<String, Result<(), String>>>);

impl A1Checks {
    /// Whether A1 holds for `regex` (checked on first sight).
    pub fn check(&self, regex: &str) -> Result<(), String> {
        if let Some(r) = self.0.borrow().get(regex) {
            return r.clone();
        }
        let r = a1_holds(regex);
        self.0.borrow_mut().insert(regex.to_string(), r.clone());
        r
    }

    /// The number of regexes checked.
    pub fn len(&self) -> usize {
        self.0.borrow().len()
    }

    /// Whether none was checked.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a1_checks_keep_each_answer() {
        let checks = A1Checks::default();
        assert!(checks.check("[a-z]+").is_err());
        assert!(checks.check("[ ]*if[ (]").is_ok());
        assert!(checks.check("[a-z]+").is_err());
        assert_eq!(checks.len(), 2);
    }

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
