//! Python's lexical layer in exact masks: f-strings, whose replacement fields the
//! recognizer checks byte by byte where the lexer DFA sees only string bytes.
//!
//! - [`fstring_layer`]: [`fstring_layer::FStringLayer`], the [`crate::MaskLayer`] the
//!   walk calls (masks inside fields, re-checks after a walk), and
//!   [`fstring_layer::FStringData`], what it reads per language and vocabulary;
//! - [`field_tokens`]: the tokens a field may decide apart from its nested
//!   recognizer, and where in a field the text stands;
//! - [`quote_ends`]: the tokens ending in a quote, re-checked where an f-string may
//!   close;
//! - [`field_start_mask`]: the nested masks at a fresh field, computed once.
//!
//! The bytes that close an open f-string (the finishing mask's remaining cost) are
//! the grammar layer's (`espalier_grammar::Layer::closers`).
//!
//! Indentation and layout need nothing here: the recognizer's layer decides them on
//! the full states the walk keeps at lexeme boundaries.

pub(crate) mod field_start_mask;
pub(crate) mod field_tokens;
pub(crate) mod fstring_layer;
pub(crate) mod quote_ends;
