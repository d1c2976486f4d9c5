//! The Earley machinery both recognizers share: items, sets, nullable nonterminals, and
//! the chart's closure (prediction and completion) and scan. The prefix recognizer
//! ([`crate::earley`]) uses it as it is; the suffix recognizer
//! ([`crate::suffix_earley`]) adds one rule through [`Spines`]: a completed item whose
//! origin is unknown climbs the right spine of every occurrence of its left-hand side.
//!
//! Empty rules are handled with Aycock & Horspool's rule (predicting a nullable
//! nonterminal also steps over it). Sets are reference-counted so that cloning a chart
//! copies only the list of sets.

use std::collections::HashSet;
use std::sync::Arc;

use crate::grammar::{Grammar, NonterminalId, ProductionId, Symbol, TerminalId};
use crate::termset::TermSet;
use crate::token_parser::TokenParser;

/// The origin of an item whose start lies in text the recognizer never saw (the
/// suffix recognizer's ⊥).
pub(crate) const UNKNOWN_ORIGIN: u32 = u32::MAX;

/// `A → α • β` begun at set `origin`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Item {
    pub prod: ProductionId,
    pub dot: u32,
    pub origin: u32,
}

impl Item {
    fn advanced(self) -> Item {
        Item { dot: self.dot + 1, ..self }
    }
}

/// The symbol after the dot, if any.
pub(crate) fn next_sym(g: &Grammar, it: &Item) -> Option<Symbol> {
    g.productions[it.prod.index()].rhs.get(it.dot as usize).copied()
}

/// One Earley set: its items and, sorted by nonterminal, the items waiting on one (so a
/// completion finds its parents by binary search instead of a scan).
#[derive(Debug)]
pub(crate) struct Set {
    items: Vec<Item>,
    /// (nonterminal after the dot, item index), sorted.
    waiting: Vec<(NonterminalId, u32)>,
}

impl Set {
    pub(crate) fn new(g: &Grammar, items: Vec<Item>) -> Set {
        let mut waiting: Vec<(NonterminalId, u32)> = items
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

    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// The items waiting on `lhs`, advanced over it.
    fn parents_of(&self, lhs: NonterminalId) -> impl Iterator<Item = Item> + '_ {
        let from = self.waiting.partition_point(|&(n, _)| n < lhs);
        self.waiting[from..]
            .iter()
            .take_while(move |&&(n, _)| n == lhs)
            .map(|&(_, idx)| self.items[idx as usize].advanced())
    }

    /// The items that scan one of `terms`, advanced over it.
    fn scanned(&self, g: &Grammar, terms: &[TerminalId]) -> Vec<Item> {
        self.items
            .iter()
            .filter(|it| matches!(next_sym(g, it), Some(Symbol::T(t)) if terms.contains(&t)))
            .map(|it| it.advanced())
            .collect()
    }

    /// The terminals some item expects next.
    fn expected(&self, g: &Grammar, out: &mut TermSet) {
        out.clear();
        for it in &self.items {
            if let Some(Symbol::T(t)) = next_sym(g, it) {
                out.insert(t);
            }
        }
    }

    /// Whether the start symbol is complete here, begun at an origin `from` allows.
    fn completes_start(&self, g: &Grammar, from: impl Fn(u32) -> bool) -> bool {
        self.items.iter().any(|it| {
            from(it.origin)
                && g.productions[it.prod.index()].lhs == g.start
                && it.dot as usize == g.productions[it.prod.index()].rhs.len()
        })
    }
}

/// Per nonterminal, each occurrence in a right-hand side as (production, dot just after
/// it): where a completed item of unknown origin climbs to.
pub(crate) type Spines = [Vec<(ProductionId, u32)>];

/// The grammar data a chart's closure reads.
#[derive(Clone, Copy)]
pub struct Rules<'a> {
    pub grammar: &'a Grammar,
    pub nullable: &'a [bool],
    /// `Some` for the suffix recognizer: completions of unknown origin climb these.
    pub spines: Option<&'a Spines>,
}

/// What a chart recognizer needs of its grammar data: the rules its chart closes
/// over (with right spines for the suffix recognizer, without for the plain one).
pub trait ChartGrammar: std::fmt::Debug + Send + Sync + 'static {
    /// The rules, borrowed from the grammar data.
    fn rules(&self) -> Rules<'_>;
}

/// A recognizer over one [`Chart`]: [`crate::EarleyParser`] and
/// [`crate::suffix_earley::SuffixEarley`], which differ only in their grammar data
/// (`G`) and first set.
#[derive(Debug)]
pub struct ChartParser<G> {
    pub(crate) g: Arc<G>,
    pub(crate) chart: Chart,
}

impl<G> Clone for ChartParser<G> {
    fn clone(&self) -> Self {
        ChartParser { g: self.g.clone(), chart: self.chart.clone() }
    }
}

impl<G: ChartGrammar> TokenParser for ChartParser<G> {
    fn feed(&mut self, terms: &[TerminalId]) -> bool {
        self.chart.feed(self.g.rules(), terms)
    }

    fn acceptable(&mut self, out: &mut TermSet) {
        self.chart.expected(self.g.rules().grammar, out)
    }

    /// The start symbol completes from the text's start, or (the suffix recognizer)
    /// from the unknown text before it: a plain chart has no item of unknown origin.
    fn accepts_end(&mut self) -> bool {
        self.chart.completes_start(self.g.rules().grammar, |o| o == 0 || o == UNKNOWN_ORIGIN)
    }
}

/// The sets built so far, the last one current.
#[derive(Clone, Debug)]
pub(crate) struct Chart {
    sets: Vec<Arc<Set>>,
}

impl Chart {
    /// A chart whose first set is `first`.
    pub(crate) fn starting_with(first: Arc<Set>) -> Chart {
        Chart { sets: vec![first] }
    }

    /// A chart whose first set is the closure of `seeds`.
    pub(crate) fn closing(rules: Rules<'_>, seeds: Vec<Item>) -> Chart {
        let mut chart = Chart { sets: Vec::new() };
        let first = chart.close(rules, seeds);
        chart.sets.push(Arc::new(first));
        chart
    }

    pub(crate) fn sets(&self) -> &[Arc<Set>] {
        &self.sets
    }

    fn last(&self) -> &Set {
        self.sets.last().expect("a chart has a first set")
    }

    /// Scans one lexeme (any of `terms`): false, and nothing changes, when no item
    /// expects it.
    pub(crate) fn feed(&mut self, rules: Rules<'_>, terms: &[TerminalId]) -> bool {
        let seeds = self.last().scanned(rules.grammar, terms);
        if seeds.is_empty() {
            return false;
        }
        let set = self.close(rules, seeds);
        self.sets.push(Arc::new(set));
        true
    }

    /// The terminals the current set expects.
    pub(crate) fn expected(&self, g: &Grammar, out: &mut TermSet) {
        self.last().expected(g, out)
    }

    /// Whether the start symbol completes in the current set from an origin `from` allows.
    pub(crate) fn completes_start(&self, g: &Grammar, from: impl Fn(u32) -> bool) -> bool {
        self.last().completes_start(g, from)
    }

    /// Predict / complete closure of a new set (index = `self.sets.len()`).
    fn close(&self, rules: Rules<'_>, seeds: Vec<Item>) -> Set {
        let g = rules.grammar;
        let cur = self.sets.len() as u32;
        let mut closure = Closure::new(seeds);
        let mut predicted = vec![false; g.nonterminals.len()];
        let mut climbed = vec![false; g.nonterminals.len()];
        while let Some(it) = closure.next() {
            match next_sym(g, &it) {
                Some(Symbol::N(b)) => {
                    if !std::mem::replace(&mut predicted[b.index()], true) {
                        let predictions = g.nonterminals[b.index()].productions.iter();
                        closure.extend(predictions.map(|&q| Item { prod: q, dot: 0, origin: cur }));
                    }
                    if rules.nullable[b.index()] {
                        closure.add(it.advanced());
                    }
                }
                Some(Symbol::T(_)) => {}
                None => {
                    let lhs = g.productions[it.prod.index()].lhs;
                    match (it.origin, rules.spines) {
                        (UNKNOWN_ORIGIN, Some(spines)) => {
                            let first_time = !std::mem::replace(&mut climbed[lhs.index()], true);
                            closure.climb(first_time.then(|| &spines[lhs.index()][..]));
                        }
                        // Empty-spanning completions are covered by the nullable rule.
                        (origin, _) if origin != cur => {
                            closure.extend(self.sets[origin as usize].parents_of(lhs))
                        }
                        _ => {}
                    }
                }
            }
        }
        closure.into_set(g)
    }
}

/// A set under construction: its items in order, each once, and the next to process.
struct Closure {
    items: Vec<Item>,
    seen: HashSet<Item>,
    next: usize,
}

impl Closure {
    fn new(seeds: Vec<Item>) -> Closure {
        let mut c = Closure {
            items: Vec::with_capacity(seeds.len() * 4),
            seen: HashSet::with_capacity(seeds.len() * 8),
            next: 0,
        };
        c.extend(seeds);
        c
    }

    fn add(&mut self, it: Item) {
        if self.seen.insert(it) {
            self.items.push(it);
        }
    }

    fn extend(&mut self, items: impl IntoIterator<Item = Item>) {
        for it in items {
            self.add(it);
        }
    }

    /// Adds the items just past each occurrence of a nonterminal completed from an
    /// unknown origin (`None`: it climbed before in this set).
    fn climb(&mut self, occurrences: Option<&[(ProductionId, u32)]>) {
        for &(prod, dot) in occurrences.unwrap_or_default() {
            self.add(Item { prod, dot, origin: UNKNOWN_ORIGIN });
        }
    }

    fn next(&mut self) -> Option<Item> {
        let it = self.items.get(self.next).copied();
        self.next += 1;
        it
    }

    fn into_set(self, g: &Grammar) -> Set {
        Set::new(g, self.items)
    }
}
