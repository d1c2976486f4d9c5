//! The last exact masks computed (EOS decided), kept with their states, so that a
//! mask is a copy when the recognizer accepts the same continuations as at one of
//! them (and then has the same completeness).
//!
//! Why: inside a comment, a docstring, a string or a name, decoding commits token
//! after token of one lexeme; the parser, the layout and the lexer DFA state stay
//! the same and only the lexeme's bytes grow, which (outside f-strings) no later
//! byte reads in a way that can differ (`espalier_grammar::Recognizer::same_continuations`
//! says when). Those masks are then equal: half of a file's steps (issue 16: the
//! cheapest masks, 1-5 us natively, ran 1.5-1.7x slower in wasm; a copy of the 6 KB
//! set is the same `memory.copy` in both). Between lexemes the same parser stacks
//! come back too (`self.` in one method, then in the next, at the same statement
//! depth): on the benchmark files the last 64 states held 2,183 more masks than the
//! last one alone, most of them 30-50 us ones.
//!
//! Owned by the constraint ([`crate::GrammarConstraint`]): at most [`ENTRIES`] masks,
//! the oldest overwritten; no global cache. The nested masks of f-string fields are
//! kept the same way, in smaller memos of the constraint's field scratch
//! (`python/fstring_layer.rs`). The most recent entry is tried first
//! (the next step inside a lexeme), then those with the same
//! `Recognizer::continuations_key`. Only LR parsers are compared (Earley states never
//! match). A clone keeps only the most recent entry (constraints are cloned to look
//! ahead; ~7 KB an entry).

use espalier_grammar::{Continuations, Recognizer as GrammarRecognizer, TokenParser};

use crate::TokenSet;

/// Masks kept per constraint.
pub(crate) const ENTRIES: usize = 64;

/// The kept states and their exact masks (see the module doc).
#[derive(Debug)]
pub(crate) struct MaskMemo<P: TokenParser> {
    kept: Vec<Kept<P>>,
    /// At most this many entries.
    entries: usize,
    /// The entry kept or reused last.
    last: usize,
    /// The entry the next one overwrites once all are in use.
    next: usize,
    /// Scratch for the current state with its lexeme ended.
    scratch: Option<GrammarRecognizer<P>>,
    /// Masks reused so far (a work counter for tests and benchmarks).
    pub(crate) reused: usize,
}

#[derive(Clone, Debug)]
struct Kept<P: TokenParser> {
    key: u64,
    state: GrammarRecognizer<P>,
    /// The kept state after [`GrammarRecognizer::end_lexeme`] when it has a rest:
    /// `None` when refused (or without a rest).
    ended: Option<GrammarRecognizer<P>>,
    rest_refused: bool,
    mask: TokenSet,
}

impl<P: TokenParser> Clone for MaskMemo<P> {
    /// Keeps only the most recent entry (see the module doc).
    fn clone(&self) -> Self {
        Self {
            kept: self.kept.get(self.last).cloned().into_iter().collect(),
            entries: self.entries,
            last: 0,
            next: 0,
            scratch: None,
            reused: self.reused,
        }
    }
}

/// Equal LR stacks (parsers without LR stacks never compare equal), element by
/// element: a slice comparison is a `memcmp` call, in wasm a loop over single bytes.
fn same_lr<P: TokenParser>(a: &P, b: &P) -> bool {
    let (Some(a), Some(b)) = (a.lr_stacks(), b.lr_stacks()) else { return false };
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p == q))
}

impl<P: TokenParser> MaskMemo<P> {
    pub(crate) fn new() -> Self {
        Self::with_entries(ENTRIES)
    }

    /// A memo of at most `entries` masks.
    pub(crate) fn with_entries(entries: usize) -> Self {
        Self {
            kept: Vec::new(),
            entries: entries.max(1),
            last: 0,
            next: 0,
            scratch: None,
            reused: 0,
        }
    }

    /// Writes a kept mask into `mask` if `state` accepts the same continuations as
    /// its state; `false` (and `mask` untouched) otherwise.
    pub(crate) fn recall(&mut self, state: &GrammarRecognizer<P>, mask: &mut TokenSet) -> bool {
        let found = if self.last < self.kept.len() && self.matches(self.last, state) {
            Some(self.last)
        } else if self.kept.len() > 1 {
            let key = state.continuations_key();
            (0..self.kept.len())
                .find(|&i| i != self.last && self.kept[i].key == key && self.matches(i, state))
        } else {
            None
        };
        let Some(i) = found else { return false };
        mask.clone_from(&self.kept[i].mask);
        self.last = i;
        self.reused += 1;
        true
    }

    /// Whether `state` accepts the same continuations as entry `i`'s state.
    fn matches(&mut self, i: usize, state: &GrammarRecognizer<P>) -> bool {
        let k = &self.kept[i];
        match state.same_continuations(&k.state, k.rest_refused, same_lr) {
            Continuations::Same => true,
            Continuations::Differ => false,
            Continuations::SameIfEndsSame => {
                let scratch = self.scratch.get_or_insert_with(|| state.clone());
                // The state with its lexeme ended: the kept one's plus the bytes read
                // since, if it is the same lexeme (else re-read from the state).
                let ended = match (state.read_since(&k.state), &k.ended) {
                    (Some(extra), Some(e)) if !k.rest_refused => {
                        scratch.clone_from(e);
                        scratch.try_push_bytes(extra)
                    }
                    _ => {
                        scratch.clone_from(state);
                        scratch.end_lexeme()
                    }
                };
                match (ended, k.rest_refused, &k.ended) {
                    // Both refused, or only one.
                    (false, refused, _) => refused,
                    (true, false, Some(ended)) => {
                        scratch.same_continuations(ended, false, same_lr) == Continuations::Same
                    }
                    (true, _, _) => false,
                }
            }
        }
    }

    /// Keeps `mask`, the exact mask of `state` (an LR parser's: others are never
    /// matched), in a free entry or the oldest.
    pub(crate) fn keep(&mut self, state: &GrammarRecognizer<P>, mask: &TokenSet) {
        if state.parser().lr_stacks().is_none() {
            return;
        }
        let key = state.continuations_key();
        let i = if self.kept.len() < self.entries {
            self.kept.push(Kept {
                key,
                state: state.clone(),
                ended: None,
                rest_refused: false,
                mask: mask.clone(),
            });
            self.kept.len() - 1
        } else {
            let i = self.next;
            self.next = (i + 1) % self.entries;
            let k = &mut self.kept[i];
            k.state.clone_from(state);
            k.mask.clone_from(mask);
            i
        };
        self.last = i;
        let k = &mut self.kept[i];
        k.key = key;
        k.rest_refused = false;
        if state.has_rest() {
            let ended = k.ended.get_or_insert_with(|| state.clone());
            ended.clone_from(state);
            k.rest_refused = !ended.end_lexeme();
        }
        // (`ended` is compared only when the kept state has a rest and took the
        // lexeme end: a stale or refused one is never read.)
    }
}
