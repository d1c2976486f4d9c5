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
use crate::ids::LrState;
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
    Shift(LrState),
    /// Reduce by the production.
    Reduce(ProductionId),
    /// The input is accepted.
    Accept,
}

/// The production id [`LrTable::kernel`] uses for the augmented start production
/// `S' -> start`.
pub const AUGMENTED: ProductionId = ProductionId::new(u32::MAX);

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

type Item = (ProductionId, u32); // (production, dot); AUGMENTED: the augmented start

struct Builder<'g> {
    g: &'g Grammar,
    t_count: usize,
    first: Vec<TermSet>,
    nullable: Vec<bool>,
}

impl<'g> Builder<'g> {
    fn rhs(&self, p: ProductionId) -> &[Symbol] {
        if p == AUGMENTED {
            std::slice::from_ref(&AUG_RHS_PLACEHOLDER)
        } else {
            &self.g.productions[p.index()].rhs
        }
    }
    fn sym_at(&self, it: Item) -> Option<Symbol> {
        if it.0 == AUGMENTED {
            return if it.1 == 0 { Some(Symbol::N(self.g.start)) } else { None };
        }
        self.rhs(it.0).get(it.1 as usize).copied()
    }
    /// FIRST(rest of item after the next symbol) and whether it is nullable.
    fn first_after(&self, it: Item, out: &mut TermSet) -> bool {
        if it.0 == AUGMENTED {
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
                    out.union_with(&self.first[n.index()]);
                    if !self.nullable[n.index()] {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// A conflict in `state` on lookahead `t` between the encoded actions `first` and
    /// `second`, named by rule and production.
    fn conflict(
        &self,
        state: u32,
        t: TerminalId,
        first: u32,
        second: u32,
        items: &[Item],
    ) -> Conflict {
        let (r1, d1) = self.describe(first, items, t);
        let (r2, d2) = self.describe(second, items, t);
        let rule = if r1 == r2 || r1.is_empty() { r2 } else { format!("{r1} / {r2}") };
        Conflict {
            state,
            lookahead: self.g.terminals[t.index()].name.clone(),
            rule,
            first: d1,
            second: d2,
        }
    }

    /// The rule an encoded action belongs to and the action in words.
    fn describe(&self, a: u32, items: &[Item], t: TerminalId) -> (String, String) {
        let g = self.g;
        let rule_of =
            |p: ProductionId| g.nonterminals[g.productions[p.index()].lhs.index()].name.clone();
        match a & 3 {
            1 => {
                let (rule, shown) = items
                    .iter()
                    .find(|it| self.sym_at(**it) == Some(Symbol::T(t)) && it.0 != AUGMENTED)
                    .map(|it| (rule_of(it.0), g.render_production(it.0, Some(it.1 as usize))))
                    .unwrap_or_default();
                (rule, format!("shift ({shown})"))
            }
            2 => {
                let p = ProductionId::new(a >> 2);
                (rule_of(p), format!("reduce {}", g.render_production(p, None)))
            }
            _ => (String::new(), "accept".into()),
        }
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
            for &p in &self.g.nonterminals[b.index()].productions {
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

static AUG_RHS_PLACEHOLDER: Symbol = Symbol::T(END);

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

/// FIRST of every nonterminal, given which are nullable.
fn first_sets(g: &Grammar, nullable: &[bool]) -> Vec<TermSet> {
    let t_count = g.terminals.len();
    let mut first: Vec<TermSet> =
        (0..g.nonterminals.len()).map(|_| TermSet::new(t_count)).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for p in &g.productions {
            let lhs = p.lhs.index();
            for s in &p.rhs {
                match *s {
                    Symbol::T(t) => {
                        changed |= first[lhs].insert(t);
                        break;
                    }
                    Symbol::N(n) => {
                        if n.index() != lhs {
                            let f = first[n.index()];
                            changed |= first[lhs].union_with(&f);
                        }
                        if !nullable[n.index()] {
                            break;
                        }
                    }
                }
            }
        }
    }
    first
}

/// The states still to expand, each at most once in the queue.
#[derive(Default)]
struct Worklist {
    queue: VecDeque<u32>,
    queued: Vec<bool>,
}

impl Worklist {
    fn push_new(&mut self) -> u32 {
        let id = self.queued.len() as u32;
        self.queued.push(true);
        self.queue.push_back(id);
        id
    }
    fn push(&mut self, s: u32) {
        if !self.queued[s as usize] {
            self.queued[s as usize] = true;
            self.queue.push_back(s);
        }
    }
    fn pop(&mut self) -> Option<u32> {
        let s = self.queue.pop_front()?;
        self.queued[s as usize] = false;
        Some(s)
    }
}

/// One state's successors on one symbol: the advanced kernel items (sorted) and their
/// lookaheads.
type Successor = (Symbol, Vec<Item>, Vec<TermSet>);

/// The LR automaton as built (merged states may be unreachable): each state's kernel
/// items, their lookaheads and its transitions.
struct Automaton {
    kernels: Vec<Vec<Item>>,
    las: Vec<Vec<TermSet>>,
    trans: Vec<Vec<(Symbol, u32)>>,
    by_core: HashMap<Vec<Item>, Vec<u32>>,
    work: Worklist,
}

impl Automaton {
    /// Expands states from the augmented start item until no lookahead grows, merging
    /// a successor into an existing state with the same core when `kind` allows.
    fn explore(b: &Builder, kind: TableKind) -> Automaton {
        let mut a = Automaton {
            kernels: Vec::new(),
            las: Vec::new(),
            trans: Vec::new(),
            by_core: HashMap::new(),
            work: Worklist::default(),
        };
        let mut end = TermSet::new(b.t_count);
        end.insert(END);
        a.add(vec![(AUGMENTED, 0)], vec![end]);
        while let Some(s) = a.work.pop() {
            let (items, sets) = b.closure(&a.kernels[s as usize], &a.las[s as usize]);
            let trans = successors(b, &items, &sets)
                .into_iter()
                .map(|(x, kitems, klas)| (x, a.merge_or_add(kitems, klas, kind)))
                .collect();
            a.trans[s as usize] = trans;
        }
        a
    }

    fn add(&mut self, kitems: Vec<Item>, klas: Vec<TermSet>) -> u32 {
        let id = self.work.push_new();
        self.kernels.push(kitems.clone());
        self.las.push(klas);
        self.trans.push(Vec::new());
        self.by_core.entry(kitems).or_default().push(id);
        id
    }

    /// The state a successor goes to: the first same-core state `kind` lets it merge
    /// into (its lookaheads joined, re-queued if they grew), else a new state.
    fn merge_or_add(&mut self, kitems: Vec<Item>, klas: Vec<TermSet>, kind: TableKind) -> u32 {
        let candidates = self.by_core.get(&kitems).cloned().unwrap_or_default();
        for c in candidates {
            let cur = &self.las[c as usize];
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
                for (a, b) in self.las[c as usize].iter_mut().zip(&klas) {
                    grew |= a.union_with(b);
                }
                if grew {
                    self.work.push(c);
                }
                return c;
            }
        }
        self.add(kitems, klas)
    }

    /// The states reachable from the start (merging can orphan states) in breadth-first
    /// order, and every state's new number (`u32::MAX` if unreachable).
    fn reachable(&self) -> (Vec<u32>, Vec<u32>) {
        let mut newid = vec![u32::MAX; self.kernels.len()];
        let mut order = vec![0u32];
        newid[0] = 0;
        let mut i = 0;
        while i < order.len() {
            for &(_, t) in &self.trans[order[i] as usize] {
                if newid[t as usize] == u32::MAX {
                    newid[t as usize] = order.len() as u32;
                    order.push(t);
                }
            }
            i += 1;
        }
        (order, newid)
    }
}

/// A closed state's successors grouped by the symbol after the dot, each kernel in
/// canonical (sorted) order.
fn successors(b: &Builder, items: &[Item], sets: &[TermSet]) -> Vec<Successor> {
    let mut succ: Vec<Successor> = Vec::new();
    let mut succ_index: HashMap<Symbol, usize> = HashMap::new();
    for (it, la) in items.iter().zip(sets) {
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
    for (_, kitems, klas) in &mut succ {
        let mut order: Vec<usize> = (0..kitems.len()).collect();
        order.sort_by_key(|&i| kitems[i]);
        *klas = order.iter().map(|&i| klas[i]).collect();
        kitems.sort();
    }
    succ
}

/// The action, goto, valid-terminal and accessing-symbol tables being filled, state by
/// state, in the final numbering.
struct Tables {
    t_count: usize,
    nt_count: usize,
    action: Vec<u32>,
    goto: Vec<u32>,
    valid: Vec<TermSet>,
    accessing: Vec<Option<Symbol>>,
    conflicts: Vec<Conflict>,
}

impl Tables {
    fn new(g: &Grammar, states: usize) -> Tables {
        let (t_count, nt_count) = (g.terminals.len(), g.nonterminals.len());
        Tables {
            t_count,
            nt_count,
            action: vec![0; states * t_count],
            goto: vec![0; states * nt_count],
            valid: (0..states).map(|_| TermSet::new(t_count)).collect(),
            accessing: vec![None; states],
            conflicts: Vec::new(),
        }
    }

    /// State `s`'s shifts and gotos (its transitions, renumbered by `newid`), then its
    /// reductions on their lookaheads, conflicts recorded.
    fn fill_state(
        &mut self,
        b: &Builder,
        s: usize,
        trans: &[(Symbol, u32)],
        newid: &[u32],
        items: &[Item],
        sets: &[TermSet],
    ) {
        let row = s * self.t_count;
        for &(x, t) in trans {
            let t = newid[t as usize];
            self.accessing[t as usize] = Some(x);
            match x {
                Symbol::T(term) => self.action[row + term.index()] = (t << 2) | 1,
                Symbol::N(nt) => self.goto[s * self.nt_count + nt.index()] = t + 1,
            }
        }
        for (it, la) in items.iter().zip(sets) {
            if b.sym_at(*it).is_some() {
                continue;
            }
            let a = if it.0 == AUGMENTED { 3 } else { (it.0.as_u32() << 2) | 2 };
            for t in la.iter() {
                let cell = self.action[row + t.index()];
                if cell == 0 || cell == a {
                    self.action[row + t.index()] = a;
                } else {
                    self.conflicts.push(b.conflict(s as u32, t, cell, a, items));
                }
            }
        }
        for t in 0..self.t_count {
            if self.action[row + t] != 0 {
                self.valid[s].insert(TerminalId::from_index(t));
            }
        }
    }
}

impl LrTable {
    /// Builds the table of `kind` for `grammar`; conflicts are an error naming the
    /// rule, the lookahead and both actions.
    pub fn build(grammar: &Grammar, kind: TableKind) -> Result<LrTable, GrammarError> {
        let t0 = Clock::start();
        let g = grammar;
        let nullable = g.nullable();
        let b =
            Builder { g, t_count: g.terminals.len(), first: first_sets(g, &nullable), nullable };
        let automaton = Automaton::explore(&b, kind);
        let (order, newid) = automaton.reachable();
        let mut tables = Tables::new(g, order.len());
        for (s, &old) in order.iter().enumerate() {
            let (items, sets) =
                b.closure(&automaton.kernels[old as usize], &automaton.las[old as usize]);
            tables.fill_state(&b, s, &automaton.trans[old as usize], &newid, &items, &sets);
        }
        if !tables.conflicts.is_empty() {
            return Err(GrammarError::Conflicts(tables.conflicts));
        }
        let stats = TableStats {
            kind,
            states: order.len(),
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
            kernels: order.iter().map(|&o| automaton.kernels[o as usize].clone()).collect(),
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
