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

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use crate::error::{Conflict, GrammarError};
use crate::grammar::{Grammar, NonterminalId, ProductionId, Symbol, TerminalId, END};
use crate::termset::TermSet;

/// Which LR construction to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableKind {
    /// Canonical LR(1).
    Lr1,
    /// LR(1) with Pager's weak-compatibility merging.
    Pager,
    /// LALR(1).
    Lalr1,
}

/// One parser action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// No action: syntax error.
    Error,
    /// Shift the terminal and go to the state.
    Shift(u32),
    /// Reduce by the production.
    Reduce(ProductionId),
    /// The input is accepted.
    Accept,
}

/// The production id [`LrTable::kernel`] uses for the augmented start production
/// `S' -> start`.
pub const AUGMENTED: ProductionId = u32::MAX;

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
    /// production as `u32::MAX` (see [`LrTable::kernel`]).
    kernels: Vec<Vec<(ProductionId, u32)>>,
    /// Whether error detection is immediate (canonical LR(1)).
    pub exact_errors: bool,
    /// Size and build time.
    pub stats: TableStats,
}

type Item = (u32, u32); // (production, dot); production u32::MAX = augmented start

struct Builder<'g> {
    g: &'g Grammar,
    t_count: usize,
    first: Vec<TermSet>,
    nullable: Vec<bool>,
}

impl<'g> Builder<'g> {
    fn rhs(&self, p: u32) -> &[Symbol] {
        if p == u32::MAX {
            std::slice::from_ref(&AUG_RHS_PLACEHOLDER)
        } else {
            &self.g.productions[p as usize].rhs
        }
    }
    fn sym_at(&self, it: Item) -> Option<Symbol> {
        if it.0 == u32::MAX {
            return if it.1 == 0 { Some(Symbol::N(self.g.start)) } else { None };
        }
        self.rhs(it.0).get(it.1 as usize).copied()
    }
    /// FIRST(rest of item after the next symbol) and whether it is nullable.
    fn first_after(&self, it: Item, out: &mut TermSet) -> bool {
        if it.0 == u32::MAX {
            return true;
        }
        let rhs = self.rhs(it.0);
        for s in &rhs[it.1 as usize + 1..] {
            match *s {
                Symbol::T(t) => {
                    out.insert(t);
                    return false;
                }
                Symbol::N(n) => {
                    out.union_with(&self.first[n as usize]);
                    if !self.nullable[n as usize] {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// LR(1) closure of a kernel.
    fn closure(&self, kernel: &[Item], las: &[TermSet]) -> (Vec<Item>, Vec<TermSet>) {
        let mut items: Vec<Item> = kernel.to_vec();
        let mut sets: Vec<TermSet> = las.to_vec();
        let mut index: HashMap<Item, usize> =
            items.iter().enumerate().map(|(i, it)| (*it, i)).collect();
        let mut work: Vec<usize> = (0..items.len()).collect();
        let mut in_work = vec![true; items.len()];
        let mut tmp = TermSet::new(self.t_count);
        while let Some(i) = work.pop() {
            in_work[i] = false;
            let it = items[i];
            let Some(Symbol::N(b)) = self.sym_at(it) else { continue };
            tmp.clear();
            if self.first_after(it, &mut tmp) {
                let la = sets[i];
                tmp.union_with(&la);
            }
            for &p in &self.g.nonterminals[b as usize].productions {
                let ni = (p, 0);
                match index.get(&ni) {
                    Some(&j) => {
                        if sets[j].union_with(&tmp) && !in_work[j] {
                            in_work[j] = true;
                            work.push(j);
                        }
                    }
                    None => {
                        let j = items.len();
                        items.push(ni);
                        sets.push(tmp);
                        index.insert(ni, j);
                        in_work.push(true);
                        work.push(j);
                    }
                }
            }
        }
        (items, sets)
    }
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

static AUG_RHS_PLACEHOLDER: Symbol = Symbol::T(0);

fn weakly_compatible(a: &[TermSet], b: &[TermSet]) -> bool {
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            let ok = (!a[i].intersects(&b[j]) && !a[j].intersects(&b[i]))
                || a[i].intersects(&a[j])
                || b[i].intersects(&b[j]);
            if !ok {
                return false;
            }
        }
    }
    true
}

impl LrTable {
    /// Builds the table of `kind` for `grammar`; conflicts are an error naming the
    /// rule, the lookahead and both actions.
    pub fn build(grammar: &Grammar, kind: TableKind) -> Result<LrTable, GrammarError> {
        let t0 = Clock::start();
        let g = grammar;
        let nt_count = g.nonterminals.len();
        let t_count = g.terminals.len();
        // nullable + FIRST
        let mut nullable = vec![false; nt_count];
        let mut first: Vec<TermSet> = (0..nt_count).map(|_| TermSet::new(t_count)).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for p in &g.productions {
                let lhs = p.lhs as usize;
                let mut all_null = true;
                for s in &p.rhs {
                    match *s {
                        Symbol::T(t) => {
                            changed |= first[lhs].insert(t);
                            all_null = false;
                            break;
                        }
                        Symbol::N(n) => {
                            if n as usize != lhs {
                                let f = first[n as usize];
                                changed |= first[lhs].union_with(&f);
                            }
                            if !nullable[n as usize] {
                                all_null = false;
                                break;
                            }
                        }
                    }
                }
                if all_null && !nullable[lhs] {
                    nullable[lhs] = true;
                    changed = true;
                }
            }
        }
        let b = Builder { g, t_count, first, nullable };

        let mut kernels: Vec<Vec<Item>> = Vec::new();
        let mut las: Vec<Vec<TermSet>> = Vec::new();
        let mut trans: Vec<Vec<(Symbol, u32)>> = Vec::new();
        let mut by_core: HashMap<Vec<Item>, Vec<u32>> = HashMap::new();
        let mut queue: VecDeque<u32> = VecDeque::new();
        let mut queued: Vec<bool> = Vec::new();

        let mut end = TermSet::new(t_count);
        end.insert(END);
        kernels.push(vec![(u32::MAX, 0)]);
        las.push(vec![end]);
        trans.push(Vec::new());
        by_core.insert(vec![(u32::MAX, 0)], vec![0]);
        queue.push_back(0);
        queued.push(true);

        while let Some(s) = queue.pop_front() {
            queued[s as usize] = false;
            let (items, sets) = b.closure(&kernels[s as usize], &las[s as usize]);
            // group successors by symbol
            let mut succ: Vec<(Symbol, Vec<Item>, Vec<TermSet>)> = Vec::new();
            let mut succ_index: HashMap<Symbol, usize> = HashMap::new();
            for (it, la) in items.iter().zip(&sets) {
                let Some(x) = b.sym_at(*it) else { continue };
                let k = *succ_index.entry(x).or_insert_with(|| {
                    succ.push((x, Vec::new(), Vec::new()));
                    succ.len() - 1
                });
                let adv = (it.0, it.1 + 1);
                if let Some(pos) = succ[k].1.iter().position(|i| *i == adv) {
                    succ[k].2[pos].union_with(la);
                } else {
                    succ[k].1.push(adv);
                    succ[k].2.push(*la);
                }
            }
            let mut new_trans = Vec::with_capacity(succ.len());
            for (x, mut kitems, klas) in succ {
                // canonical order
                let mut order: Vec<usize> = (0..kitems.len()).collect();
                order.sort_by_key(|&i| kitems[i]);
                let klas: Vec<TermSet> = order.iter().map(|&i| klas[i]).collect();
                kitems.sort();
                let cands = by_core.get(&kitems).cloned().unwrap_or_default();
                let mut target = None;
                for c in cands {
                    let cur = &las[c as usize];
                    let ok = match kind {
                        TableKind::Lr1 => *cur == klas,
                        TableKind::Lalr1 => true,
                        TableKind::Pager => {
                            cur.iter().zip(&klas).all(|(a, b)| b.is_subset(a))
                                || weakly_compatible(cur, &klas)
                        }
                    };
                    if ok {
                        let mut grew = false;
                        for (a, bb) in las[c as usize].iter_mut().zip(&klas) {
                            grew |= a.union_with(bb);
                        }
                        if grew && !queued[c as usize] {
                            queued[c as usize] = true;
                            queue.push_back(c);
                        }
                        target = Some(c);
                        break;
                    }
                }
                let target = match target {
                    Some(t) => t,
                    None => {
                        let id = kernels.len() as u32;
                        kernels.push(kitems.clone());
                        las.push(klas);
                        trans.push(Vec::new());
                        queued.push(true);
                        queue.push_back(id);
                        by_core.entry(kitems).or_default().push(id);
                        id
                    }
                };
                new_trans.push((x, target));
            }
            trans[s as usize] = new_trans;
        }

        // Keep reachable states only (merging can orphan states), renumber.
        let n = kernels.len();
        let mut newid = vec![u32::MAX; n];
        let mut order = vec![0u32];
        newid[0] = 0;
        let mut i = 0;
        while i < order.len() {
            let s = order[i] as usize;
            for &(_, t) in &trans[s] {
                if newid[t as usize] == u32::MAX {
                    newid[t as usize] = order.len() as u32;
                    order.push(t);
                }
            }
            i += 1;
        }
        let ns = order.len();
        let mut action = vec![0u32; ns * t_count];
        let mut goto = vec![0u32; ns * nt_count];
        let mut conflicts = Vec::new();
        let mut valid: Vec<TermSet> = (0..ns).map(|_| TermSet::new(t_count)).collect();
        let mut accessing: Vec<Option<Symbol>> = vec![None; ns];
        let describe = |a: u32, s_items: &[Item], t: TerminalId| -> (String, String) {
            match a & 3 {
                1 => {
                    let rule = s_items
                        .iter()
                        .find(|it| b.sym_at(**it) == Some(Symbol::T(t)) && it.0 != u32::MAX)
                        .map(|it| {
                            (
                                g.nonterminals[g.productions[it.0 as usize].lhs as usize]
                                    .name
                                    .clone(),
                                g.render_production(it.0, Some(it.1 as usize)),
                            )
                        })
                        .unwrap_or_default();
                    (rule.0, format!("shift ({})", rule.1))
                }
                2 => {
                    let p = a >> 2;
                    (
                        g.nonterminals[g.productions[p as usize].lhs as usize].name.clone(),
                        format!("reduce {}", g.render_production(p, None)),
                    )
                }
                _ => (String::new(), "accept".into()),
            }
        };
        for (new_s, &old_s) in order.iter().enumerate() {
            let (items, sets) = b.closure(&kernels[old_s as usize], &las[old_s as usize]);
            let row = new_s * t_count;
            for &(x, t) in &trans[old_s as usize] {
                let t = newid[t as usize];
                accessing[t as usize] = Some(x);
                match x {
                    Symbol::T(term) => action[row + term as usize] = (t << 2) | 1,
                    Symbol::N(nt) => goto[new_s * nt_count + nt as usize] = t + 1,
                }
            }
            for (it, la) in items.iter().zip(&sets) {
                if b.sym_at(*it).is_some() {
                    continue;
                }
                let a = if it.0 == u32::MAX { 3 } else { (it.0 << 2) | 2 };
                for t in la.iter() {
                    let cell = &mut action[row + t as usize];
                    if *cell == 0 || *cell == a {
                        *cell = a;
                    } else {
                        let (r1, d1) = describe(*cell, &items, t);
                        let (r2, d2) = describe(a, &items, t);
                        let rule =
                            if r1 == r2 || r1.is_empty() { r2 } else { format!("{r1} / {r2}") };
                        conflicts.push(Conflict {
                            state: new_s as u32,
                            lookahead: g.terminals[t as usize].name.clone(),
                            rule,
                            first: d1,
                            second: d2,
                        });
                    }
                }
            }
            for t in 0..t_count {
                if action[row + t] != 0 {
                    valid[new_s].insert(t as u32);
                }
            }
        }
        if !conflicts.is_empty() {
            return Err(GrammarError::Conflicts(conflicts));
        }
        let stats = TableStats {
            kind,
            states: ns,
            actions: action.iter().filter(|a| **a != 0).count(),
            gotos: goto.iter().filter(|a| **a != 0).count(),
            build_time: t0.elapsed(),
        };
        Ok(LrTable {
            num_terms: t_count,
            num_nts: nt_count,
            action,
            goto,
            prod_lhs: g.productions.iter().map(|p| p.lhs).collect(),
            prod_len: g.productions.iter().map(|p| p.rhs.len() as u32).collect(),
            valid,
            accessing,
            kernels: order.iter().map(|&o| kernels[o as usize].clone()).collect(),
            exact_errors: kind == TableKind::Lr1,
            stats,
        })
    }

    /// The action in `state` on terminal `t`.
    #[inline]
    pub fn action(&self, state: u32, t: TerminalId) -> Action {
        let a = self.action[state as usize * self.num_terms + t as usize];
        match a & 3 {
            0 => Action::Error,
            1 => Action::Shift(a >> 2),
            2 => Action::Reduce(a >> 2),
            _ => Action::Accept,
        }
    }

    /// The goto of `state` on nonterminal `nt` (None if empty).
    #[inline]
    pub fn goto(&self, state: u32, nt: NonterminalId) -> Option<u32> {
        let g = self.goto[state as usize * self.num_nts + nt as usize];
        (g != 0).then(|| g - 1)
    }

    /// Left-hand side and length of production `p`.
    #[inline]
    pub fn production(&self, p: ProductionId) -> (NonterminalId, u32) {
        (self.prod_lhs[p as usize], self.prod_len[p as usize])
    }

    /// Terminals with a non-error action in `state` (exactly the acceptable terminals
    /// when [`Self::exact_errors`]).
    #[inline]
    pub fn valid_terminals(&self, state: u32) -> &TermSet {
        &self.valid[state as usize]
    }

    /// The grammar symbol every transition into `state` reads (LR states have one;
    /// `None` for the start state): what a stack entry stands for, for display.
    pub fn accessing_symbol(&self, state: u32) -> Option<Symbol> {
        self.accessing.get(state as usize).copied().flatten()
    }

    /// The kernel item cores of `state` as (production, dot) pairs: the items whose
    /// dot is past their first symbol (and, in the start state, the augmented item
    /// `(AUGMENTED, 0)`; the accepting state holds `(AUGMENTED, 1)`). Every item core
    /// of a state is valid for every stack that reaches it, whatever the table kind
    /// (merging only joins lookaheads), which is what completion costs rely on.
    pub fn kernel(&self, state: u32) -> &[(ProductionId, u32)] {
        &self.kernels[state as usize]
    }

    /// Number of states.
    pub fn num_states(&self) -> usize {
        self.valid.len()
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
