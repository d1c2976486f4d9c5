//! Typed errors of the grammar crate: each carries the position or name a user needs
//! to fix the problem.

use std::fmt;

/// A position in a grammar file (1-based line and column, in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// One LR conflict: in `state`, on `lookahead`, two actions are possible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The LR state where the conflict occurs.
    pub state: u32,
    /// Name of the lookahead terminal.
    pub lookahead: String,
    /// The rule(s) involved, e.g. `expr`.
    pub rule: String,
    /// First action, e.g. `shift (expr: expr · "+" term)`.
    pub first: String,
    /// Second action, e.g. `reduce expr: term`.
    pub second: String,
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "conflict in rule `{}` on lookahead {} (state {}): {} vs {}",
            self.rule, self.lookahead, self.state, self.first, self.second
        )
    }
}

/// Why a grammar could not be read or compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GrammarError {
    /// The grammar text is malformed at `pos`.
    Syntax {
        /// Where the problem is.
        pos: Pos,
        /// What is wrong there.
        message: String,
    },
    /// A rule or terminal is referenced but never defined.
    Undefined {
        /// Where it is referenced.
        pos: Pos,
        /// The missing name.
        name: String,
    },
    /// A name is defined twice.
    Duplicate {
        /// Where the second definition is.
        pos: Pos,
        /// The name.
        name: String,
    },
    /// A terminal's regex does not compile, or matches the empty string.
    BadTerminal {
        /// The terminal.
        name: String,
        /// The regex engine's message.
        message: String,
    },
    /// The grammar has no `start` rule (or the requested start rule is missing).
    NoStart(String),
    /// The LR table has conflicts: the grammar is not LR(1) / LALR(1) as requested.
    Conflicts(Vec<Conflict>),
    /// The lexer DFA could not be built (too large, unsupported regex feature).
    Lexer(String),
    /// The grammar has more terminals (named, literal and declared, plus `$END`)
    /// than a [`crate::TermSet`] holds.
    TooManyTerminals {
        /// How many it has.
        count: usize,
        /// The most supported.
        max: usize,
    },
}

impl fmt::Display for GrammarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GrammarError::Syntax { pos, message } => write!(f, "grammar {pos}: {message}"),
            GrammarError::Undefined { pos, name } => {
                write!(f, "grammar {pos}: `{name}` is used but never defined")
            }
            GrammarError::Duplicate { pos, name } => {
                write!(f, "grammar {pos}: `{name}` is defined twice")
            }
            GrammarError::BadTerminal { name, message } => {
                write!(f, "terminal {name}: {message}")
            }
            GrammarError::NoStart(s) => write!(f, "grammar has no start rule `{s}`"),
            GrammarError::Conflicts(cs) => {
                write!(f, "{} LR conflict(s):", cs.len())?;
                for c in cs.iter().take(20) {
                    write!(f, "\n  {c}")?;
                }
                if cs.len() > 20 {
                    write!(f, "\n  ... and {} more", cs.len() - 20)?;
                }
                Ok(())
            }
            GrammarError::Lexer(m) => write!(f, "lexer: {m}"),
            GrammarError::TooManyTerminals { count, max } => write!(
                f,
                "the grammar has {count} terminals (named, literal and declared, with $END); at most {max} are supported"
            ),
        }
    }
}

impl std::error::Error for GrammarError {}

/// Why a text was rejected by a recognizer: the byte offset and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset (in the whole text fed so far) where the text stopped being viable.
    pub offset: usize,
    /// Names of terminals that would have been acceptable there (may be empty).
    pub expected: Vec<String>,
    /// Short description, e.g. `unexpected NAME` or `unindent does not match`.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.message)?;
        if !self.expected.is_empty() {
            write!(f, "; expected one of {}", self.expected.join(" "))?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseError {}
