//! Why the recognizer refused a byte, kept small, and the full [`ParseError`] built
//! from it only where one is asked for.
//!
//! The hot paths of a mask (a trie walk tries tens of thousands of bytes, most of them
//! refused) only need to know *that* a byte was refused, so the expensive part of a
//! [`ParseError`] (the names of every acceptable terminal, formatted text) is built
//! only by [`Recognizer::push_byte`] and [`Recognizer::finish`], from the recognizer's
//! state right after the refusal. Measured: building `ParseError`s took ~39% of an
//! `exact` mask before this type.

use crate::error::ParseError;
use crate::layers::lexical_layer::LexicalLayer;
pub(super) use crate::layers::lexical_layer::Why;
use crate::token_parser::TokenParser;

use super::Recognizer;

/// A refused byte: where its lexeme began, and why.
#[derive(Clone, Debug)]
pub(super) struct Refusal {
    pub(super) offset: usize,
    pub(super) why: Why,
}

impl<P: TokenParser> Recognizer<P> {
    /// A refusal of the current lexeme.
    #[inline]
    pub(super) fn refuse(&self, why: Why) -> Refusal {
        Refusal { offset: self.lex_start, why }
    }

    /// The full error for a refusal, from the state right after it (the acceptable
    /// set has not changed since the refusal: no path refreshes it after failing).
    #[cold]
    pub(super) fn describe(&self, r: Refusal) -> ParseError {
        let message = match r.why {
            Why::Text(m) => m.to_string(),
            Why::Owned(m) => m,
            Why::Unexpected(terms, n) => {
                let names: Vec<&str> =
                    terms[..n as usize].iter().map(|&t| self.lang.terminal_name(t)).collect();
                format!("unexpected {}", names.join("/"))
            }
            Why::Invalid(b) => {
                let shown = if b.is_ascii_graphic() {
                    format!("{:?}", b as char)
                } else {
                    format!("0x{b:02X}")
                };
                format!("invalid token here (byte {shown} continues no token)")
            }
        };
        self.error(r.offset, message)
    }

    /// An error at `offset` listing the terminals acceptable there (ignored ones left
    /// out, but those the layer lists: Python's NL where a newline ends a statement).
    fn error(&self, offset: usize, message: impl Into<String>) -> ParseError {
        let mut expected: Vec<String> = self
            .acceptable
            .iter()
            .filter(|&t| {
                !self.lang.ignored.contains(t) || self.lang.layer.lists_ignored(&self.layer, t)
            })
            .map(|t| self.lang.terminal_name(t).to_string())
            .collect();
        expected.sort();
        ParseError { offset, expected, message: message.into() }
    }
}
