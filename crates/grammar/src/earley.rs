//! An Earley recognizer over the same BNF grammar as the LR tables.
//!
//! It accepts any context-free grammar (no table conflicts to worry about), which is
//! what the fill-in-the-middle quotients build on. The machinery (items, sets,
//! closure) is [`crate::earley_core`]'s, shared with the suffix recognizer; cloning a
//! recognizer copies only its list of sets.

use std::sync::Arc;

use crate::earley_core::{Chart, ChartGrammar, ChartParser, Item, Rules};
use crate::grammar::Grammar;

/// Grammar data the Earley recognizer needs, shared between recognizers.
#[derive(Debug)]
pub struct EarleyGrammar {
    grammar: Arc<Grammar>,
    nullable: Vec<bool>,
}

impl EarleyGrammar {
    /// Prepares `grammar` (computes nullable nonterminals).
    pub fn new(grammar: Arc<Grammar>) -> Arc<Self> {
        let nullable = grammar.nullable();
        Arc::new(EarleyGrammar { grammar, nullable })
    }
}

impl ChartGrammar for EarleyGrammar {
    fn rules(&self) -> Rules<'_> {
        Rules { grammar: &self.grammar, nullable: &self.nullable, spines: None }
    }
}

/// An incremental Earley recognizer.
pub type EarleyParser = ChartParser<EarleyGrammar>;

impl EarleyParser {
    /// A recognizer at the start of input.
    pub fn new(g: Arc<EarleyGrammar>) -> Self {
        let start = g.grammar.start;
        let seeds: Vec<Item> = g.grammar.nonterminals[start.index()]
            .productions
            .iter()
            .map(|&q| Item { prod: q, dot: 0, origin: 0 })
            .collect();
        let chart = Chart::closing(g.rules(), seeds);
        ChartParser { g, chart }
    }

    /// Number of lexemes consumed.
    pub fn len(&self) -> usize {
        self.chart.sets().len() - 1
    }

    /// Whether nothing has been consumed.
    pub fn is_empty(&self) -> bool {
        self.chart.sets().len() == 1
    }

    /// Total number of items in the chart (a size measure for benchmarks).
    pub fn num_items(&self) -> usize {
        self.chart.sets().iter().map(|s| s.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::termset::TermSet;
    use crate::token_parser::TokenParser;

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
