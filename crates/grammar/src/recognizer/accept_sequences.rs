//! SynCode's view of the recognizer: the remainder (the unfinished last lexeme) and
//! the accept sequences A0 / A1 over lexer terminals, for the SynCode store's masks.

use crate::grammar::TerminalId;
use crate::lexer_dfa::DfaState;
use crate::termset::TermSet;
use crate::token_parser::TokenParser;

use super::Recognizer;

/// The unfinished last lexeme (SynCode's remainder).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Remainder {
    /// Lexer DFA state after the remainder's bytes ([`crate::lexer_dfa::LexerDfa::START`] if empty).
    pub dfa_state: DfaState,
    /// Its length in bytes: the remainder is the last `len` bytes of the text.
    pub len: usize,
}

/// SynCode's accept sequences, over lexer terminal ids.
#[derive(Clone, Debug)]
pub struct AcceptSequences {
    /// A0: terminals the next lexeme (the one the remainder starts) may be. Includes
    /// `%ignore`d terminals and, for Python, NL when a newline is acceptable.
    pub a0: TermSet,
    /// A1: when the remainder is already a complete lexeme of type τ (a winner of its
    /// DFA state), the pair (τ, terminals acceptable after it).
    pub a1: Vec<(TerminalId, TermSet)>,
}

impl<P: TokenParser> Recognizer<P> {
    /// The unfinished last lexeme.
    pub fn remainder(&self) -> Remainder {
        Remainder { dfa_state: self.state, len: self.lex_len as usize }
    }

    /// SynCode's accept sequences A0 and A1 (see [`AcceptSequences`]).
    pub fn accept_sequences(&self) -> AcceptSequences {
        let a0 = self.acceptable;
        let mut a1 = Vec::new();
        if self.lex_len > 0 {
            for &t in self.lang.dfa.winners(self.state) {
                // emit just this reading of the remainder
                let mut r = self.clone();
                r.lexbuf.clear();
                if r.emit_terms(&[t]).is_ok() {
                    a1.push((t, r.acceptable));
                }
            }
        }
        AcceptSequences { a0, a1 }
    }
}
