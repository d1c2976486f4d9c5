//! A compiled language: grammar, lexer DFA, LR table and the lexer layer between the
//! DFA and the parser (plain, Python's indentation and line joining, or Go's automatic semicolons).

use std::sync::Arc;

use crate::completion_cost::{CompletionCosts, Layout};
use crate::earley::EarleyGrammar;
use crate::error::GrammarError;
use crate::grammar::{Grammar, TerminalId};
use crate::lexer_dfa::LexerDfa;
use crate::lr_table::{LrTable, TableKind};
use crate::semicolons::GoTerminals;
use crate::termset::TermSet;

/// Which lexer layer sits between the DFA and the parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayerKind {
    /// Lexemes go straight to the parser; `%ignore`d terminals are dropped.
    Plain,
    /// Python: the grammar must `%ignore` a terminal `NL` (newline) and `%declare`
    /// `NEWLINE INDENT DEDENT`. The layer turns NL into NEWLINE outside brackets and
    /// on non-blank lines, tracks the indentation stack, and makes INDENT / DEDENT.
    Python,
    /// Go: the grammar must `%ignore` `NL` and `BLOCK_COMMENT_NL`; the layer turns
    /// them into ";" after the tokens of [`crate::semicolons::TRIGGERS`].
    Go,
}

/// Terminal ids the Python layer needs.
#[derive(Clone, Debug)]
pub struct PythonTerminals {
    /// The lexed newline.
    pub nl: TerminalId,
    /// Parser-level NEWLINE.
    pub newline: TerminalId,
    /// INDENT.
    pub indent: TerminalId,
    /// DEDENT.
    pub dedent: TerminalId,
    /// `(`, `[`, `{`.
    pub open: [TerminalId; 3],
    /// `)`, `]`, `}`.
    pub close: [TerminalId; 3],
    /// STRING (its f-strings get their replacement fields checked), if defined.
    pub string: Option<TerminalId>,
}

/// How to compile a language.
#[derive(Clone, Debug)]
pub struct LanguageOptions {
    /// LR construction for the table.
    pub table: TableKind,
    /// Lexer layer.
    pub layer: LayerKind,
    /// Start rule.
    pub start: String,
}

impl Default for LanguageOptions {
    fn default() -> Self {
        LanguageOptions { table: TableKind::Pager, layer: LayerKind::Plain, start: "start".into() }
    }
}

/// Everything needed to recognize a language, shared (behind `Arc`) by recognizers.
#[derive(Debug)]
pub struct Language {
    /// The grammar (terminals, BNF productions).
    pub grammar: Arc<Grammar>,
    /// The lexer automaton over the grammar's lexed terminals.
    pub dfa: Arc<LexerDfa>,
    /// The LR table.
    pub table: Arc<LrTable>,
    /// Earley view of the grammar.
    pub earley: Arc<EarleyGrammar>,
    /// The layer kind.
    pub layer: LayerKind,
    /// Python layer terminal ids (when `layer == Python`).
    pub python: Option<PythonTerminals>,
    /// Go layer terminal ids (when `layer == Go`).
    pub go: Option<GoTerminals>,
    /// `%ignore`d terminals.
    pub ignored: TermSet,
    /// Completion costs ([`Language::completion_costs`]).
    completion: CompletionCosts,
}

impl Language {
    /// Compiles grammar text into a language.
    pub fn compile(src: &str, options: &LanguageOptions) -> Result<Arc<Language>, GrammarError> {
        let grammar = Grammar::parse_with_start(src, &options.start)?;
        Self::from_grammar(grammar, options)
    }

    /// Compiles an already parsed grammar.
    pub fn from_grammar(
        grammar: Grammar,
        options: &LanguageOptions,
    ) -> Result<Arc<Language>, GrammarError> {
        let dfa = LexerDfa::build(&grammar)?;
        let table = LrTable::build(&grammar, options.table)?;
        let mut ignored = TermSet::new(grammar.num_terminals());
        for (i, t) in grammar.terminals.iter().enumerate() {
            if t.ignored {
                ignored.insert(i as TerminalId);
            }
        }
        let go = if options.layer == LayerKind::Go {
            Some(GoTerminals::from_grammar(&grammar)?)
        } else {
            None
        };
        let python = match options.layer {
            LayerKind::Plain | LayerKind::Go => None,
            LayerKind::Python => {
                let need = |n: &str| {
                    grammar.terminal(n).ok_or_else(|| {
                        GrammarError::NoStart(format!(
                            "terminal {n} (required by the Python layer)"
                        ))
                    })
                };
                Some(PythonTerminals {
                    nl: need("NL")?,
                    newline: need("NEWLINE")?,
                    indent: need("INDENT")?,
                    dedent: need("DEDENT")?,
                    open: [need("\"(\"")?, need("\"[\"")?, need("\"{\"")?],
                    close: [need("\")\"")?, need("\"]\"")?, need("\"}\"")?],
                    string: grammar.terminal("STRING"),
                })
            }
        };
        let table = Arc::new(table);
        let layout = python.as_ref().map_or(Layout::default(), |p| Layout {
            newline: Some(p.newline),
            indent: Some(p.indent),
            dedent: Some(p.dedent),
        });
        let completion = CompletionCosts::new(&grammar, &dfa, &table, layout);
        let grammar = Arc::new(grammar);
        Ok(Arc::new(Language {
            earley: EarleyGrammar::new(grammar.clone()),
            grammar,
            dfa: Arc::new(dfa),
            table,
            layer: options.layer,
            python,
            go,
            ignored,
            completion,
        }))
    }

    /// The completion costs of this language (how many bytes a parser stack still
    /// needs to become a complete program; see [`CompletionCosts`]), computed when the
    /// language was compiled.
    pub fn completion_costs(&self) -> &CompletionCosts {
        &self.completion
    }

    /// Whether `t` is an ignored terminal that still acts in the lexer layer: ending
    /// such a lexeme may move the parser (Python's NL, Go's NL and block comments
    /// containing a newline), so it cannot be skipped as free.
    pub fn is_layout_newline(&self, t: TerminalId) -> bool {
        self.python.as_ref().is_some_and(|p| p.nl == t)
            || self.go.as_ref().is_some_and(|g| g.is_newline(t))
    }

    /// Name of a terminal.
    pub fn terminal_name(&self, t: TerminalId) -> &str {
        &self.grammar.terminals[t as usize].name
    }
}
