//! The compiled segment automata of an environment ([`DfaCache`], owned by the
//! [`crate::Env`] the trees share; the automata are [`crate::seg_dfa`]'s), and the
//! answers of the A1 check by regex ([`A1Checks`]).
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
//! - the DFA is lazy (see [`crate::seg_dfa`]).

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::Hasher;
use std::rc::Rc;

use regex_syntax::hir::{Hir, Repetition};
use rustc_hash::FxHashMap;

use crate::alt::{Alt, AltKey};
use crate::byte_set::WS_BYTES;
use crate::lexeme::{byte_class, Lex};
use crate::state_masks::StateMasks;
use crate::viability::Viability;

#[cfg(test)]
pub(crate) use crate::seg_dfa::difference;
pub use crate::seg_dfa::{a1_holds, DfaError, DfaState, SegDfa};

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
        let bytes = |d: &Rc<SegDfa>| d.states_bytes();
        let by_alts: usize = self.by_alts.borrow().values().flatten().map(|(_, d)| bytes(d)).sum();
        by_alts + self.by_regex.borrow().values().map(bytes).sum::<usize>()
    }
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
}
