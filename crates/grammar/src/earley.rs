//! An Earley recognizer over the same BNF grammar as the LR tables.
//!
//! It accepts any context-free grammar (no table conflicts to worry about), which is
//! what the fill-in-the-middle quotients build on. Empty rules are handled with
//! Aycock & Horspool's rule (predicting a nullable nonterminal also steps over it).
//! Sets are reference-counted so that cloning a recognizer copies only the set list.

use std::collections::HashSet;
use std::rc::Rc;
use std::sync::Arc;

use crate::grammar::{Grammar, Symbol, TerminalId};
use crate::termset::TermSet;
use crate::token_parser::TokenParser;

/// Grammar data the Earley recognizer needs, shared between recognizers.
#[derive(Debug)]
pub struct EarleyGrammar {
    grammar: Arc<Grammar>,
    nullable: Vec<bool>,
}

impl EarleyGrammar {
    /// Prepares `grammar` (computes nullable nonterminals).
    pub fn new(grammar: Arc<Grammar>) -> Arc<Self> {
        let g = &grammar;
        let mut nullable = vec![false; g.nonterminals.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for p in &g.productions {
                if !nullable[p.lhs as usize]
                    && p.rhs.iter().all(|s| matches!(s, Symbol::N(n) if nullable[*n as usize]))
                {
                    nullable[p.lhs as usize] = true;
                    changed = true;
                }
            }
        }
        Arc::new(EarleyGrammar { grammar, nullable })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Item {
    prod: u32,
    dot: u32,
    origin: u32,
}

/// One Earley set: its items and, sorted by nonterminal, the items waiting on one
/// (so a completion finds its parents by binary search instead of a scan).
#[derive(Debug)]
struct Set {
    items: Vec<Item>,
    waiting: Vec<(u32, u32)>,
}

/// An incremental Earley recognizer.
#[derive(Clone, Debug)]
pub struct EarleyParser {
    g: Arc<EarleyGrammar>,
    sets: Vec<Rc<Set>>,
}

impl EarleyParser {
    /// A recognizer at the start of input.
    pub fn new(g: Arc<EarleyGrammar>) -> Self {
        let mut p = EarleyParser { g, sets: Vec::new() };
        let start = p.g.grammar.start;
        let seeds: Vec<Item> = p.g.grammar.nonterminals[start as usize]
            .productions
            .iter()
            .map(|&q| Item { prod: q, dot: 0, origin: 0 })
            .collect();
        let set = p.close(seeds);
        p.sets.push(Rc::new(set));
        p
    }

    fn make_set(&self, items: Vec<Item>) -> Set {
        let mut waiting: Vec<(u32, u32)> = items
            .iter()
            .enumerate()
            .filter_map(|(i, it)| match self.next_sym(it) {
                Some(Symbol::N(n)) => Some((n, i as u32)),
                _ => None,
            })
            .collect();
        waiting.sort_unstable();
        Set { items, waiting }
    }

    /// Number of lexemes consumed.
    pub fn len(&self) -> usize {
        self.sets.len() - 1
    }

    /// Whether nothing has been consumed.
    pub fn is_empty(&self) -> bool {
        self.sets.len() == 1
    }

    /// Total number of items in the chart (a size measure for benchmarks).
    pub fn num_items(&self) -> usize {
        self.sets.iter().map(|s| s.items.len()).sum()
    }

    fn next_sym(&self, it: &Item) -> Option<Symbol> {
        self.g.grammar.productions[it.prod as usize].rhs.get(it.dot as usize).copied()
    }

    /// Predict / complete closure of a new set (index = self.sets.len()).
    fn close(&self, seeds: Vec<Item>) -> Set {
        let g = &self.g.grammar;
        let cur = self.sets.len() as u32;
        let mut items = Vec::with_capacity(seeds.len() * 4);
        let mut seen: HashSet<Item> = HashSet::with_capacity(seeds.len() * 8);
        for s in seeds {
            if seen.insert(s) {
                items.push(s);
            }
        }
        let mut predicted = vec![false; g.nonterminals.len()];
        let mut i = 0;
        while i < items.len() {
            let it = items[i];
            i += 1;
            match self.next_sym(&it) {
                Some(Symbol::N(b)) => {
                    if !predicted[b as usize] {
                        predicted[b as usize] = true;
                        for &q in &g.nonterminals[b as usize].productions {
                            let n = Item { prod: q, dot: 0, origin: cur };
                            if seen.insert(n) {
                                items.push(n);
                            }
                        }
                    }
                    if self.g.nullable[b as usize] {
                        let n = Item { dot: it.dot + 1, ..it };
                        if seen.insert(n) {
                            items.push(n);
                        }
                    }
                }
                Some(Symbol::T(_)) => {}
                None => {
                    let lhs = g.productions[it.prod as usize].lhs;
                    // Empty-spanning completions are covered by the nullable rule above.
                    if it.origin != cur {
                        let origin = &self.sets[it.origin as usize];
                        let from = origin.waiting.partition_point(|&(n, _)| n < lhs);
                        for &(n, idx) in &origin.waiting[from..] {
                            if n != lhs {
                                break;
                            }
                            let w = origin.items[idx as usize];
                            let n = Item { dot: w.dot + 1, ..w };
                            if seen.insert(n) {
                                items.push(n);
                            }
                        }
                    }
                }
            }
        }
        self.make_set(items)
    }
}

impl TokenParser for EarleyParser {
    fn feed(&mut self, terms: &[TerminalId]) -> bool {
        let last = self.sets.last().unwrap().clone();
        let seeds: Vec<Item> = last
            .items
            .iter()
            .filter(|it| matches!(self.next_sym(it), Some(Symbol::T(t)) if terms.contains(&t)))
            .map(|it| Item { dot: it.dot + 1, ..*it })
            .collect();
        if seeds.is_empty() {
            return false;
        }
        let set = self.close(seeds);
        self.sets.push(Rc::new(set));
        true
    }

    fn acceptable(&mut self, out: &mut TermSet) {
        out.clear();
        for it in self.sets.last().unwrap().items.iter() {
            if let Some(Symbol::T(t)) = self.next_sym(it) {
                out.insert(t);
            }
        }
    }

    fn accepts_end(&mut self) -> bool {
        let g = &self.g.grammar;
        self.sets.last().unwrap().items.iter().any(|it| {
            it.origin == 0
                && g.productions[it.prod as usize].lhs == g.start
                && it.dot as usize == g.productions[it.prod as usize].rhs.len()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognizes_ambiguous_and_empty() {
        let g = Arc::new(
            Grammar::parse("start: e\ne: e \"+\" e | \"x\" | opt \"(\" e \")\"\nopt: | \"-\"\n")
                .unwrap(),
        );
        let x = g.terminal("\"x\"").unwrap();
        let plus = g.terminal("\"+\"").unwrap();
        let lp = g.terminal("\"(\"").unwrap();
        let rp = g.terminal("\")\"").unwrap();
        let eg = EarleyGrammar::new(g.clone());
        let mut p = EarleyParser::new(eg.clone());
        let mut acc = TermSet::new(g.num_terminals());
        p.acceptable(&mut acc);
        assert!(acc.contains(x) && acc.contains(lp));
        for t in [x, plus, lp, x, rp] {
            assert!(p.feed(&[t]));
        }
        assert!(p.accepts_end());
        assert!(p.feed(&[plus]));
        assert!(!p.accepts_end());
        assert!(!p.clone().feed(&[rp]));
    }
}
