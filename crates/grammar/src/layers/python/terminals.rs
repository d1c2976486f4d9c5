//! [`PythonTerminals`]: the terminal ids Python's layer works with, looked up in the
//! grammar once.

use crate::error::GrammarError;
use crate::grammar::{Grammar, TerminalId};
use crate::layers::LayoutTerminals;

/// Terminal ids the Python layer needs.
#[derive(Clone, Debug)]
pub struct PythonTerminals {
    /// The indented-line layout's terminals (newlines, INDENT / DEDENT, brackets).
    pub layout: LayoutTerminals,
    /// STRING (its f-strings get their replacement fields checked), if defined.
    pub string: Option<TerminalId>,
}

impl PythonTerminals {
    /// Looks the layer's terminals up in `grammar`; an error names a missing one.
    pub fn from_grammar(grammar: &Grammar) -> Result<PythonTerminals, GrammarError> {
        let need = |n: &str| {
            grammar.terminal(n).ok_or_else(|| {
                GrammarError::NoStart(format!("terminal {n} (required by the Python layer)"))
            })
        };
        let layout = LayoutTerminals {
            nl: need("NL")?,
            newline: need("NEWLINE")?,
            indent: need("INDENT")?,
            dedent: need("DEDENT")?,
            open: [need("\"(\"")?, need("\"[\"")?, need("\"{\"")?],
            close: [need("\")\"")?, need("\"]\"")?, need("\"}\"")?],
        };
        Ok(PythonTerminals { layout, string: grammar.terminal("STRING") })
    }

    /// The layout's terminals, as tools that name no language see them.
    #[inline]
    pub fn layout(&self) -> LayoutTerminals {
        self.layout
    }
}
