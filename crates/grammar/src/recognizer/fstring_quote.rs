//! The one exception to "inside a lexeme only the DFA decides": the quote that closes a
//! Python f-string is refused when the literal's replacement fields are invalid
//! (CPython 3.11 checks them once the literal is read), so `f"{a("` is refused at its
//! last byte and never left as a dead end. Each field's expression is checked by a
//! fresh recognizer of the same language, as `(expression)`. Trie walks that decide
//! in-lexeme bytes from the DFA alone re-check such closers (`espalier_constraint`'s
//! `fstring_closers`).

use crate::lexer_dfa::DfaState;
use crate::token_parser::TokenParser;

use super::refusal::{Refusal, Why};
use super::Recognizer;

impl<P: TokenParser> Recognizer<P> {
    /// Python: whether the DFA state `at` (an accepting one) ends a STRING lexeme.
    #[inline]
    pub(super) fn closes_string(&self, at: DfaState) -> bool {
        self.lang.python.as_ref().is_some_and(|py| py.string == Some(self.lang.dfa.winners(at)[0]))
    }

    /// Python: checks the replacement fields of an f-string literal (3.11 rules).
    #[cold]
    pub(super) fn check_fstring(&self, text: &[u8]) -> Result<(), Refusal> {
        let Some((_, body, true, raw)) = crate::fstring::split_literal(text) else { return Ok(()) };
        let lang = self.lang.clone();
        let mut buf = Vec::new();
        crate::fstring::check_fstring(body, raw, &mut |e: &[u8]| {
            buf.clear();
            buf.push(b'(');
            buf.extend_from_slice(e);
            buf.push(b')');
            let mut r = lang.recognizer();
            r.try_push_bytes(&buf) && r.is_complete()
        })
        .map_err(|m| self.refuse(Why::Owned(m)))
    }
}
