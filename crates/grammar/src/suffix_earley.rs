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

use std::sync::Arc;

use crate::earley_core::{Chart, ChartGrammar, ChartParser, Item, Rules, Set, UNKNOWN_ORIGIN};
use crate::grammar::{Grammar, ProductionId, Symbol};

/// Grammar data shared by suffix recognizers: nullable nonterminals, every
/// occurrence of each nonterminal, and the first set.
#[derive(Debug)]
pub struct SuffixGrammar {
    grammar: Arc<Grammar>,
    nullable: Vec<bool>,
    /// Per nonterminal: (production, dot just after the occurrence).
    spines: Vec<Vec<(ProductionId, u32)>>,
    first: Arc<Set>,
}

impl SuffixGrammar {
    /// Prepares `grammar`: one pass over the productions, once per suffix check (81 us
    /// for Python's on the 2-core dev box, against the pointer-keyed global cache it
    /// replaces, which could hand a dropped grammar's data to a new one at its address).
    pub fn new(grammar: Arc<Grammar>) -> Arc<Self> {
        let g = &grammar;
        let nullable = g.nullable();
        let mut spines = vec![Vec::new(); g.nonterminals.len()];
        let mut items = Vec::new();
        for (pi, p) in g.productions.iter().enumerate() {
            for (d, s) in p.rhs.iter().enumerate() {
                if let Symbol::N(n) = s {
                    spines[n.index()].push((ProductionId::from_index(pi), d as u32 + 1));
                }
                items.push(Item {
                    prod: ProductionId::from_index(pi),
                    dot: d as u32,
                    origin: UNKNOWN_ORIGIN,
                });
            }
            // Completed too: the unknown text may end with a whole A.
            items.push(Item {
                prod: ProductionId::from_index(pi),
                dot: p.rhs.len() as u32,
                origin: UNKNOWN_ORIGIN,
            });
        }
        let first = Arc::new(Set::new(g, items));
        Arc::new(SuffixGrammar { grammar, nullable, spines, first })
    }
}

impl ChartGrammar for SuffixGrammar {
    fn rules(&self) -> Rules<'_> {
        Rules { grammar: &self.grammar, nullable: &self.nullable, spines: Some(&self.spines) }
    }
}

/// The suffix recognizer (see the module doc).
pub type SuffixEarley = ChartParser<SuffixGrammar>;

impl SuffixEarley {
    /// A recognizer before the first lexeme of the suffix.
    pub fn new(g: Arc<SuffixGrammar>) -> Self {
        let chart = Chart::starting_with(g.first.clone());
        ChartParser { g, chart }
    }

    /// Items in the last set (a size measure).
    pub fn last_set_len(&self) -> usize {
        self.chart.sets().last().map_or(0, |s| s.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::TerminalId;
    use crate::token_parser::TokenParser;

    #[test]
    fn suffixes_of_sentences() {
        let g =
            Arc::new(Grammar::parse("start: e\ne: e \"+\" e | \"x\" | \"(\" e \")\"\n").unwrap());
        let t = |n: &str| g.terminal(n).unwrap();
        let (x, plus, lp, rp) = (t("\"x\""), t("\"+\""), t("\"(\""), t("\")\""));
        let sg = SuffixGrammar::new(g.clone());
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
