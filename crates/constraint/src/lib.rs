//! espalier-constraint: the vocabulary, token sets, and the [`Constraint`] trait that
//! every decoding method (Python / Go grammars, fill-in-the-middle, the sLua tree of
//! parsers) implements, so one generation loop can drive them all.
//!
//! Main types: [`Vocab`] (the raw bytes of every model token), [`TokenSet`] (a bitset
//! over token ids), [`Constraint`] (what may come next), [`Inspection`] (what the
//! visualizer draws).
//!
//! ```
//! use espalier_constraint::{TokenSet, Vocab};
//! let vocab = Vocab::new(vec![b"a".to_vec(), b"<eos>".to_vec()], &[1], 1);
//! let mut mask = TokenSet::empty(vocab.len());
//! mask.insert(0);
//! assert!(mask.contains(0) && !mask.contains(1));
//! ```

pub mod constraint;
pub mod exact;
pub mod grammar_constraint;
mod grammar_state;
pub mod lexeme_starts;
pub mod lexer_walk;
pub mod mask_store;
pub mod recognizer;
pub mod strategy;
pub mod token_set;
pub mod trie;
pub mod vocab;

pub use constraint::{Commit, Constraint, Inspection, Rejected, TreeNode};
pub use recognizer::{ByteState, Recognizer, StackRecognizer};
pub use grammar_constraint::GrammarConstraint;
pub use mask_store::{store_key, MaskStore, StoreError};
pub use strategy::{Strategy, UnknownStrategy};
pub use token_set::TokenSet;
pub use trie::TokTrie;
pub use vocab::Vocab;
