//! The `exact` strategy: the vocabulary trie walked through the grammar's byte-level
//! recognizer, so a token is allowed iff every byte keeps the text a viable prefix
//! (sound and complete by construction; the recognizer handles lexemes spanning
//! tokens, whitespace, comments and indentation inside tokens).
//!
//! The walk goes through [`LexWalker`]: lexer-DFA steps inside lexemes, the full
//! recognizer (cloned into reused slots) only where a lexeme starts or ends; a refused
//! byte skips its whole trie subtree.

use espalier_grammar::{Recognizer as GrammarRecognizer, TokenParser};

use crate::lexer_walk::LexWalker;
use crate::{TokTrie, TokenSet};

/// Scratch state for exact masks, reused across steps.
#[derive(Clone, Debug)]
pub struct ExactWalker<P: TokenParser> {
    walker: LexWalker<P>,
    /// Trie nodes offered by the last walk.
    pub last_nodes: usize,
    /// Full recognizer steps of the last walk (the expensive part).
    pub last_heavy: usize,
}

impl<P: TokenParser> ExactWalker<P> {
    /// A walker for recognizers like `start`.
    pub fn new(start: &GrammarRecognizer<P>) -> Self {
        Self { walker: LexWalker::new(start), last_nodes: 0, last_heavy: 0 }
    }

    /// Sets `mask` to exactly the non-special tokens whose bytes keep `state` viable.
    pub fn fill(&mut self, state: &GrammarRecognizer<P>, trie: &TokTrie, mask: &mut TokenSet) {
        mask.clear();
        self.walker.reset(state);
        self.last_nodes = trie.walk(&mut self.walker, mask);
        self.last_heavy = self.walker.heavy_steps;
        trie.add_duplicates(mask);
        for (id, bytes) in trie.long_tokens() {
            let mut s = state.clone();
            if s.push_bytes(bytes).is_ok() {
                mask.insert(*id as usize);
            }
        }
    }
}
