//! The last exact mask computed inside a lexeme (EOS decided), kept with its state, so
//! that the next mask is a copy when the recognizer accepts the same continuations
//! there (and then has the same completeness).
//!
//! Why: inside a comment, a docstring, a string or a name, decoding commits token
//! after token of one lexeme; the parser, the layout and the lexer DFA state stay
//! the same and only the lexeme's bytes grow, which (outside f-strings) no later
//! byte reads in a way that can differ (`espalier_grammar::Recognizer::same_continuations`
//! says when). Those masks are then equal, and they are half of a file's steps
//! (issue 16: the cheapest masks, 1-5 us natively, ran 1.5-1.7x slower in wasm; a
//! copy of the 6 KB set is the same `memory.copy` in both).
//!
//! Owned by the constraint ([`crate::GrammarConstraint`]), one entry: no global
//! cache, nothing to evict. Only LR parsers are compared (Earley states never match).

use espalier_grammar::{Continuations, Recognizer as GrammarRecognizer, TokenParser};

use crate::TokenSet;

/// One kept state and its exact mask (see the module doc).
#[derive(Clone, Debug)]
pub(crate) struct MaskMemo<P: TokenParser> {
    kept: Option<Kept<P>>,
    /// Scratch for the current state with its lexeme ended.
    scratch: Option<GrammarRecognizer<P>>,
    /// Masks reused so far (a work counter for tests and benchmarks).
    pub(crate) reused: usize,
}

#[derive(Clone, Debug)]
struct Kept<P: TokenParser> {
    state: GrammarRecognizer<P>,
    /// The kept state after [`GrammarRecognizer::end_lexeme`] when it has a rest:
    /// `None` when refused (or without a rest).
    ended: Option<GrammarRecognizer<P>>,
    rest_refused: bool,
    mask: TokenSet,
}

/// Equal LR stacks (parsers without LR stacks never compare equal), element by
/// element: a slice comparison is a `memcmp` call, in wasm a loop over single bytes.
fn same_lr<P: TokenParser>(a: &P, b: &P) -> bool {
    let (Some(a), Some(b)) = (a.lr_stacks(), b.lr_stacks()) else { return false };
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p == q))
}

impl<P: TokenParser> MaskMemo<P> {
    pub(crate) fn new() -> Self {
        Self { kept: None, scratch: None, reused: 0 }
    }

    /// Writes the kept mask into `mask` if `state` accepts the same continuations as
    /// the kept state; `false` (and `mask` untouched) otherwise.
    pub(crate) fn recall(&mut self, state: &GrammarRecognizer<P>, mask: &mut TokenSet) -> bool {
        let Some(k) = &self.kept else { return false };
        let same = match state.same_continuations(&k.state, k.rest_refused, same_lr) {
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
                    (true, false, Some(ended)) => scratch.same_continuations(ended, false, same_lr) == Continuations::Same,
                    (true, _, _) => false,
                }
            }
        };
        if same {
            mask.clone_from(&k.mask);
            self.reused += 1;
        }
        same
    }

    /// Keeps `mask`, the exact mask of `state`, when `state` is inside a lexeme of an
    /// LR parser (elsewhere the next state differs in the parser anyway).
    pub(crate) fn keep(&mut self, state: &GrammarRecognizer<P>, mask: &TokenSet) {
        if state.remainder_bytes().is_empty() || state.parser().lr_stacks().is_none() {
            return;
        }
        let k = match &mut self.kept {
            Some(k) => {
                k.state.clone_from(state);
                k.mask.clone_from(mask);
                k
            }
            None => self.kept.insert(Kept { state: state.clone(), ended: None, rest_refused: false, mask: mask.clone() }),
        };
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
