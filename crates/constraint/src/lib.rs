//! espalier-constraint: the vocabulary, token sets, and the [`Constraint`] trait that
//! every decoding method (Python / Go grammars, fill-in-the-middle, the sLua tree of
//! parsers) implements, so one generation loop can drive them all; and the grammar
//! constraint with its three mask strategies.
//!
//! Main types:
//! - [`Vocab`] (the raw bytes of every model token, special tokens marked),
//!   [`TokenSet`] (a bitset over token ids), [`TokTrie`] (the vocabulary as a flat
//!   byte trie, llguidance's layout: plain data that knows no grammar);
//! - [`MaskKit`]: everything one language's masks derive from one vocabulary (the
//!   trie, lexeme-start summaries, the lexical layer's data, the empty text's mask,
//!   the SynCode store, the cost cache), built once and passed to every constraint;
//!   a language's lexical layer (Python's f-strings, in `python/`) takes part in
//!   exact masks through [`MaskLayer`]'s hooks;
//! - [`Constraint`] (what may come next), [`Inspection`] (what the visualizer draws);
//! - [`GrammarConstraint`]: a grammar from `espalier-grammar` (Python, Go) as a
//!   constraint, with a [`Strategy`] chosen at run time: `exact` (trie walk through
//!   the byte-level recognizer, sped up by per-node lexeme summaries: sound and
//!   complete, [`exact`], [`lexer_walk`], [`lexeme_starts`]), `syncode` (SynCode's
//!   accept sequences and DFA [`MaskStore`], cached to a file keyed by a hash of the
//!   grammar and vocabulary), `check` ([`Constraint::allows`] on one token, for
//!   adaptive rejection). EOS is allowed exactly when the text is a complete program.
//!   An exact mask is often one computed before (inside a lexeme, the last one): the
//!   constraint keeps the last 64 (`mask_memo`, reused where the state accepts the
//!   same continuations).
//! - [`finishing`]: the grammar constraint's finishing mask
//!   ([`Constraint::fill_finishing_mask`], [`GrammarConstraint::finishing_mask`]): the
//!   allowed tokens that strictly lower the remaining cost to a complete program, for
//!   a decoder that must wrap up; [`Finishing`] says what one mask found;
//!   [`CostCache`] keeps the costs its masks found, shared by a kit's constraints.
//!
//! No model code and no filesystem in the core (the store's cache path is passed in);
//! the crate compiles to `wasm32-unknown-unknown` as is.
//!
//! ```
//! use espalier_constraint::{Constraint, GrammarConstraint, MaskKit, Strategy, TokenSet, Vocab};
//! let tokens = ["<eos>", "x", " =", " 1", "\n", ")", "1\n"];
//! let vocab = Vocab::new(tokens.iter().map(|t| t.as_bytes().to_vec()).collect(), &[0], 0);
//! let kit = MaskKit::for_vocab(espalier_grammar::python().unwrap(), &vocab);
//! let mut c = GrammarConstraint::new(&kit, Strategy::Exact, "python-lr");
//! let mut mask = TokenSet::empty(vocab.len());
//! c.commit(b"x =").unwrap();
//! c.fill_mask(&vocab, &mut mask);
//! assert!(mask.contains(3) && mask.contains(6)); // " 1" and "1\n" may follow
//! assert!(!mask.contains(5) && !mask.contains(0)); // ")" may not, nor EOS yet
//! c.commit(b" 1\n").unwrap();
//! assert!(c.is_complete() && c.allows(b"x"));
//! ```

pub mod constraint;
pub mod cost_cache;
pub mod exact;
pub mod fim;
pub mod fim_bridge;
pub mod fim_needs;
pub mod fim_reentry;
pub mod finishing;
mod finishing_walk;
pub mod grammar_constraint;
mod grammar_state;
pub mod lexeme_starts;
mod lexer_state_classes;
pub mod lexer_walk;
pub mod mask_kit;
pub mod mask_layer;
mod mask_memo;
pub mod mask_store;
mod python;
pub mod recognizer;
mod remaining_cost;
pub mod rng;
mod start_mask;
pub mod strategy;
pub mod timing;
pub mod token_set;
#[cfg(test)]
mod toy;
pub mod trie;
pub mod vocab;
mod warm_up_sample;

pub use constraint::{Commit, Constraint, Inspection, Rejected, TreeNode};
pub use cost_cache::CostCache;
pub use fim::FimConstraint;
pub use finishing::Finishing;
pub use grammar_constraint::GrammarConstraint;
pub use mask_kit::MaskKit;
pub use mask_layer::{AnyLayer, MaskLayer};
pub use mask_store::{store_key, MaskStore, StoreError};
pub use recognizer::{ByteState, Recognizer, StackRecognizer};
pub use rng::Rng;
pub use strategy::{Strategy, UnknownStrategy};
pub use token_set::TokenSet;
pub use trie::TokTrie;
pub use vocab::Vocab;
