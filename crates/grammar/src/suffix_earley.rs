//! An Earley recognizer for *suffixes* of sentences: it accepts a lexeme sequence `s`
//! iff some sentence of the grammar ends with `s` (`∃ z. z s ∈ L`), which decides
//! whether a fill-in-the-middle suffix can be joined at all.
//!
//! Substring parsing after Rekers & Koorn: the text before `s` is unknown, written
//! ⊥. The first set holds every item `A → α • β` (β possibly empty) with origin ⊥ (α derived from the
//! unknown part). A completed item with origin ⊥ climbs the right spine: it advances
//! every occurrence `B → γ A • δ` of its left-hand side, again with origin ⊥ (γ in
//! the unknown part). Items with a real origin are ordinary Earley items. The text
//! is accepted when the start symbol completes with origin ⊥ (or 0): its derivation
//! spans the unknown part and ends at the end of `s`. Exact for grammars whose
//! nonterminals are all productive (every γ is derivable), like ours.
//!
//! It implements [`TokenParser`], so the byte-level [`crate::Recognizer`] drives it
//! with the real lexer and Python layer, started in a chosen layout
//! ([`crate::Recognizer::with_layout`]).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use crate::grammar::{Grammar, Symbol, TerminalId};
use crate::termset::TermSet;
use crate::token_parser::TokenParser;

/// The unknown origin.
const BOT: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Item {
    prod: u32,
    dot: u32,
    origin: u32,
}

#[derive(Debug)]
struct Set {
    items: Vec<Item>,
    /// (nonterminal after the dot, item index), sorted.
    waiting: Vec<(u32, u32)>,
}

/// Grammar data shared by suffix recognizers: nullable nonterminals, every
/// occurrence of each nonterminal, and the first set.
#[derive(Debug)]
pub struct SuffixGrammar {
    grammar: Arc<Grammar>,
    nullable: Vec<bool>,
    /// Per nonterminal: (production, dot just after the occurrence).
    occ: Vec<Vec<(u32, u32)>>,
    first: Arc<Set>,
}

impl SuffixGrammar {
    /// Prepares `grammar`; cached per grammar.
    pub fn for_grammar(grammar: &Arc<Grammar>) -> Arc<Self> {
        static CACHE: Mutex<Vec<(usize, Arc<SuffixGrammar>)>> = Mutex::new(Vec::new());
        let key = Arc::as_ptr(grammar) as usize;
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, g)) = cache.iter().find(|(k, _)| *k == key) {
            return g.clone();
        }
        let g = Arc::new(Self::new(grammar.clone()));
        cache.push((key, g.clone()));
        g
    }

    fn new(grammar: Arc<Grammar>) -> Self {
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
        let mut occ = vec![Vec::new(); g.nonterminals.len()];
        let mut items = Vec::new();
        for (pi, p) in g.productions.iter().enumerate() {
            for (d, s) in p.rhs.iter().enumerate() {
                if let Symbol::N(n) = s {
                    occ[*n as usize].push((pi as u32, d as u32 + 1));
                }
                items.push(Item { prod: pi as u32, dot: d as u32, origin: BOT });
            }
            // Completed too: the unknown text may end with a whole A.
            items.push(Item { prod: pi as u32, dot: p.rhs.len() as u32, origin: BOT });
        }
        let first = Arc::new(make_set(g, items));
        SuffixGrammar { grammar, nullable, occ, first }
    }
}

fn next_sym(g: &Grammar, it: &Item) -> Option<Symbol> {
    g.productions[it.prod as usize].rhs.get(it.dot as usize).copied()
}

fn make_set(g: &Grammar, items: Vec<Item>) -> Set {
    let mut waiting: Vec<(u32, u32)> = items
        .iter()
        .enumerate()
        .filter_map(|(i, it)| match next_sym(g, it) {
            Some(Symbol::N(n)) => Some((n, i as u32)),
            _ => None,
        })
        .collect();
    waiting.sort_unstable();
    Set { items, waiting }
}

/// The suffix recognizer (see the module doc).
#[derive(Clone, Debug)]
pub struct SuffixEarley {
    g: Arc<SuffixGrammar>,
    sets: Vec<Arc<Set>>,
}

impl SuffixEarley {
    /// A recognizer before the first lexeme of the suffix.
    pub fn new(g: Arc<SuffixGrammar>) -> Self {
        let first = g.first.clone();
        SuffixEarley { g, sets: vec![first] }
    }

    /// Items in the last set (a size measure).
    pub fn last_set_len(&self) -> usize {
        self.sets.last().map_or(0, |s| s.items.len())
    }

    fn close(&self, seeds: Vec<Item>) -> Set {
        let sg = &*self.g;
        let g = &*sg.grammar;
        let cur = self.sets.len() as u32;
        let mut items = Vec::with_capacity(seeds.len() * 4);
        let mut seen: HashSet<Item> = HashSet::with_capacity(seeds.len() * 8);
        for s in seeds {
            if seen.insert(s) {
                items.push(s);
            }
        }
        let mut predicted = vec![false; g.nonterminals.len()];
        let mut climbed = vec![false; g.nonterminals.len()];
        let mut i = 0;
        while i < items.len() {
            let it = items[i];
            i += 1;
            match next_sym(g, &it) {
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
                    if sg.nullable[b as usize] {
                        let n = Item { dot: it.dot + 1, ..it };
                        if seen.insert(n) {
                            items.push(n);
                        }
                    }
                }
                Some(Symbol::T(_)) => {}
                None => {
                    let lhs = g.productions[it.prod as usize].lhs;
                    if it.origin == BOT {
                        if !climbed[lhs as usize] {
                            climbed[lhs as usize] = true;
                            for &(p, d) in &sg.occ[lhs as usize] {
                                let n = Item { prod: p, dot: d, origin: BOT };
                                if seen.insert(n) {
                                    items.push(n);
                                }
                            }
                        }
                    } else if it.origin != cur {
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
        make_set(g, items)
    }
}

impl TokenParser for SuffixEarley {
    fn feed(&mut self, terms: &[TerminalId]) -> bool {
        let g = &*self.g.grammar;
        let last = self.sets.last().unwrap().clone();
        let seeds: Vec<Item> = last
            .items
            .iter()
            .filter(|it| matches!(next_sym(g, it), Some(Symbol::T(t)) if terms.contains(&t)))
            .map(|it| Item { dot: it.dot + 1, ..*it })
            .collect();
        if seeds.is_empty() {
            return false;
        }
        let set = self.close(seeds);
        self.sets.push(Arc::new(set));
        true
    }

    fn acceptable(&mut self, out: &mut TermSet) {
        out.clear();
        let g = &*self.g.grammar;
        for it in self.sets.last().unwrap().items.iter() {
            if let Some(Symbol::T(t)) = next_sym(g, it) {
                out.insert(t);
            }
        }
    }

    fn accepts_end(&mut self) -> bool {
        let g = &*self.g.grammar;
        self.sets.last().unwrap().items.iter().any(|it| {
            (it.origin == BOT || it.origin == 0)
                && g.productions[it.prod as usize].lhs == g.start
                && it.dot as usize == g.productions[it.prod as usize].rhs.len()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_of_sentences() {
        let g =
            Arc::new(Grammar::parse("start: e\ne: e \"+\" e | \"x\" | \"(\" e \")\"\n").unwrap());
        let t = |n: &str| g.terminal(n).unwrap();
        let (x, plus, lp, rp) = (t("\"x\""), t("\"+\""), t("\"(\""), t("\")\""));
        let sg = SuffixGrammar::for_grammar(&g);
        let accepts = |seq: &[TerminalId]| {
            let mut p = SuffixEarley::new(sg.clone());
            seq.iter().all(|&t| p.feed(&[t])) && p.accepts_end()
        };
        assert!(accepts(&[x, rp, plus, x])); // (x + ( x ) + x
        assert!(accepts(&[rp, rp]));
        assert!(accepts(&[]));
        assert!(accepts(&[plus, x]));
        assert!(!accepts(&[x, x]));
        assert!(!accepts(&[plus]), "ends with an operator");
        assert!(!accepts(&[lp]), "an unclosed bracket");
        assert!(!accepts(&[x, lp, x, rp]), "x ( x ) is no suffix");
    }
}
