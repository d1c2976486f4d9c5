//! A whole-text maximal-munch lexer over a [`LexerDfa`], without the parser: used to
//! split corpus files into lexemes (mutation tests, benchmarks, tools).

use crate::error::ParseError;
use crate::grammar::TerminalId;
use crate::lexer_dfa::LexerDfa;

/// One lexeme: its byte range and the terminals it may be (the DFA's winners).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lexeme {
    /// Start byte offset.
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// Winning terminals (several for a soft keyword: NAME and the keyword).
    pub terminals: Vec<TerminalId>,
}

/// Splits `text` into lexemes by maximal munch; an error names the offset where no
/// terminal matches.
pub fn lex(dfa: &LexerDfa, text: &[u8]) -> Result<Vec<Lexeme>, ParseError> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let mut s = dfa.start();
        let mut best: Option<(usize, LexerDfaState)> = None;
        let mut i = pos;
        while i < text.len() {
            s = dfa.next(s, text[i]);
            if dfa.is_dead(s) {
                break;
            }
            i += 1;
            if !dfa.winners(s).is_empty() {
                best = Some((i, s));
            }
        }
        let Some((end, st)) = best else {
            return Err(ParseError {
                offset: pos,
                expected: Vec::new(),
                message: "no token matches here".into(),
            });
        };
        out.push(Lexeme { start: pos, end, terminals: dfa.winners(st).to_vec() });
        pos = end;
    }
    Ok(out)
}

type LexerDfaState = crate::lexer_dfa::DfaState;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::Grammar;

    #[test]
    fn maximal_munch_with_backtracking() {
        let g = Grammar::parse(
            "start: (DOT | ELL | NAME)*\nDOT: \".\"\nELL: \"...\"\nNAME: /[a-z]+/\n",
        )
        .unwrap();
        let d = LexerDfa::build(&g).unwrap();
        let lx = lex(&d, b"a..b...c").unwrap();
        let spans: Vec<(usize, usize)> = lx.iter().map(|l| (l.start, l.end)).collect();
        assert_eq!(spans, vec![(0, 1), (1, 2), (2, 3), (3, 4), (4, 7), (7, 8)]);
        assert_eq!(lex(&d, b"a-").unwrap_err().offset, 1);
    }
}
