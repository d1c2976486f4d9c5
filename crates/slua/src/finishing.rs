//! Steering towards the end of a script: the *finishing mask*, for a decoder that
//! must wrap up before its token budget runs out.
//!
//! A small model left to itself can loop or wander (nest one more function, write
//! one more statement) long past any budget. Near the end of the budget the decoder
//! can sample from [`SluaConstraint::fill_finishing_mask`] instead of the full mask:
//! the allowed tokens that strictly lower a *remaining cost* to a finished script.
//!
//! The remaining cost of a state is a pair compared lexicographically:
//! 1. the number of lexemes still to write: for each alternative of the current
//!    segment that the walker's finishing order ranks best (closing outer nodes
//!    first, then returns and literals; [`crate::walker`]), one for the segment plus
//!    the length of the *finishing plan* after it ([`Tree::finish_len`]: that order
//!    followed lexeme by lexeme with shortest texts);
//! 2. the bytes still needed to complete that alternative's lexeme (a distance in
//!    its DFA).
//!
//! The cost is the least pair over those alternatives the unfinished segment still
//! matches (all of them when it matches none, i.e. the model had turned elsewhere
//! before the wrap-up began). A token that ends exactly where a segment ends is
//! scored by the plan length after it with an infinite second part, a bound that
//! keeps every accepted step a real decrease. Every token of the finishing mask
//! therefore lowers the cost strictly, so taking only such tokens ends the script in
//! at most (lexemes to finish + 1) × (longest lexeme + 2) tokens. The mask is never
//! empty while some token is allowed: one-byte tokens along the best alternative
//! always lower the cost, and if a vocabulary lacks them the allowed tokens of least
//! cost are offered instead. Leading whitespace alone never lowers the cost.
//!
//! Costs are memoised per tree (plans after each alternative, distances per DFA
//! state), and trees after boundaries are the memoised ones of the mask walk, so a
//! finishing mask costs one mask plus one replay of each allowed token.
//!
//! [`Tree::finish_len`]: crate::tree::Tree::finish_len

use std::rc::Rc;

use espalier_constraint::{Constraint, TokenSet, Vocab};

use crate::alt::Alt;
use crate::finishing_order::choice_cost;
use crate::lexeme::Lex;
use crate::node::Choice;
use crate::scoped_names::ScopedNames;
use crate::seg_dfa::SegDfa;
use crate::slua_constraint::SluaConstraint;
use crate::tree::Segment;
use crate::trie_walk::{End, TrieWalk};

/// Plans longer than this many lexemes count as stuck.
const PLAN_CAP: usize = 600;

/// A cost no state reaches: no alternative left.
const INF: (u32, u32) = (u32::MAX, u32::MAX);

impl SluaConstraint {
    /// The allowed tokens that strictly lower the remaining cost to a finished
    /// script (see [`crate::finishing`]): what a decoder samples from to wrap up
    /// before its token budget ends. Taking only these tokens finishes the script.
    /// Never empty while the script is unfinished and some token is allowed (then
    /// the allowed tokens of least cost); once the script is complete, EOS only.
    /// Costs about one [`Constraint::fill_mask`] plus one replay per allowed token.
    pub fn fill_finishing_mask(&mut self, vocab: &Vocab, mask: &mut TokenSet) {
        self.fill_mask(vocab, mask);
        if self.is_complete() || mask.is_empty() {
            return;
        }
        let this: &SluaConstraint = self;
        // The model may have turned away from every best-ranked alternative before
        // the wrap-up: then all alternatives of this segment are scored.
        let all = this.cost_inside(this.partial(), false) == INF;
        let now = this.cost_inside(this.partial(), all);
        let mut walk = TrieWalk::new(this);
        let mut scored: Vec<(usize, (u32, u32))> = Vec::with_capacity(mask.count());
        for id in mask.iter() {
            let cost = walk
                .with_pushed(vocab.bytes(id as u32), |w| match w.end() {
                    End::Boundary(c, seg) => c.cost_after(&seg),
                    End::Inside(c, seg) => c.cost_inside(&seg, all && std::ptr::eq(c, this)),
                })
                .unwrap_or(INF);
            scored.push((id, cost));
        }
        let least = scored.iter().map(|(_, c)| *c).min().unwrap_or(INF);
        let keep = |c: (u32, u32)| if least < now { c < now } else { c == least };
        mask.clear();
        for (id, c) in scored {
            if keep(c) {
                mask.insert(id);
            }
        }
    }

    /// How many lexemes the finishing plan still writes from here (0 once the
    /// script is complete): a measure for deciding when to start wrapping up.
    pub fn lexemes_to_finish(&self) -> usize {
        if self.tree().has_finished() {
            return 0;
        }
        let all = self.cost_inside(self.partial(), false) == INF;
        match self.cost_inside(self.partial(), all) {
            (u32::MAX, _) => PLAN_CAP,
            (n, _) => n as usize,
        }
    }

    /// The cost after completing the current segment with `seg`: the plan length
    /// from the tree after it, with an infinite second part (see the module doc).
    /// Plans count lexemes, which do not depend on the text of a new name, so the
    /// memo leaves names out: one plan per alternative and look-ahead byte.
    pub(crate) fn cost_after(&self, seg: &[u8]) -> (u32, u32) {
        let Some(mut key) = self.child_key(seg) else { return INF };
        key.name = None;
        let cache = self.finish_cache();
        let hit = cache.after.borrow().get(&key).copied();
        let g = hit.unwrap_or_else(|| {
            let g = (|| {
                let mut tree = self.tree().clone();
                tree.feed_segment(std::str::from_utf8(seg).ok()?).ok()?;
                Some(tree.finish_len(PLAN_CAP) as u32)
            })()
            .unwrap_or(u32::MAX);
            cache.after.borrow_mut().insert(key, g);
            g
        });
        (g, u32::MAX)
    }

    /// The cost with `seg` as the bytes of the unfinished segment, over the
    /// best-ranked alternatives (or every alternative when `all`).
    pub(crate) fn cost_inside(&self, seg: &[u8], all: bool) -> (u32, u32) {
        let Some(segment) = self.segment_ref() else { return (0, 0) };
        let cache = self.finish_cache();
        let (parts, best) = cache.parts.get_or_init(|| {
            let parts = parts(segment);
            let least = parts.iter().map(|p| p.1).min().unwrap_or(0);
            let best = (0..parts.len()).filter(|&k| parts[k].1 == least).collect();
            (parts, best)
        });
        let every: Vec<usize>;
        let alts: &[usize] = if all {
            every = (0..parts.len()).collect();
            &every
        } else {
            best
        };
        let mut cost = INF;
        for &k in alts {
            let Some((g, dfa)) = self.alt_cost(k) else { continue };
            let Some(s) = dfa.run(dfa.start(), seg) else { continue };
            if let Some(d) = dfa.distance(s) {
                cost = cost.min((g, d));
            }
        }
        cost
    }

    /// 1 + the plan length after part `k` written shortest, and its DFA.
    fn alt_cost(&self, k: usize) -> Option<(u32, Rc<SegDfa>)> {
        let cache = self.finish_cache();
        if let Some(hit) = cache.alts.borrow().get(&k) {
            return hit.clone();
        }
        let computed = (|| {
            let alt = &cache.parts.get()?.0.get(k)?.0;
            // A names-in-scope part's regex lists the scope: built, not cached in
            // the environment (the memo here keeps it for this tree).
            let dfa = match alt.lex {
                Lex::Scoped(_) => Rc::new(SegDfa::build(&alt.regex()).ok()?),
                _ => self.tree().env().dfas.get(&alt.regex()).ok()?,
            };
            let lexeme = alt.lex.shortest(alt.done.first().copied())?;
            let mut text = lexeme[alt.done.len()..].to_string();
            if alt.la.is_some() {
                text.push(' ');
            }
            let mut tree = self.tree().clone();
            tree.feed_segment(&text).ok()?;
            Some((1 + tree.finish_len(PLAN_CAP) as u32, dfa))
        })();
        cache.alts.borrow_mut().insert(k, computed.clone());
        computed
    }
}

/// The segment's alternatives as the finishing cost sees them, with their rank in
/// the walker's finishing order: the names in scope split by kind, since the plan
/// after a variable (and its rank: functions last) depends on its kind, and the cost
/// of a partly written name must be that of its own kind (scoring it by another
/// kind's plan could leave no token that lowers the cost).
fn parts(segment: &Segment) -> Vec<(Alt, usize)> {
    let mut out = Vec::new();
    for alt in &segment.alts {
        let (depth, choice) = &segment.choices[alt.action];
        match &alt.lex {
            Lex::Scoped(names) => {
                for kind in &names.kinds {
                    let one =
                        Rc::new(ScopedNames { kinds: vec![kind.clone()], ..(**names).clone() });
                    let rank = choice_cost(
                        *depth,
                        &Choice { lex: Lex::Scoped(one.clone()), ..choice.clone() },
                    );
                    out.push((
                        Alt { lex: Lex::Scoped(one), la: Some(kind.la), ..alt.clone() },
                        rank,
                    ));
                }
            }
            _ => out.push((alt.clone(), choice_cost(*depth, choice))),
        }
    }
    out
}
