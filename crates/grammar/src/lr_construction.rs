//! The construction of LR parse tables ([`crate::LrTable::build`]): LR(1) item sets
//! (closure, FIRST sets), the automaton explored from the start state, two states with
//! the same LR(0) core merged or not as [`TableKind`] says, then the action and goto
//! tables filled state by state in the final numbering, conflicts named. The table's
//! lookups are `lr_table.rs`'s.

use std::collections::{HashMap, VecDeque};

use crate::error::{Conflict, GrammarError};
use crate::grammar::{Grammar, ProductionId, Symbol, TerminalId, END};
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

/// The production id [`crate::LrTable::kernel`] uses for the augmented start production
/// `S' -> start`.
pub const AUGMENTED: ProductionId = ProductionId::new(u32::MAX);

pub(crate) type Item = (ProductionId, u32); // (production, dot); AUGMENTED: the augmented start

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
pub(crate) struct Tables {
    pub(crate) t_count: usize,
    pub(crate) nt_count: usize,
    pub(crate) action: Vec<u32>,
    pub(crate) goto: Vec<u32>,
    pub(crate) valid: Vec<TermSet>,
    pub(crate) accessing: Vec<Option<Symbol>>,
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

/// A constructed table's parts, in the final state numbering.
pub(crate) struct Constructed {
    /// The action, goto, valid-terminal and accessing-symbol tables.
    pub(crate) tables: Tables,
    /// The kernel item cores of each state.
    pub(crate) kernels: Vec<Vec<Item>>,
}

/// Constructs the tables of `kind` for `g`; conflicts are an error naming the rule,
/// the lookahead and both actions.
pub(crate) fn construct(g: &Grammar, kind: TableKind) -> Result<Constructed, GrammarError> {
    let nullable = g.nullable();
    let b = Builder { g, t_count: g.terminals.len(), first: first_sets(g, &nullable), nullable };
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
    let kernels = order.iter().map(|&o| automaton.kernels[o as usize].clone()).collect();
    Ok(Constructed { tables, kernels })
}
