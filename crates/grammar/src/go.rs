//! The Go 1.19 language: `grammars/go.lark` (written from the Go specification,
//! generics included, and checked against `gofmt -e`) with the automatic-semicolon
//! layer ([`crate::layers::go::semicolons`]), compiled once and shared.
//!
//! Known over-approximations against `gofmt -e` (texts we accept and gofmt
//! refuses), each rare in real code and listed in the grammar file's header:
//! type switches and expression switches share their case clauses
//! (`switch x.(type) { case 1: }`), `package _`, invalid import paths, a label
//! right before `case`, bad `//line` directives. Known refusals of texts gofmt
//! accepts: selectors and conversions applied to a bare `struct{}` /
//! `interface{}` / `func()` type (`interface{ M() }.M`), a byte order mark at the
//! start of a file.

use std::sync::{Arc, OnceLock};

use crate::builtin::{Builtin, Compiled};
use crate::error::GrammarError;
use crate::language::Language;
use crate::layers::LayerKind;
use crate::lr_table::TableKind;

/// The text of the Go grammar.
pub const GO_GRAMMAR: &str = include_str!("../grammars/go.lark");

/// Go: its grammar, the semicolon layer, the start rule.
const GO: Builtin = Builtin { text: GO_GRAMMAR, layer: LayerKind::Go, start: "start" };

/// Compiles the Go grammar with a chosen table construction (not cached).
pub fn go_with(table: TableKind) -> Result<Arc<Language>, GrammarError> {
    GO.compile(table)
}

/// The Go 1.19 language (canonical LR(1) tables: exact acceptable sets), compiled
/// on first use and shared afterwards.
pub fn go() -> Result<Arc<Language>, GrammarError> {
    static CELL: OnceLock<Compiled> = OnceLock::new();
    GO.shared(&CELL)
}
