//! Go's automatic semicolons, as a lexer layer between the DFA and the parser.
//!
//! The rule (Go specification, "Semicolons"): when the input is broken into tokens,
//! a semicolon is inserted after a line's final token if that token is an
//! identifier, a basic literal (integer, floating-point, imaginary, rune, string),
//! one of the keywords `break` `continue` `fallthrough` `return`, or one of
//! `++` `--` `)` `]` `}`. go/scanner also inserts one at the end of the input after
//! such a token, and treats a general comment `/* ... */` containing a newline as a
//! newline; a line comment ends at the newline, which then triggers the rule.
//! The other half of the rule ("a semicolon may be omitted before a closing `)` or
//! `}`") is in the grammar (`grammars/go.lark`).
//!
//! The layer keeps one bit, "the last significant token triggers a semicolon"; a
//! newline lexeme (NL, or a block comment with a newline) then feeds ";" to the
//! parser and clears it, and is ignored otherwise. For exactness the newline
//! terminals are acceptable only when the ";" they would make is, and so is a line
//! comment: it ends at a newline or at the end of the input, either of which inserts
//! the pending ";" (after `x[0]` in a type, `// ...` is a dead end the exact mask
//! used to allow: the HumanEval-X wrap-up could not finish from inside it).

use crate::error::GrammarError;
use crate::grammar::{Grammar, TerminalId};
use crate::termset::TermSet;

/// The terminal names that end a line with a semicolon.
pub const TRIGGERS: &[&str] = &[
    "NAME",
    "DNAME",
    "INT",
    "FLOAT",
    "IMAG",
    "RUNE",
    "STRING",
    "IMPORT_PATH",
    "\"break\"",
    "\"continue\"",
    "\"fallthrough\"",
    "\"return\"",
    "\"++\"",
    "\"--\"",
    "\")\"",
    "\"]\"",
    "\"}\"",
];

/// Whether the unfinished lexeme `lexeme` at the end of the input is an
/// unterminated `/* ...` comment (`finished` is false when the lexer's state accepts
/// nothing). go/scanner commits to a comment at `/*` and reports it unterminated;
/// our maximal-munch lexer would otherwise back off to `/` and `*` and re-read the
/// rest as code.
pub fn unterminated_comment(lexeme: &[u8], unfinished: bool) -> bool {
    unfinished && lexeme.starts_with(b"/*")
}

/// Terminal ids the Go layer needs.
#[derive(Clone, Debug)]
pub struct GoTerminals {
    /// The lexed newline.
    pub nl: TerminalId,
    /// A block comment containing a newline (acts as a newline).
    pub block_nl: TerminalId,
    /// A line comment (always followed by a newline or the end of the input).
    pub line_comment: TerminalId,
    /// The parser's ";" (explicit or inserted).
    pub semi: TerminalId,
    /// Tokens after which a newline inserts ";".
    pub triggers: TermSet,
}

impl GoTerminals {
    /// Looks the layer's terminals up in `grammar`; an error names a missing one.
    pub fn from_grammar(grammar: &Grammar) -> Result<GoTerminals, GrammarError> {
        let need = |n: &str| {
            grammar.terminal(n).ok_or_else(|| {
                GrammarError::NoStart(format!("terminal {n} (required by the Go layer)"))
            })
        };
        let mut triggers = TermSet::new(grammar.num_terminals());
        for n in TRIGGERS {
            triggers.insert(need(n)?);
        }
        Ok(GoTerminals {
            nl: need("NL")?,
            block_nl: need("BLOCK_COMMENT_NL")?,
            line_comment: need("LINE_COMMENT")?,
            semi: need("\";\"")?,
            triggers,
        })
    }

    /// Whether a lexeme of terminal `t` acts as a newline.
    #[inline]
    pub fn is_newline(&self, t: TerminalId) -> bool {
        t == self.nl || t == self.block_nl
    }

    /// Whether a newline after a token of terminal `t` inserts a semicolon.
    #[inline]
    pub fn triggers(&self, t: TerminalId) -> bool {
        self.triggers.contains(t)
    }

    /// Narrows the acceptable set (parser terminals plus ignored ones): with a
    /// semicolon pending, a newline (or a line comment, which a newline or the end
    /// of the input follows) is acceptable only if ";" is.
    #[inline]
    pub fn restrict(&self, pending: bool, acceptable: &mut TermSet) {
        if pending && !acceptable.contains(self.semi) {
            acceptable.remove(self.nl);
            acceptable.remove(self.block_nl);
            acceptable.remove(self.line_comment);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::Grammar;

    #[test]
    fn missing_layer_terminals_are_named() {
        let g = Grammar::parse("start: NAME\nNAME: /[a-z]+/\n").unwrap();
        let e = GoTerminals::from_grammar(&g).unwrap_err().to_string();
        assert!(e.contains("required by the Go layer"), "{e}");
    }

    #[test]
    fn go_terminals_and_unterminated_comments() {
        let go = crate::go().unwrap();
        let g = go.go().unwrap();
        let t = |n: &str| go.grammar.terminal(n).unwrap();
        assert!(
            g.is_newline(t("NL"))
                && g.is_newline(t("BLOCK_COMMENT_NL"))
                && !g.is_newline(t("BLOCK_COMMENT"))
        );
        for n in ["NAME", "DNAME", "IMAG", "RUNE", "\")\"", "\"}\"", "\"return\"", "\"++\""] {
            assert!(g.triggers(t(n)), "{n}");
        }
        for n in ["\"(\"", "\"{\"", "\",\"", "\"+\"", "\"func\"", "\"if\""] {
            assert!(!g.triggers(t(n)), "{n}");
        }
        assert!(unterminated_comment(b"/* x", true));
        assert!(!unterminated_comment(b"/* x */", false));
        assert!(!unterminated_comment(b"\"abc", true));
    }
}
