//! The `syncode` strategy's DFA mask store (work in progress).

use espalier_grammar::{Recognizer as GrammarRecognizer, TokenParser};

use crate::TokenSet;

/// SynCode's precomputed DFA mask store.
#[derive(Clone, Debug, Default)]
pub struct MaskStore {}

impl MaskStore {
    /// Fills `mask` for `state`; `false` when the store cannot answer here.
    pub fn fill<P: TokenParser>(&self, _state: &GrammarRecognizer<P>, _mask: &mut TokenSet) -> bool {
        false
    }
}
