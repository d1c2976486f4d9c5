//! The interface between the lexer layer and a parsing algorithm: feed whole lexemes
//! (as terminal ids), ask what may come next. The LR parser and the Earley recognizer
//! both implement it, so one byte-level [`crate::Recognizer`] drives either.

use crate::grammar::{Symbol, TerminalId};
use crate::ids::LrState;
use crate::termset::TermSet;

/// A parser consuming a stream of lexemes.
pub trait TokenParser: Clone + std::fmt::Debug + Send + Sync + 'static {
    /// Feeds one lexeme. `terms` lists every terminal the lexeme may be (usually one;
    /// NAME plus a soft keyword such as `match`); the parser keeps every reading that
    /// survives. Returns `false` when no reading survives (the state is then garbage).
    fn feed(&mut self, terms: &[TerminalId]) -> bool;
    /// Writes the terminals acceptable as the next lexeme into `out` (cleared first).
    fn acceptable(&mut self, out: &mut TermSet);
    /// Whether the lexemes fed so far form a complete sentence.
    fn accepts_end(&mut self) -> bool;
    /// The parser's stack for display, bottom first: each entry's state id and the
    /// grammar symbol it stands for (`None` at the bottom). An LR parser shows its
    /// first live stack; parsers without one (Earley) show nothing.
    fn stack(&self) -> Vec<(LrState, Option<Symbol>)> {
        Vec::new()
    }
    /// The live LR stacks (state ids, bottom first) for parsers that have them, so
    /// that completion costs ([`crate::CompletionCosts`]) can read them; `None` for
    /// parsers without LR stacks (Earley).
    fn lr_stacks(&self) -> Option<&[Vec<LrState>]> {
        None
    }
}
