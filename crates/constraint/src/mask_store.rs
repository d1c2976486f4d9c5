//! The `syncode` strategy's DFA mask store (work in progress: the grammar crate's
//! lexer API is not final yet).

use crate::{ByteState, TokenSet};

/// A recognizer that can report SynCode's accept sequences and remainder.
pub trait SyncodeState: ByteState {}

/// SynCode's precomputed DFA mask store.
#[derive(Clone, Debug, Default)]
pub struct MaskStore {}

impl MaskStore {
    /// Fills `mask` for `state`; `false` when the store cannot answer here.
    pub fn fill<S: SyncodeState>(&self, _state: &S, _mask: &mut TokenSet) -> bool {
        false
    }
}
