//! The incremental LR parser: a small set of LR stacks driven by an [`LrTable`].
//!
//! Usually there is one stack. A lexeme that may be several terminals (a Python soft
//! keyword such as `match` is also a NAME; a Go identifier is NAME and DNAME, a
//! declared name) forks one stack per reading; readings that
//! hit an error are dropped, so the table stays conflict-free and the parser stays
//! deterministic in practice (forks die within a few lexemes). Clone is a copy of a few
//! small vectors; `clone_from` reuses their allocations.

use std::sync::Arc;

use crate::grammar::{ProductionId, TerminalId, END};
use crate::ids::LrState;
use crate::lr_table::{Action, LrTable};
use crate::small_copy::copy_vec;
use crate::termset::TermSet;
use crate::token_parser::TokenParser;

/// Incremental LR parser over a shared table.
#[derive(Debug)]
pub struct LrParser {
    table: Arc<LrTable>,
    stacks: Vec<Vec<LrState>>,
    spare: Vec<Vec<LrState>>,
    scratch: Vec<LrState>,
}

impl Clone for LrParser {
    fn clone(&self) -> Self {
        LrParser {
            table: self.table.clone(),
            stacks: self.stacks.clone(),
            spare: Vec::new(),
            scratch: Vec::new(),
        }
    }
    fn clone_from(&mut self, src: &Self) {
        if !Arc::ptr_eq(&self.table, &src.table) {
            self.table = src.table.clone();
        }
        // Stack by stack, one copy each (see `small_copy`); surplus stacks are kept
        // as spares for later forks.
        while self.stacks.len() > src.stacks.len() {
            let s = self.stacks.pop().unwrap_or_default();
            self.spare.push(s);
        }
        while self.stacks.len() < src.stacks.len() {
            let s = self.spare.pop().unwrap_or_default();
            self.stacks.push(s);
        }
        for (d, s) in self.stacks.iter_mut().zip(&src.stacks) {
            copy_vec(d, s);
        }
    }
}

/// Applies terminal `t` to `stack` in place; false on error (stack is then garbage).
#[inline]
fn apply(table: &LrTable, stack: &mut Vec<LrState>, t: TerminalId) -> bool {
    loop {
        let top = *stack.last().unwrap();
        match table.action(top, t) {
            Action::Shift(s) => {
                stack.push(s);
                return true;
            }
            Action::Reduce(p) => {
                let (lhs, len) = table.production(p);
                stack.truncate(stack.len() - len as usize);
                let top = *stack.last().unwrap();
                match table.goto(top, lhs) {
                    Some(g) => stack.push(g),
                    None => return false,
                }
            }
            Action::Accept => return true,
            Action::Error => return false,
        }
    }
}

/// Whether `t` can be shifted (or accepted) on `stack`, without changing it.
#[inline]
fn can_take(table: &LrTable, stack: &[LrState], t: TerminalId, extra: &mut Vec<LrState>) -> bool {
    extra.clear();
    let mut sp = stack.len();
    loop {
        let top = *extra.last().unwrap_or(&stack[sp - 1]);
        match table.action(top, t) {
            Action::Shift(_) | Action::Accept => return true,
            Action::Error => return false,
            Action::Reduce(p) => {
                let (lhs, len) = table.production(p);
                let mut len = len as usize;
                let from_extra = len.min(extra.len());
                extra.truncate(extra.len() - from_extra);
                len -= from_extra;
                sp -= len;
                let top = *extra.last().unwrap_or(&stack[sp - 1]);
                match table.goto(top, lhs) {
                    Some(g) => extra.push(g),
                    None => return false,
                }
            }
        }
    }
}

/// Acceptable terminals among `terms` on the virtual stack `stack[..sp] ++ extra`:
/// terminals are grouped by their action, and each distinct reduction is simulated
/// once for its whole group (merged tables reduce on terminals that may then fail).
fn explore(
    table: &LrTable,
    stack: &[LrState],
    sp: usize,
    extra: &[LrState],
    terms: &[TerminalId],
    out: &mut TermSet,
) {
    let top = *extra.last().unwrap_or(&stack[sp - 1]);
    let mut groups: Vec<(ProductionId, Vec<TerminalId>)> = Vec::new();
    for &t in terms {
        match table.action(top, t) {
            Action::Shift(_) | Action::Accept => {
                out.insert(t);
            }
            Action::Error => {}
            Action::Reduce(p) => match groups.iter_mut().find(|g| g.0 == p) {
                Some(g) => g.1.push(t),
                None => groups.push((p, vec![t])),
            },
        }
    }
    for (p, ts) in groups {
        let (lhs, len) = table.production(p);
        let mut len = len as usize;
        let mut ext = extra.to_vec();
        let from_extra = len.min(ext.len());
        ext.truncate(ext.len() - from_extra);
        len -= from_extra;
        let nsp = sp - len;
        let ntop = *ext.last().unwrap_or(&stack[nsp - 1]);
        if let Some(g) = table.goto(ntop, lhs) {
            ext.push(g);
            explore(table, stack, nsp, &ext, &ts, out);
        }
    }
}

impl LrParser {
    /// A parser at the start of input.
    pub fn new(table: Arc<LrTable>) -> Self {
        LrParser {
            table,
            stacks: vec![vec![LrState::START]],
            spare: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// The table it runs on.
    pub fn table(&self) -> &Arc<LrTable> {
        &self.table
    }

    /// Number of live LR stacks (1 except just after an ambiguous soft keyword).
    pub fn num_stacks(&self) -> usize {
        self.stacks.len()
    }

    /// The live LR stacks (state ids, bottom first): one, or one per reading of a
    /// soft keyword still alive.
    pub fn stacks(&self) -> &[Vec<LrState>] {
        &self.stacks
    }

    /// Whether terminal `t` is acceptable next (cheaper than [`TokenParser::acceptable`]
    /// for one terminal).
    pub fn accepts(&mut self, t: TerminalId) -> bool {
        let table = &*self.table;
        self.stacks.iter().any(|s| can_take(table, s, t, &mut self.scratch))
    }
}

impl TokenParser for LrParser {
    fn feed(&mut self, terms: &[TerminalId]) -> bool {
        let table = &*self.table;
        if terms.len() == 1 && self.stacks.len() == 1 {
            return apply(table, &mut self.stacks[0], terms[0]);
        }
        if self.stacks.len() == 1 {
            // Two or more readings on one stack (Go lexes every identifier as NAME
            // and DNAME): usually only one survives, which then needs no copy.
            let mut alive =
                terms.iter().filter(|&&t| can_take(table, &self.stacks[0], t, &mut self.scratch));
            match (alive.next(), alive.next()) {
                (None, _) => return false,
                (Some(&t), None) => return apply(table, &mut self.stacks[0], t),
                _ => {}
            }
        }
        let old = std::mem::take(&mut self.stacks);
        for st in &old {
            for &t in terms {
                if !can_take(table, st, t, &mut self.scratch) {
                    continue;
                }
                let mut s = self.spare.pop().unwrap_or_default();
                s.clone_from(st);
                apply(table, &mut s, t);
                if self.stacks.contains(&s) {
                    self.spare.push(s);
                } else {
                    self.stacks.push(s);
                }
            }
        }
        self.spare.extend(old);
        !self.stacks.is_empty()
    }

    fn acceptable(&mut self, out: &mut TermSet) {
        out.clear();
        let table = &*self.table;
        for st in &self.stacks {
            let top = *st.last().unwrap();
            if table.exact_errors {
                out.union_with(table.valid_terminals(top));
            } else {
                let terms: Vec<TerminalId> = table.valid_terminals(top).iter().collect();
                explore(table, st, st.len(), &[], &terms, out);
            }
        }
    }

    fn accepts_end(&mut self) -> bool {
        self.accepts(END)
    }

    fn lr_stacks(&self) -> Option<&[Vec<LrState>]> {
        Some(&self.stacks)
    }

    fn stack(&self) -> Vec<(LrState, Option<crate::grammar::Symbol>)> {
        let table = &*self.table;
        self.stacks.first().map_or_else(Vec::new, |st| {
            st.iter().map(|&s| (s, table.accessing_symbol(s))).collect()
        })
    }
}
