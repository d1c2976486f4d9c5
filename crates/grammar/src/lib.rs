//! espalier-grammar: grammars as data, compiled into what constrained decoding needs.
//!
//! - **Grammar format** ([`format`], [`Grammar`]): Lark-style EBNF text (rules,
//!   terminals as regexes or literals, `?`, `*`, `+`, `[..]`, groups, priorities,
//!   `%ignore`, `%declare`), expanded into BNF productions. Errors carry line/column.
//! - **Lexer** ([`LexerDfa`]): every terminal's regex compiled together with
//!   `regex-automata`, flattened into a dense table with small state ids:
//!   [`LexerDfa::start`], [`LexerDfa::next`], [`LexerDfa::is_dead`],
//!   [`LexerDfa::matches`] / [`LexerDfa::winners`] (terminals matching the text so far,
//!   all of them / after priorities) and [`LexerDfa::reachable`]. This is what a
//!   SynCode mask store is built from.
//! - **LR tables** ([`LrTable`], [`TableKind`]): canonical LR(1), Pager-merged LR(1),
//!   LALR(1); conflicts are reported with rule, lookahead and both actions; size and
//!   build time in [`TableStats`].
//! - **Parsers** behind one trait, [`TokenParser`]: [`LrParser`] (incremental, a small
//!   set of LR stacks for soft keywords) and [`EarleyParser`].
//! - **Languages** ([`Language`]): grammar + DFA + table + lexer layer ([`LayerKind`]:
//!   plain, or Python's NEWLINE/INDENT/DEDENT with implicit line joining).
//!   [`python()`] gives the Python 3.11 language (`grammars/python.lark`);
//!   [`go()`] the Go 1.19 language (`grammars/go.lark`, automatic semicolons in
//!   [`layers::go::semicolons`]).
//! - **Byte-level recognizer** ([`Recognizer`]): push bytes, get an error the moment
//!   the text stops being a prefix of a valid program; [`Recognizer::is_complete`] for
//!   EOS; [`Recognizer::remainder`] and [`Recognizer::accept_sequences`] (A0 / A1) for
//!   SynCode-style masks; `clone` / `clone_from` are cheap and allocation-free when
//!   reusing a slot. For mask computations: [`Recognizer::try_push_byte`] (a bool,
//!   no error value built), [`Recognizer::end_lexeme`], [`Recognizer::at_line_start`],
//!   [`Recognizer::same_continuations`] (to reuse a mask computed before);
//!   for the visualizer: [`Recognizer::stack`] (LR states and the symbols they stand
//!   for, from [`LrTable::accessing_symbol`]). Exactness: `push_bytes(s)` is `Ok`
//!   iff `s` is a prefix of a valid program, with one known over-approximation: the
//!   replacement fields of a Python f-string are checked (CPython 3.11 rules,
//!   [`fstring`]) when its closing quote arrives, not byte by byte.
//! - **Whole-text lexing** ([`lex`]): maximal munch without the parser, for tools.
//! - **Completion costs** ([`CompletionCosts`], via [`Language::completion_costs`]):
//!   the least bytes an LR stack still needs to become a complete program (kernel items
//!   [`LrTable::kernel`], per-symbol costs, a Dijkstra over virtual stacks), built on
//!   [`LexemePaths`] (shortest ways to finish a lexeme in the DFA) and the layout view
//!   [`Indentation`]; what the finishing mask of `espalier-constraint` steers by.
//!
//! Costs (Python, canonical LR(1): 6283 states, built in ~0.6 s; `python()` caches
//! it): a byte inside a lexeme is one DFA lookup plus a bitset test; a finished lexeme
//! is one LR step plus a table lookup for the next acceptable set. Measure with
//! `cargo run --release -p espalier-grammar --example parse_bench`.
//!
//! ```
//! use espalier_grammar::{Language, LanguageOptions};
//! let lang = Language::compile(
//!     "start: NAME \"=\" INT\nNAME: /[a-z]+/\nINT: /[0-9]+/\n%ignore \" \"\n",
//!     &LanguageOptions::default(),
//! ).unwrap();
//! let mut r = lang.recognizer();
//! r.push_bytes(b"x = 4").unwrap();
//! assert!(r.is_complete());
//! assert!(r.clone().push_bytes(b"=").is_err());
//! // The lexer DFA, as a mask store would step it:
//! let dfa = &lang.dfa;
//! let s = dfa.next(dfa.start(), b'4');
//! assert_eq!(dfa.winners(s), &[lang.grammar.terminal("INT").unwrap()]);
//! ```
//!
//! Python:
//!
//! ```
//! let py = espalier_grammar::python().unwrap();
//! let mut r = py.recognizer();
//! r.push_bytes(b"x = y\n").unwrap();
//! assert!(r.is_complete());
//! ```
//!
//! Go (a newline after `)` inserts the semicolon):
//!
//! ```
//! let go = espalier_grammar::go().unwrap();
//! let mut r = go.recognizer();
//! r.push_bytes(b"package p\n\nfunc f() int { return 1 }\n").unwrap();
//! assert!(r.is_complete());
//! assert!(go.recognizer().push_bytes(b"package p\nfunc f()\n{").is_err());
//! ```

mod builtin;
pub mod completion_cost;
pub mod cursor_layout;
pub mod earley;
mod earley_core;
pub mod error;
pub mod format;
pub mod go;
pub mod grammar;
pub mod ids;
pub mod indentation;
pub mod language;
pub mod layers;
pub mod lexeme_paths;
pub mod lexer;
pub mod lexer_dfa;
mod lr_construction;
pub mod lr_parser;
pub mod lr_table;
pub mod python;
pub mod quotient;
pub mod recognizer;
mod small_copy;
mod stack_cost_memo;
pub mod suffix_earley;
pub mod termset;
pub mod token_parser;

pub use completion_cost::CompletionCosts;
pub use earley::{EarleyGrammar, EarleyParser};
pub use error::{Conflict, GrammarError, ParseError, Pos};
pub use go::{go, go_with, GO_GRAMMAR};
pub use grammar::{
    Grammar, NonterminalId, Production, ProductionId, Symbol, Terminal, TerminalId, END,
};
pub use ids::LrState;
pub use indentation::Indentation;
pub use language::{Language, LanguageOptions};
pub use layers::go::GoTerminals;
pub use layers::python::{fstring, FieldExprView, FieldView, PythonTerminals};
pub use layers::{Layer, LayerKind, LayerState, LayoutTerminals};
pub use lexeme_paths::LexemePaths;
pub use lexer::{lex, Lexeme};
pub use lexer_dfa::{DfaState, LexerDfa};
pub use lr_parser::LrParser;
pub use lr_table::{Action, LrTable, TableKind, TableStats, AUGMENTED};
pub use python::{python, python_with, PYTHON_GRAMMAR};
pub use quotient::{FimError, Outcome, Part, SuffixQuotient};
pub use recognizer::{AcceptSequences, Continuations, Recognizer, Remainder};
pub use stack_cost_memo::StackCostMemo;
pub use termset::TermSet;
pub use token_parser::TokenParser;

/// The recognizer the constraint crate uses for Python and other LR languages.
pub type LrRecognizer = Recognizer<LrParser>;
/// The same lexer and layer driving the Earley parser.
pub type EarleyRecognizer = Recognizer<EarleyParser>;
