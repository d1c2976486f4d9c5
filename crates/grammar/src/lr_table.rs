//! LR parse tables: canonical LR(1), Pager's merged LR(1) and LALR(1), built by one
//! algorithm that differs only in when two states with the same LR(0) core merge.
//!
//! - [`TableKind::Lr1`]: merge only identical lookaheads (canonical LR(1): largest
//!   tables, and immediate error detection: a state never reduces on a lookahead that
//!   cannot be shifted eventually, so the valid actions of the top state are exactly
//!   the acceptable terminals).
//! - [`TableKind::Pager`]: merge when Pager's weak compatibility holds; LR(1) power
//!   (no conflicts that LR(1) would not have) with tables close to LALR size.
//! - [`TableKind::Lalr1`]: always merge same cores (LALR(1); may show spurious
//!   reduce/reduce conflicts).
//!
//! Written by hand rather than with grmtools' `lrtable` because it must read our
//! grammar representation (no Yacc text round trip) and we also want canonical LR(1)
//! and the per-state acceptable-terminal sets the masks need.
//!
//! The construction is `lr_construction.rs`'s; this file holds the table and its
//! lookups.

use std::time::Duration;

use crate::error::GrammarError;
use crate::grammar::{Grammar, NonterminalId, ProductionId, Symbol, TerminalId};
use crate::ids::LrState;
use crate::lr_construction::construct;
pub use crate::lr_construction::{TableKind, AUGMENTED};
use crate::termset::TermSet;

/// One parser action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// No action: syntax error.
    Error,
    /// Shift the terminal and go to the state.
    Shift(LrState),
    /// Reduce by the production.
    Reduce(ProductionId),
    /// The input is accepted.
    Accept,
}

/// Size and cost of a table, for reports and benchmarks.
#[derive(Clone, Copy, Debug)]
pub struct TableStats {
    /// Construction used.
    pub kind: TableKind,
    /// Number of LR states.
    pub states: usize,
    /// Non-error action entries.
    pub actions: usize,
    /// Non-empty goto entries.
    pub gotos: usize,
    /// Time to build (zero on wasm32, which has no clock).
    pub build_time: Duration,
}

/// A compiled LR table.
#[derive(Clone, Debug)]
pub struct LrTable {
    num_terms: usize,
    num_nts: usize,
    /// Encoded actions: 0 error, (s << 2) | 1 shift, (p << 2) | 2 reduce, 3 accept.
    action: Vec<u32>,
    /// goto[state * num_nts + nt] = target + 1, or 0.
    goto: Vec<u32>,
    prod_lhs: Vec<NonterminalId>,
    prod_len: Vec<u32>,
    /// Terminals with a non-error action per state.
    valid: Vec<TermSet>,
    /// The symbol on every transition into each state (`None` for the start state):
    /// what a parser stack entry stands for, for display.
    accessing: Vec<Option<Symbol>>,
    /// The kernel item cores of each state: (production, dot), the augmented start
    /// production as [`AUGMENTED`] (see [`LrTable::kernel`]).
    kernels: Vec<Vec<(ProductionId, u32)>>,
    /// Whether error detection is immediate (canonical LR(1)).
    pub exact_errors: bool,
    /// Size and build time.
    pub stats: TableStats,
}

/// Build-time measurement that also compiles for `wasm32-unknown-unknown`, where
/// `std::time::Instant::now` panics (there it reports zero).
struct Clock(#[cfg(not(target_arch = "wasm32"))] std::time::Instant);

impl Clock {
    fn start() -> Self {
        Clock(
            #[cfg(not(target_arch = "wasm32"))]
            std::time::Instant::now(),
        )
    }
    fn elapsed(&self) -> Duration {
        #[cfg(not(target_arch = "wasm32"))]
        return self.0.elapsed();
        #[cfg(target_arch = "wasm32")]
        return Duration::ZERO;
    }
}

impl LrTable {
    /// Builds the table of `kind` for `grammar`; conflicts are an error naming the
    /// rule, the lookahead and both actions.
    pub fn build(grammar: &Grammar, kind: TableKind) -> Result<LrTable, GrammarError> {
        let t0 = Clock::start();
        let g = grammar;
        let built = construct(g, kind)?;
        let tables = built.tables;
        let stats = TableStats {
            kind,
            states: built.kernels.len(),
            actions: tables.action.iter().filter(|a| **a != 0).count(),
            gotos: tables.goto.iter().filter(|a| **a != 0).count(),
            build_time: t0.elapsed(),
        };
        Ok(LrTable {
            num_terms: tables.t_count,
            num_nts: tables.nt_count,
            action: tables.action,
            goto: tables.goto,
            prod_lhs: g.productions.iter().map(|p| p.lhs).collect(),
            prod_len: g.productions.iter().map(|p| p.rhs.len() as u32).collect(),
            valid: tables.valid,
            accessing: tables.accessing,
            kernels: built.kernels,
            exact_errors: kind == TableKind::Lr1,
            stats,
        })
    }

    /// The action in `state` on terminal `t`.
    #[inline]
    pub fn action(&self, state: LrState, t: TerminalId) -> Action {
        let a = self.action[state.index() * self.num_terms + t.index()];
        match a & 3 {
            0 => Action::Error,
            1 => Action::Shift(LrState::new(a >> 2)),
            2 => Action::Reduce(ProductionId::new(a >> 2)),
            _ => Action::Accept,
        }
    }

    /// The goto of `state` on nonterminal `nt` (None if empty).
    #[inline]
    pub fn goto(&self, state: LrState, nt: NonterminalId) -> Option<LrState> {
        let g = self.goto[state.index() * self.num_nts + nt.index()];
        (g != 0).then(|| LrState::new(g - 1))
    }

    /// Left-hand side and length of production `p`.
    #[inline]
    pub fn production(&self, p: ProductionId) -> (NonterminalId, u32) {
        (self.prod_lhs[p.index()], self.prod_len[p.index()])
    }

    /// Terminals with a non-error action in `state` (exactly the acceptable terminals
    /// when [`Self::exact_errors`]).
    #[inline]
    pub fn valid_terminals(&self, state: LrState) -> &TermSet {
        &self.valid[state.index()]
    }

    /// The grammar symbol every transition into `state` reads (LR states have one;
    /// `None` for the start state): what a stack entry stands for, for display.
    pub fn accessing_symbol(&self, state: LrState) -> Option<Symbol> {
        self.accessing.get(state.index()).copied().flatten()
    }

    /// The kernel item cores of `state` as (production, dot) pairs: the items whose
    /// dot is past their first symbol (and, in the start state, the augmented item
    /// `(AUGMENTED, 0)`; the accepting state holds `(AUGMENTED, 1)`). Every item core
    /// of a state is valid for every stack that reaches it, whatever the table kind
    /// (merging only joins lookaheads), which is what completion costs rely on.
    pub fn kernel(&self, state: LrState) -> &[(ProductionId, u32)] {
        &self.kernels[state.index()]
    }

    /// Number of states.
    pub fn num_states(&self) -> usize {
        self.valid.len()
    }

    /// Every state, the start state first.
    pub fn states(&self) -> impl Iterator<Item = LrState> {
        (0..self.num_states()).map(LrState::from_index)
    }

    /// Number of terminals the table is indexed by.
    pub fn num_terminals(&self) -> usize {
        self.num_terms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The classic grammar that is LR(1) but not LALR(1).
    const NOT_LALR: &str = "start: \"a\" e \"c\" | \"a\" f \"d\" | \"b\" e \"d\" | \"b\" f \"c\"\ne: \"e\"\nf: \"e\"\n";

    #[test]
    fn lr1_and_pager_accept_what_lalr_rejects() {
        let g = Grammar::parse(NOT_LALR).unwrap();
        let lr1 = LrTable::build(&g, TableKind::Lr1).unwrap();
        let pager = LrTable::build(&g, TableKind::Pager).unwrap();
        assert!(pager.num_states() <= lr1.num_states());
        let err = LrTable::build(&g, TableKind::Lalr1).unwrap_err();
        let GrammarError::Conflicts(cs) = err else { panic!("expected conflicts") };
        let c = &cs[0];
        assert!(c.lookahead == "\"c\"" || c.lookahead == "\"d\"", "{c}");
        assert!(c.first.starts_with("reduce") && c.second.starts_with("reduce"), "{c}");
        assert!(c.rule.contains('e') && c.rule.contains('f'), "{c}");
    }

    #[test]
    fn shift_reduce_conflict_is_named() {
        let g = Grammar::parse("start: e\ne: e \"+\" e | \"x\"\n").unwrap();
        let GrammarError::Conflicts(cs) = LrTable::build(&g, TableKind::Lr1).unwrap_err() else {
            panic!()
        };
        let c = &cs[0];
        assert_eq!(c.lookahead, "\"+\"");
        assert_eq!(c.rule, "e");
        let both = format!("{} {}", c.first, c.second);
        assert!(
            both.contains("shift (e: e · \"+\" e)") && both.contains("reduce e: e \"+\" e"),
            "{c}"
        );
    }
}
