//! espalier-slua: sLua, a strongly typed Lua subset for game scripts, and the *tree
//! of parsers* that lets a language model write only type-correct, API-conforming
//! sLua.
//!
//! Main types: [`Api`] (the scripting API, loaded from JSON), [`Tree`] (the tree of
//! parsers: [`Tree::next_regex`], [`Tree::feed_text`], [`Tree::has_finished`]),
//! [`check`] (whole-program checker), [`ast::Script`] and [`translate::to_lua`]
//! (translation to Lua 5.4; the game that runs it is the crate `espalier-game`), [`walker`] (random walker for fuzzing) and [`SluaConstraint`] (the
//! [`espalier_constraint::Constraint`] the decoder drives: exact masks from one walk
//! of the vocabulary's byte trie, and [`SluaConstraint::fill_finishing_mask`], the
//! tokens that steer towards the end of the script when a token budget runs out;
//! see [`finishing`]).
//!
//! ```
//! use std::rc::Rc;
//! use espalier_slua::{Api, Env, Tree};
//! let env = Rc::new(Env::new(Api::dungeon(), vec![]));
//! let mut tree = Tree::new(env);
//! tree.feed_text("talent Zap;\nhook Do = function(user, target)\n  WithActorAt(target, function(a)\n    Damage(a, 3);\n  end);\nend;\n").unwrap();
//! assert!(tree.next_regex().unwrap().contains("hook"));
//! tree.feed_text("hook ").unwrap();
//! assert!(tree.next_regex().unwrap().contains("GetDescription"));
//! ```

pub mod alt;
pub mod api;
pub mod byte_set;
mod check_error;
mod child_key;
pub mod choice_key;
mod constraint_impl;
pub mod dfa;
mod finish_cache;
pub mod finishing;
mod finishing_order;
pub mod frame_stack;
pub mod lexeme;
pub mod node;
pub mod ops;
pub mod prompt;
pub mod regex_escape;
pub mod scope;
pub mod scope_trie;
pub mod scoped_names;
pub mod seg_auto;
pub mod seg_dfa;
pub mod slua_constraint;
mod state_masks;
pub mod text;
pub mod tree;
mod trie_walk;
pub mod types;
pub mod viability;
pub mod walker;

pub use api::Api;
pub use scope::Env;
pub use slua_constraint::SluaConstraint;
pub use tree::Tree;
pub mod ast;
pub mod check;
pub mod translate;

pub use check::{check, check_limited, CheckError, Limits};
