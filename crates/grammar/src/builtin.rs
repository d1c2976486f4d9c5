//! [`Builtin`]: a language shipped with this crate (its grammar text, lexical layer and
//! start rule), compiled with a chosen table, or once per process and shared.

use std::sync::{Arc, OnceLock};

use crate::error::GrammarError;
use crate::language::{Language, LanguageOptions};
use crate::layers::LayerKind;
use crate::lr_table::TableKind;

/// A compiled language, or why its grammar does not compile.
pub(crate) type Compiled = Result<Arc<Language>, GrammarError>;

/// What a shipped language is made of.
pub(crate) struct Builtin {
    /// The grammar's text.
    pub text: &'static str,
    /// The lexical layer.
    pub layer: LayerKind,
    /// The start rule.
    pub start: &'static str,
}

impl Builtin {
    /// Compiles the language with a chosen table construction (not cached).
    pub(crate) fn compile(&self, table: TableKind) -> Compiled {
        let options = LanguageOptions { table, layer: self.layer, start: self.start.into() };
        Language::compile(self.text, &options)
    }

    /// The language with canonical LR(1) tables (exact acceptable sets), compiled on
    /// first use into `cell` and shared afterwards.
    pub(crate) fn shared(&self, cell: &'static OnceLock<Compiled>) -> Compiled {
        cell.get_or_init(|| self.compile(TableKind::Lr1)).clone()
    }
}
