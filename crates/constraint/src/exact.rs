//! The `exact` strategy: the vocabulary trie walked through the byte-level
//! recognizer, so a token is allowed iff every byte keeps the text a viable prefix
//! (sound and complete by construction; the recognizer handles lexemes spanning
//! tokens, whitespace, comments and indentation inside tokens).
//!
//! The walk clones the recognizer once per trie node it enters (into reused slots, see
//! [`crate::StackRecognizer`]) and skips the subtree of every refused byte.

use crate::{ByteState, StackRecognizer, TokTrie, TokenSet};

/// Scratch state for exact masks: the recognizer stack, reused across steps.
#[derive(Clone, Debug)]
pub struct ExactWalker<S> {
    stack: StackRecognizer<S>,
    /// Trie nodes offered to the recognizer by the last walk (for benchmarks).
    pub last_nodes: usize,
}

impl<S: ByteState> ExactWalker<S> {
    /// A walker for states like `start` over `trie`.
    pub fn new(start: &S, _trie: &TokTrie) -> Self {
        Self { stack: StackRecognizer::new(start.clone()), last_nodes: 0 }
    }

    /// Sets `mask` to exactly the non-special tokens whose bytes keep `state` viable.
    pub fn fill(&mut self, state: &S, trie: &TokTrie, mask: &mut TokenSet) {
        mask.clear();
        self.stack.reset(state);
        self.last_nodes = trie.walk(&mut self.stack, mask);
        trie.add_duplicates(mask);
        for (id, bytes) in trie.long_tokens() {
            let mut s = state.clone();
            if bytes.iter().all(|&b| s.push_byte(b)) {
                mask.insert(*id as usize);
            }
        }
    }
}
