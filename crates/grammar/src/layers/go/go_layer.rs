//! [`GoLayer`]: Go's automatic semicolons (`semicolons.rs`) behind
//! [`LexicalLayer`]'s hooks (only those it needs: lexemes pass whole, the default
//! hooks leave them alone). Its state is one bit: the last significant token
//! triggers a semicolon.

use std::hash::Hasher;

use crate::grammar::TerminalId;
use crate::layers::lexical_layer::{feed, Emitted, LexicalLayer, Why};
use crate::termset::TermSet;
use crate::token_parser::TokenParser;

use super::semicolons::{unterminated_comment, GoTerminals};

/// Go's layer: its terminals.
#[derive(Clone, Debug)]
pub struct GoLayer {
    /// The terminals the layer works with.
    pub terms: GoTerminals,
}

/// Go's layer along one text: whether a newline now would insert a semicolon.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct GoState {
    pub(crate) semi_pending: bool,
}

impl LexicalLayer for GoLayer {
    type State = GoState;

    #[inline]
    fn start(&self) -> GoState {
        GoState::default()
    }

    #[inline]
    fn is_start(&self, st: &GoState) -> bool {
        !st.semi_pending
    }

    fn nested(&self) -> GoState {
        GoState::default()
    }

    fn nested_prefix(&self) -> &'static [u8] {
        b""
    }

    #[inline]
    fn narrow(&self, st: &GoState, acceptable: &mut TermSet) {
        self.terms.restrict(st.semi_pending, acceptable);
    }

    #[inline]
    fn emit<P: TokenParser>(
        &self,
        st: &mut GoState,
        terms: &[TerminalId],
        ignored: &TermSet,
        parser: &mut P,
    ) -> Result<Emitted, Why> {
        let t0 = terms[0];
        if self.terms.is_newline(t0) {
            if std::mem::take(&mut st.semi_pending) {
                feed(parser, &[self.terms.semi])?;
                return Ok(Emitted::Moved);
            }
            return Ok(Emitted::Quiet);
        }
        if ignored.contains(t0) {
            return Ok(Emitted::Quiet);
        }
        feed(parser, terms)?;
        st.semi_pending = self.terms.triggers(t0);
        Ok(Emitted::Moved)
    }

    fn refuses_end(&self, lexeme: &[u8], unfinished: bool) -> Option<&'static str> {
        unterminated_comment(lexeme, unfinished).then_some("comment not terminated")
    }

    fn finish<P: TokenParser>(&self, st: &mut GoState, parser: &mut P) -> Result<(), Why> {
        if std::mem::take(&mut st.semi_pending) {
            feed(parser, &[self.terms.semi])?;
        }
        Ok(())
    }

    fn lists_ignored(&self, _: &GoState, _: TerminalId) -> bool {
        false
    }

    #[inline]
    fn is_layout_newline(&self, t: TerminalId) -> bool {
        self.terms.is_newline(t)
    }

    #[inline]
    fn same_continuations(&self, a: &GoState, b: &GoState) -> bool {
        a == b
    }

    #[inline]
    fn hash_continuations<H: Hasher>(&self, st: &GoState, h: &mut H) {
        h.write_u32(u32::from(st.semi_pending));
    }

    #[inline]
    fn push_future_key(&self, st: &GoState, key: &mut Vec<u32>) {
        key.push(u32::from(st.semi_pending));
    }

    /// The pending semicolon is left out, as before the layers had a hook (the
    /// parser's stacks differ after a token that triggers one in the grammars we
    /// ship).
    #[inline]
    fn same_future(&self, _: &GoState, _: &GoState) -> bool {
        true
    }
}
