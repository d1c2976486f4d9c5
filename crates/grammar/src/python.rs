//! The Python 3.11 language: `grammars/python.lark` (written from the language
//! reference) with the Python lexer layer, compiled once and shared.

use std::sync::{Arc, OnceLock};

use crate::error::GrammarError;
use crate::language::{Language, LanguageOptions, LayerKind};
use crate::lr_table::TableKind;

/// The text of the Python 3.11 grammar.
pub const PYTHON_GRAMMAR: &str = include_str!("../grammars/python.lark");

/// Compiles the Python grammar with a chosen table construction (not cached).
pub fn python_with(table: TableKind) -> Result<Arc<Language>, GrammarError> {
    Language::compile(
        PYTHON_GRAMMAR,
        &LanguageOptions { table, layer: LayerKind::Python, start: "file_input".into() },
    )
}

/// The Python 3.11 language (canonical LR(1) tables: exact acceptable sets), compiled
/// on first use and shared afterwards.
pub fn python() -> Result<Arc<Language>, GrammarError> {
    static CELL: OnceLock<Result<Arc<Language>, GrammarError>> = OnceLock::new();
    CELL.get_or_init(|| python_with(TableKind::Lr1)).clone()
}
