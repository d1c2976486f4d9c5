//! The Python 3.11 language: `grammars/python.lark` (written from the language
//! reference) with the Python lexer layer, compiled once and shared.

use std::sync::{Arc, OnceLock};

use crate::builtin::{Builtin, Compiled};
use crate::error::GrammarError;
use crate::language::Language;
use crate::layers::python::{FieldExprView, FieldView};
use crate::layers::LayerKind;
use crate::lr_parser::LrParser;
use crate::lr_table::TableKind;
use crate::recognizer::Recognizer;
use crate::token_parser::TokenParser;

/// The text of the Python 3.11 grammar.
pub const PYTHON_GRAMMAR: &str = include_str!("../grammars/python.lark");

/// Python: its grammar, the layout and f-string layer, the start rule.
const PYTHON: Builtin =
    Builtin { text: PYTHON_GRAMMAR, layer: LayerKind::Python, start: "file_input" };

/// Compiles the Python grammar with a chosen table construction (not cached).
pub fn python_with(table: TableKind) -> Result<Arc<Language>, GrammarError> {
    PYTHON.compile(table)
}

/// The Python 3.11 language (canonical LR(1) tables: exact acceptable sets), compiled
/// on first use and shared afterwards.
pub fn python() -> Result<Arc<Language>, GrammarError> {
    static CELL: OnceLock<Compiled> = OnceLock::new();
    PYTHON.shared(&CELL)
}

/// Python's views of a recognizer (the generic recognizer names no language).
impl<P: TokenParser> Recognizer<P> {
    /// Where the text stands inside an open f-string literal (for trie walks that
    /// decide in-lexeme bytes without this recognizer); [`FieldView::None`] for other
    /// languages.
    pub fn fstring_view(&self) -> FieldView<'_> {
        self.layer().fstring_view()
    }
}

impl Recognizer<LrParser> {
    /// A recognizer at the start of an f-string field's expression (fed `(`, the
    /// keyword `lambda` refused at its top).
    pub fn field_start(lang: &Arc<Language>) -> Self {
        Recognizer::nested(lang)
    }
}

impl<'a> FieldExprView<'a> {
    /// The nested recognizer: `(` and the expression so far; `None` right after a
    /// level-0 `{` (a fresh one: [`Recognizer::field_start`]).
    pub fn nested_recognizer(&self) -> Option<&'a Recognizer<LrParser>> {
        self.nested.and_then(Recognizer::of_reader)
    }
}
