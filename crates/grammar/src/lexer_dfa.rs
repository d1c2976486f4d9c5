//! The lexer automaton: every lexical terminal's regex compiled together into one
//! deterministic automaton with regex-automata, then flattened into a compact table.
//!
//! Why a table of our own on top of regex-automata's dense DFA: the mask store and the
//! byte-level recognizer want small dense state ids (`0..num_states()`), a per-state
//! answer to "which terminals match the text so far" (regex-automata reports matches
//! one byte late, through its end-of-input transition), and a per-state set of
//! terminals still reachable. We compute these once: regex-automata determinizes
//! (anchored, `MatchKind::All`), we walk its reachable states, merge every state from
//! which nothing can match into [`LexerDfa::DEAD`], and group bytes into equivalence
//! classes (Python's automaton: a few hundred classes-by-states entries per state).

use std::collections::HashMap;

use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind};

use crate::error::GrammarError;
use crate::grammar::{Grammar, TerminalId};
use crate::termset::TermSet;

pub use crate::ids::DfaState;

/// The combined lexer DFA of a grammar's terminals.
#[derive(Clone, Debug)]
pub struct LexerDfa {
    classes: [u8; 256],
    num_classes: usize,
    trans: Vec<DfaState>,
    matches: Vec<Vec<TerminalId>>,
    winners: Vec<Vec<TerminalId>>,
    reachable: Vec<TermSet>,
    lexed: Vec<TerminalId>,
}

impl LexerDfa {
    /// The dead state: no continuation of the text read so far matches any terminal.
    pub const DEAD: DfaState = DfaState::new(0);
    /// The start state (empty text).
    pub const START: DfaState = DfaState::new(1);

    /// Compiles the terminals of `grammar` that have a pattern.
    pub fn build(grammar: &Grammar) -> Result<LexerDfa, GrammarError> {
        let (lexed, dfa) = compile(grammar)?;
        let s0 = dfa
            .start_state(&start::Config::new().anchored(Anchored::Yes))
            .map_err(|e| GrammarError::Lexer(e.to_string()))?;
        let (order, mut full) = number_states(&dfa, s0);
        let (matches, winners) = matches_and_winners(grammar, &dfa, &order, &lexed);
        let reach = reachable_winners(&full, &winners, grammar.num_terminals());
        // Redirect transitions into states that can reach nothing to DEAD.
        for t in full.iter_mut() {
            if *t != 0 && reach[*t as usize].is_empty() {
                *t = 0;
            }
        }
        let (classes, reps) = byte_classes(&full, winners.len());
        let num_classes = reps.len();
        let trans = full
            .chunks(256)
            .flat_map(|row| reps.iter().map(move |&r| DfaState::new(row[r])))
            .collect();
        Ok(LexerDfa { classes, num_classes, trans, matches, winners, reachable: reach, lexed })
    }

    /// The start state.
    #[inline]
    pub fn start(&self) -> DfaState {
        Self::START
    }

    /// The state after reading `byte` in state `s`.
    #[inline]
    pub fn next(&self, s: DfaState, byte: u8) -> DfaState {
        self.trans[s.index() * self.num_classes + self.classes[byte as usize] as usize]
    }

    /// Whether no continuation from `s` can match a terminal.
    #[inline]
    pub fn is_dead(&self, s: DfaState) -> bool {
        s == Self::DEAD
    }

    /// Every terminal whose regex matches exactly the text read to reach `s`.
    #[inline]
    pub fn matches(&self, s: DfaState) -> &[TerminalId] {
        &self.matches[s.index()]
    }

    /// The terminals a maximal-munch lexer reports for the text of `s`: the matches of
    /// highest rank (priority, then literal over regex). Several winners (e.g. NAME and
    /// a soft keyword) are all reported.
    #[inline]
    pub fn winners(&self, s: DfaState) -> &[TerminalId] {
        &self.winners[s.index()]
    }

    /// Terminals that some continuation of the text of `s` (possibly empty) makes a
    /// winner.
    #[inline]
    pub fn reachable(&self, s: DfaState) -> &TermSet {
        &self.reachable[s.index()]
    }

    /// Number of states (ids are `0..num_states()`; 0 is [`Self::DEAD`]).
    pub fn num_states(&self) -> usize {
        self.matches.len()
    }

    /// Every state, `DEAD` first.
    pub fn states(&self) -> impl Iterator<Item = DfaState> {
        (0..self.num_states()).map(DfaState::from_index)
    }

    /// Number of byte equivalence classes.
    pub fn num_classes(&self) -> usize {
        self.num_classes
    }

    /// The byte class of `byte` (bytes in one class behave identically everywhere).
    pub fn byte_class(&self, byte: u8) -> u8 {
        self.classes[byte as usize]
    }

    /// The terminals that the lexer matches (those with a pattern).
    pub fn lexed_terminals(&self) -> &[TerminalId] {
        &self.lexed
    }

    /// Runs the DFA over `bytes` from the start state.
    pub fn run(&self, bytes: &[u8]) -> DfaState {
        bytes.iter().fold(Self::START, |s, &b| self.next(s, b))
    }
}

/// The grammar's lexical terminals (those with a pattern) and their patterns
/// determinized together (anchored, every match reported).
fn compile(grammar: &Grammar) -> Result<(Vec<TerminalId>, dense::DFA<Vec<u32>>), GrammarError> {
    let lexed: Vec<TerminalId> = grammar
        .terminals
        .iter()
        .enumerate()
        .filter(|(_, t)| t.pattern.is_some())
        .map(|(i, _)| TerminalId::from_index(i))
        .collect();
    let patterns: Vec<&str> =
        grammar.terminals.iter().filter_map(|t| t.pattern.as_deref()).collect();
    if patterns.is_empty() {
        return Err(GrammarError::Lexer("the grammar has no lexical terminals".into()));
    }
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .match_kind(MatchKind::All)
                .start_kind(StartKind::Anchored)
                .dfa_size_limit(Some(1 << 30))
                .determinize_size_limit(Some(1 << 30)),
        )
        .build_many(&patterns)
        .map_err(|e| GrammarError::Lexer(e.to_string()))?;
    Ok((lexed, dfa))
}

/// The states reachable from `s0` in breadth-first order, numbered from 1 (0 is the
/// dead state), and the full 256-wide transition table in those numbers (row 0, the
/// dead state's, all zero).
fn number_states(dfa: &dense::DFA<Vec<u32>>, s0: StateID) -> (Vec<StateID>, Vec<u32>) {
    let mut ids: HashMap<StateID, u32> = HashMap::new();
    let mut order = vec![s0];
    ids.insert(s0, 1);
    let mut full = vec![0u32; 256];
    let mut i = 0;
    while i < order.len() {
        let s = order[i];
        for b in 0..=255u8 {
            let n = dfa.next_state(s, b);
            let id = if dfa.is_dead_state(n) {
                0
            } else {
                *ids.entry(n).or_insert_with(|| {
                    order.push(n);
                    order.len() as u32
                })
            };
            full.push(id);
        }
        i += 1;
    }
    (order, full)
}

/// Per state (our numbers): the terminals whose pattern matches the text read so far,
/// and among them the winners (highest priority, then literals).
fn matches_and_winners(
    grammar: &Grammar,
    dfa: &dense::DFA<Vec<u32>>,
    order: &[StateID],
    lexed: &[TerminalId],
) -> (Vec<Vec<TerminalId>>, Vec<Vec<TerminalId>>) {
    let rank = |t: TerminalId| {
        let term = &grammar.terminals[t.index()];
        (term.priority, term.is_literal)
    };
    let n = order.len() + 1;
    let mut matches = vec![Vec::new(); n];
    let mut winners = vec![Vec::new(); n];
    for (k, &s) in order.iter().enumerate() {
        let eoi = dfa.next_eoi_state(s);
        if !dfa.is_match_state(eoi) {
            continue;
        }
        let mut m: Vec<TerminalId> =
            (0..dfa.match_len(eoi)).map(|j| lexed[dfa.match_pattern(eoi, j).as_usize()]).collect();
        m.sort_unstable();
        m.dedup();
        let best = m.iter().map(|&t| rank(t)).max().unwrap();
        winners[k + 1] = m.iter().copied().filter(|&t| rank(t) == best).collect();
        matches[k + 1] = m;
    }
    (matches, winners)
}

/// Per state, the winners of every state reachable from it (itself included): a
/// backwards fixpoint over the full table.
fn reachable_winners(
    full: &[u32],
    winners: &[Vec<TerminalId>],
    num_terminals: usize,
) -> Vec<TermSet> {
    let n = winners.len();
    let mut reach: Vec<TermSet> = (0..n).map(|_| TermSet::new(num_terminals)).collect();
    for s in 1..n {
        for &t in &winners[s] {
            reach[s].insert(t);
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for s in (1..n).rev() {
            for b in 0..256 {
                let t = full[s * 256 + b] as usize;
                if t != 0 && t != s {
                    let (a, c) = if s < t {
                        let (lo, hi) = reach.split_at_mut(t);
                        (&mut lo[s], &hi[0])
                    } else {
                        let (lo, hi) = reach.split_at_mut(s);
                        (&mut hi[0], &lo[t])
                    };
                    changed |= a.union_with(c);
                }
            }
        }
    }
    reach
}

/// Bytes with identical columns in the `n`-state table share a class: each byte's
/// class, and each class's representative byte.
fn byte_classes(full: &[u32], n: usize) -> ([u8; 256], Vec<usize>) {
    let mut classes = [0u8; 256];
    let mut reps: Vec<usize> = Vec::new();
    for b in 0..256 {
        let found =
            reps.iter().position(|&r| (0..n).all(|s| full[s * 256 + r] == full[s * 256 + b]));
        classes[b] = match found {
            Some(c) => c as u8,
            None => {
                reps.push(b);
                (reps.len() - 1) as u8
            }
        };
    }
    (classes, reps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priorities_and_reachability() {
        let g = Grammar::parse("start: (NAME | IF | MATCH | INT)*\nNAME: /[a-z]+/\nIF: \"if\"\nMATCH: /match/\nINT: /[0-9]+/\n").unwrap();
        let d = LexerDfa::build(&g).unwrap();
        let (name, kif, kmatch, int) = (
            g.terminal("NAME").unwrap(),
            g.terminal("IF").unwrap(),
            g.terminal("MATCH").unwrap(),
            g.terminal("INT").unwrap(),
        );
        let s = d.run(b"if");
        assert_eq!(d.winners(s), &[kif]);
        assert_eq!(d.matches(s).len(), 2);
        let s = d.run(b"match");
        let mut w = d.winners(s).to_vec();
        w.sort();
        assert_eq!(w, {
            let mut v = vec![name, kmatch];
            v.sort();
            v
        });
        let s = d.run(b"ma");
        assert!(
            d.winners(s) == [name]
                && d.reachable(s).contains(kmatch)
                && !d.reachable(s).contains(int)
        );
        assert!(d.is_dead(d.run(b"1a")));
        assert!(d.is_dead(d.run(b"-")));
    }
}
