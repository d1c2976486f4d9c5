//! [`MaskLayer`]: the hook through which a language's lexical layer takes part in an
//! exact mask, so that the generic trie walk ([`crate::exact`]) imports no language.
//!
//! The walk decides bytes inside a lexeme from the lexer DFA alone (its light
//! paths). A layer whose verdicts the DFA cannot see (Python's f-strings: the
//! recognizer checks their replacement fields byte by byte) is called at three fixed
//! points of every mask ([`crate::exact::ExactWalker::fill`]):
//! 1. before the walk, [`MaskLayer::decides`]: whether the layer computes this mask
//!    itself ([`MaskLayer::fill_inside`]: inside an f-string's field);
//! 2. during the walk, [`MaskLayer::checked_terminal`]: the terminal whose lexemes the
//!    layer checks on the text, whose lexeme ends the walk must not reuse;
//! 3. after the walk, [`MaskLayer::after_walk`]: re-checks of the tokens whose bytes
//!    the light paths could not judge.
//!
//! Indentation and Go's semicolons need no hook here: the recognizer's layer decides
//! them on the full states the walk already keeps at lexeme boundaries. A language
//! without such a layer uses [`AnyLayer::none`]. The layers live in their language's
//! folder (`python/`); the kit ([`crate::MaskKit`]) picks one per language.

use std::sync::Arc;

use espalier_grammar::{Recognizer as GrammarRecognizer, TerminalId, TokenParser};

use crate::lexeme_starts::LexemeStarts;
use crate::token_set::TokenSet;
use crate::trie::TokTrie;

/// A lexical layer's part in exact masks (see the module doc). Each method returns
/// the full recognizer steps it took (a work counter for benchmarks).
pub trait MaskLayer<P: TokenParser>: std::fmt::Debug + Send + Sync {
    /// Whether this layer computes the whole mask at `state` ([`Self::fill_inside`]).
    fn decides(&self, state: &GrammarRecognizer<P>) -> bool;

    /// The mask at a state the layer decides: representatives only (duplicate ids
    /// are added by the caller), long tokens included.
    fn fill_inside(
        &mut self,
        state: &GrammarRecognizer<P>,
        trie: &TokTrie,
        starts: Option<&Arc<LexemeStarts>>,
        mask: &mut TokenSet,
    ) -> usize;

    /// After the trie walk of a state the layer does not decide: corrects `mask`
    /// where the walk's light paths judged bytes the layer sees differently.
    fn after_walk(
        &mut self,
        state: &GrammarRecognizer<P>,
        trie: &TokTrie,
        mask: &mut TokenSet,
    ) -> usize;

    /// The terminal whose lexemes this layer checks on the text (Python: STRING):
    /// the walk must not reuse one such lexeme's end for another.
    fn checked_terminal(&self) -> Option<TerminalId>;

    /// A copy behind a box (a walker is cloned with its layer).
    fn boxed_clone(&self) -> Box<dyn MaskLayer<P>>;
}

/// Any language's layer behind a box, or none: what a walker holds when the
/// language is chosen at run time.
#[derive(Debug)]
pub struct AnyLayer<P: TokenParser>(Option<Box<dyn MaskLayer<P>>>);

impl<P: TokenParser> AnyLayer<P> {
    /// No layer: the trie walk alone decides every mask.
    pub fn none() -> Self {
        AnyLayer(None)
    }

    /// `layer`, boxed.
    pub fn of(layer: impl MaskLayer<P> + 'static) -> Self {
        AnyLayer(Some(Box::new(layer)))
    }
}

impl<P: TokenParser> Clone for AnyLayer<P> {
    fn clone(&self) -> Self {
        AnyLayer(self.0.as_ref().map(|l| l.boxed_clone()))
    }
}

impl<P: TokenParser> MaskLayer<P> for AnyLayer<P> {
    fn decides(&self, state: &GrammarRecognizer<P>) -> bool {
        self.0.as_ref().is_some_and(|l| l.decides(state))
    }

    fn fill_inside(
        &mut self,
        state: &GrammarRecognizer<P>,
        trie: &TokTrie,
        starts: Option<&Arc<LexemeStarts>>,
        mask: &mut TokenSet,
    ) -> usize {
        self.0.as_mut().map_or(0, |l| l.fill_inside(state, trie, starts, mask))
    }

    fn after_walk(
        &mut self,
        state: &GrammarRecognizer<P>,
        trie: &TokTrie,
        mask: &mut TokenSet,
    ) -> usize {
        self.0.as_mut().map_or(0, |l| l.after_walk(state, trie, mask))
    }

    fn checked_terminal(&self) -> Option<TerminalId> {
        self.0.as_ref().and_then(|l| l.checked_terminal())
    }

    fn boxed_clone(&self) -> Box<dyn MaskLayer<P>> {
        Box::new(self.clone())
    }
}
