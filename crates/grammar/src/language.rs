//! A compiled language: grammar, lexer DFA, LR table and the lexer layer between the
//! DFA and the parser (plain, Python's indentation and line joining, or Go's automatic semicolons).

use std::sync::Arc;

use crate::completion_cost::{CompletionCosts, Layout};
use crate::earley::EarleyGrammar;
use crate::error::GrammarError;
use crate::grammar::{Grammar, TerminalId};
use crate::layers::lexical_layer::LexicalLayer;
use crate::layers::{Layer, LayerKind};
use crate::lexer_dfa::LexerDfa;
use crate::lr_table::{LrTable, TableKind};
use crate::termset::TermSet;

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
    /// The lexical layer (`crate::layers`): its terminals, its hooks.
    pub layer: Layer,
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
                ignored.insert(TerminalId::from_index(i));
            }
        }
        let layer = Layer::build(options.layer, &grammar)?;
        let table = Arc::new(table);
        let layout = Layout::of(layer.layout());
        let completion = CompletionCosts::new(&grammar, &dfa, &table, layout);
        let grammar = Arc::new(grammar);
        Ok(Arc::new(Language {
            earley: EarleyGrammar::new(grammar.clone()),
            grammar,
            dfa: Arc::new(dfa),
            table,
            layer,
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
        self.layer.is_layout_newline(t)
    }

    /// Python's layer terminals, for a Python language.
    pub fn python(&self) -> Option<&crate::layers::python::PythonTerminals> {
        self.layer.python()
    }

    /// Go's layer terminals, for a Go language.
    pub fn go(&self) -> Option<&crate::layers::go::GoTerminals> {
        self.layer.go()
    }

    /// Name of a terminal.
    pub fn terminal_name(&self, t: TerminalId) -> &str {
        &self.grammar.terminals[t.index()].name
    }
}
