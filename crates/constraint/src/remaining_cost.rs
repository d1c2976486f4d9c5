//! The *remaining cost* of a recognizer state: how many bytes, under the cost model of
//! [`espalier_grammar::CompletionCosts`], still separate the text from a complete
//! program. The finishing mask ([`crate::finishing`]) keeps the tokens that lower it.
//!
//! The remaining cost of a state is the least of
//! - finishing the unfinished lexeme (the remainder) as a terminal the parser accepts,
//!   by a shortest DFA path ([`espalier_grammar::LexemePaths`]), or ending it where it
//!   stands, then the cost at the lexeme boundary;
//! - for an unfinished lexeme the DFA's paths may not end (a Python f-string: its
//!   replacement fields first), the closers of the language's layer
//!   ([`espalier_grammar::Layer::closers`]);
//! - at a boundary inside a line: the LR stack's completion cost (first-free when the
//!   text ends in whitespace; a comment first needs its newline);
//! - at the start of a line of a layer that lays lines out (Python's,
//!   [`espalier_grammar::Layer::layout`]): the whitespace to reach an open level's
//!   column exactly (dedenting to it), or one more column (INDENT), then the first
//!   lexeme of the line and the stack's cost after it; or a blank line.
//!
//! Nothing here names a language: what a language's layer adds (its layout
//! terminals, the memo key's part of its state, the closers of an unfinished
//! lexeme) is asked of the layer.
//!
//! Every charge is at least the bytes the corresponding text takes and at most what
//! the plan charged for it before its first byte was written, so from every unfinished
//! state some single byte lowers the cost by at least one (see [`crate::finishing`]).
//! The costs found (of recognizer states, content lines, LR stacks per prefix) stay in
//! a [`crate::CostCache`] for the next masks and the constraints sharing it; each
//! choice among ways (a lexeme's ends, a line start's whitespace, a line's first
//! lexeme) is tried fewest bytes first and stops once the rest cannot beat the best
//! (every way costs at least its own bytes). Measured, issue 13: a line start's first
//! visit asked 2,017 stack costs, 182 with the cuts.

use espalier_grammar::{DfaState, Indentation, Language, LrState, Recognizer, TokenParser};
use rustc_hash::FxHashMap;

use crate::cost_cache::CostMemo;

/// The remaining cost of a recognizer state (see the module doc).
pub(crate) fn remaining_cost<P: TokenParser>(s: &Recognizer<P>) -> Option<u32> {
    s.parser().lr_stacks()?;
    Finisher::new(s.language()).remaining(s)
}

/// One finishing computation: the language and the memos of costs.
pub(crate) struct Finisher<'a> {
    lang: &'a Language,
    /// Recognizer states (see `key`) whose keys are too long for the memo ->
    /// remaining cost.
    states: FxHashMap<Vec<u32>, Option<u32>>,
    memo: CostMemo,
    /// Skip the ways that cost at least their own bytes once the best found is no
    /// more (exact: costs are never negative); off in the reference.
    pub(crate) prune: bool,
    /// The key of the state being costed (reused: a mask costs ~1k states).
    key: Vec<u32>,
}

fn min_opt(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// The fewest spaces and tabs taking a line's (column, characters) to exactly
/// (`col`, `alt`), as CPython counts them (a tab advances to the next multiple of 8).
fn whitespace_to(from_col: u32, from_alt: u32, col: u32, alt: u32) -> Option<u32> {
    if alt < from_alt || col < from_col {
        return None;
    }
    let steps = alt - from_alt;
    if col - from_col == steps {
        return Some(steps);
    }
    let mut reach = vec![false; col as usize + 1];
    reach[from_col as usize] = true;
    for _ in 0..steps {
        let mut next = vec![false; col as usize + 1];
        for x in 0..=col {
            if reach[x as usize] {
                for y in [x + 1, (x / 8 + 1) * 8] {
                    if y <= col {
                        next[y as usize] = true;
                    }
                }
            }
        }
        reach = next;
    }
    reach[col as usize].then_some(steps)
}

impl<'a> Finisher<'a> {
    pub(crate) fn new(lang: &'a Language) -> Self {
        Self::with_memo(lang, CostMemo::default())
    }

    /// A computation that starts from (and adds to) the costs in `memo`.
    pub(crate) fn with_memo(lang: &'a Language, memo: CostMemo) -> Self {
        Finisher {
            lang,
            states: FxHashMap::default(),
            memo,
            prune: true,
            key: Vec::with_capacity(64),
        }
    }

    /// The stack and line costs found, for the next computation.
    pub(crate) fn into_memo(self) -> CostMemo {
        self.memo
    }

    /// The remaining cost of `s`, or `None` when the cost model finds no way to a
    /// complete program (or the parser has no LR stacks). Memoised on what the cost
    /// depends on: the parser stacks, the layout, the layer's part of its state (Go:
    /// a pending semicolon), the remainder's DFA state, and the remainder's bytes
    /// only when the layer says they matter (a Python f-string, whose replacement
    /// fields are checked when it ends); kept in the memo
    /// (for the next masks, and every constraint sharing its cache) unless the key is
    /// long.
    pub(crate) fn remaining<P: TokenParser>(&mut self, s: &Recognizer<P>) -> Option<u32> {
        let mut key = std::mem::take(&mut self.key);
        self.fill_key(s, &mut key);
        let c = match self.memo.state(&key).or_else(|| self.states.get(&key).copied()) {
            Some(c) => c,
            None => {
                let c = self.remaining_uncached(s);
                if !self.memo.keep_state(&key, c) {
                    self.states.insert(key.clone(), c);
                }
                c
            }
        };
        self.key = key;
        c
    }

    /// Writes into `key` (cleared first) what the remaining cost of `s` depends on.
    fn fill_key<P: TokenParser>(&self, s: &Recognizer<P>, key: &mut Vec<u32>) {
        key.clear();
        push_lexer_and_layout(s, key);
        self.lang.layer.push_future_key(s.layer(), key);
        if let Some(stacks) = s.parser().lr_stacks() {
            for st in stacks {
                key.push(u32::MAX);
                key.extend(st.iter().map(|s| s.as_u32()));
            }
        }
        // Only where the layer says so: keying on every remainder's bytes (a Go block
        // comment of 12 KB) cost 15 s per mask, hashing them once per allowed token.
        let bytes = s.remainder_bytes();
        if self.lang.layer.lexeme_bytes_matter(bytes) {
            key.push(u32::MAX - 1);
            key.extend(bytes.iter().map(|&b| b as u32));
        }
    }

    fn remaining_uncached<P: TokenParser>(&mut self, s: &Recognizer<P>) -> Option<u32> {
        if s.is_complete() {
            return Some(0);
        }
        let rem = s.remainder();
        if rem.len == 0 {
            return self.boundary(s, true);
        }
        let lang = self.lang;
        let dfa = &lang.dfa;
        let paths = lang.completion_costs().lexeme_paths();
        let q = rem.dfa_state;
        // Every way costs at least its own bytes: taken shortest first, the rest are
        // skipped once they cannot beat the best.
        let mut best = None;
        if !dfa.winners(q).is_empty() {
            best = self.after_lexeme(s.clone());
        }
        let mut ends: Vec<(u32, espalier_grammar::TerminalId)> = dfa
            .reachable(q)
            .iter()
            .filter(|&t| s.acceptable_terminals().contains(t))
            .filter_map(|t| paths.distance(q, t).filter(|&d| d > 0).map(|d| (d, t)))
            .collect();
        ends.sort_unstable();
        for (d, t) in ends {
            if self.prune && best.is_some_and(|b| d >= b) {
                break;
            }
            let mut s2 = s.clone();
            if paths.path(dfa, q, t).is_some_and(|p| s2.try_push_bytes(&p)) {
                best = min_opt(best, self.after_lexeme(s2).map(|c| c + d));
            }
        }
        for closer in lang.layer.closers(s.remainder_bytes()) {
            if self.prune && best.is_some_and(|b| closer.len() as u32 >= b) {
                continue;
            }
            let mut s2 = s.clone();
            if s2.try_push_bytes(&closer) {
                best = min_opt(best, self.after_lexeme(s2).map(|c| c + closer.len() as u32));
            }
        }
        best
    }

    /// Whether `now`, the remaining cost of `s` (inside an unfinished lexeme the
    /// layer closes, a Python f-string), is that of the layer's first closer (closing
    /// its fields and the literal) then the rest.
    pub(crate) fn closer_is_best<P: TokenParser>(
        &mut self,
        s: &Recognizer<P>,
        now: Option<u32>,
    ) -> bool {
        let Some(tail) = self.lang.layer.closers(s.remainder_bytes()).into_iter().next() else {
            return false;
        };
        let mut s2 = s.clone();
        s2.try_push_bytes(&tail)
            && now.is_some()
            && self.after_lexeme(s2).map(|c| c + tail.len() as u32) == now
    }

    /// Ends the remainder of `s`, which is a complete lexeme, then costs the rest. (A
    /// lexeme is never ended early, backing up to a shorter one: the lexer does that
    /// only on a byte that continues nothing, which a plan cannot promise.)
    fn after_lexeme<P: TokenParser>(&mut self, mut s: Recognizer<P>) -> Option<u32> {
        let lang = self.lang;
        let q = s.remainder().dfa_state;
        let winners = lang.dfa.winners(q);
        if winners.is_empty() || !s.end_lexeme() {
            return None;
        }
        if winners.iter().any(|&w| !lang.ignored.contains(w)) {
            return self.boundary(&s, false);
        }
        if !self.glues(q) {
            return self.boundary(&s, true);
        }
        // A comment: only a newline ends it.
        if !s.try_push_byte(b'\n') {
            return None;
        }
        self.after_lexeme(s).map(|c| c + 1)
    }

    /// Whether a plan's next text could continue the (skipped) lexeme ending in `q`:
    /// a lexed terminal's text, or the newline byte a layout's NEWLINE is written as.
    fn glues(&self, q: DfaState) -> bool {
        let lang = self.lang;
        let paths = lang.completion_costs().lexeme_paths();
        let dfa = &lang.dfa;
        let newline =
            lang.layer.layout().is_some() && dfa.next(q, b'\n') != espalier_grammar::LexerDfa::DEAD;
        newline
            || dfa.lexed_terminals().iter().any(|&t| {
                !lang.ignored.contains(t)
                    && paths
                        .text(t)
                        .is_some_and(|x| dfa.next(q, x[0]) != espalier_grammar::LexerDfa::DEAD)
            })
    }

    /// The cost at a lexeme boundary (empty remainder).
    fn boundary<P: TokenParser>(&mut self, s: &Recognizer<P>, first_free: bool) -> Option<u32> {
        if s.is_complete() {
            return Some(0);
        }
        match s.indentation() {
            Some(ind) if ind.at_line_start && ind.depth == 0 => self.line_start(s, ind),
            Some(ind) => {
                let cols = ind.cols.to_vec();
                self.parser_cost(s.parser(), &cols, first_free)
            }
            None => self.parser_cost(s.parser(), &[0], first_free),
        }
    }

    fn parser_cost<P: TokenParser>(
        &mut self,
        parser: &P,
        cols: &[u32],
        first_free: bool,
    ) -> Option<u32> {
        let stacks = parser.lr_stacks()?;
        let mut best = None;
        for st in stacks {
            best = min_opt(best, self.stack_cost(st, cols, first_free));
        }
        best
    }

    fn stack_cost(&mut self, stack: &[LrState], cols: &[u32], first_free: bool) -> Option<u32> {
        self.memo.stacks.stack_cost(self.lang.completion_costs(), stack, cols, first_free)
    }

    /// At the start of a line of a layout (Python's): reach an open level's column
    /// exactly (and dedent to it) or open a new level, then write the line's first
    /// lexeme; or a blank line when the whitespace typed so far fits nothing.
    fn line_start<P: TokenParser>(
        &mut self,
        s: &Recognizer<P>,
        ind: Indentation<'_>,
    ) -> Option<u32> {
        let layout = self.lang.layer.layout()?;
        let (col, alt) = (ind.col, ind.altcol);
        let n = ind.cols.len();
        let mut best = None;
        if col > 0 || alt > 0 {
            let mut s2 = s.clone();
            if s2.try_push_byte(b'\n') {
                best = min_opt(best, self.after_lexeme(s2).map(|c| c + 1));
            }
        }
        // (whitespace, level k to dedent to, or n: a new level), fewest bytes first; a
        // line costs at least its whitespace, so the rest are skipped once they
        // cannot beat the best.
        let (top, alt_top) = (ind.cols[n - 1], ind.alt[n - 1]);
        let mut ways: Vec<(u32, usize)> = (0..n)
            .filter_map(|k| whitespace_to(col, alt, ind.cols[k], ind.alt[k]).map(|w| (w, k)))
            .collect();
        ways.push(((top + 1).saturating_sub(col).max((alt_top + 1).saturating_sub(alt)), n));
        ways.sort_unstable();
        for (w, k) in ways {
            if self.prune && best.is_some_and(|b| w >= b) {
                break;
            }
            let mut p = s.parser().clone();
            if k == n {
                if p.feed(&[layout.indent]) {
                    let mut cols = ind.cols.to_vec();
                    cols.push(col + w);
                    best = min_opt(best, self.content_line(&p, &cols).map(|c| c + w));
                }
            } else if (k + 1..n).all(|_| p.feed(&[layout.dedent])) {
                best = min_opt(best, self.content_line(&p, &ind.cols[..=k]).map(|c| c + w));
            }
        }
        best
    }

    /// The cost of a line's content from `parser` (its layout tokens fed): its first
    /// lexeme (no space before it), then the stack's cost.
    fn content_line<P: TokenParser>(&mut self, parser: &P, cols: &[u32]) -> Option<u32> {
        let stacks = parser.lr_stacks()?.to_vec();
        let key = (stacks, cols.to_vec());
        if let Some(&c) = self.memo.lines.get(&key) {
            return c;
        }
        let lang = self.lang;
        let paths = lang.completion_costs().lexeme_paths();
        let mut acceptable = espalier_grammar::TermSet::new(lang.grammar.num_terminals());
        let mut p = parser.clone();
        p.acceptable(&mut acceptable);
        // Shortest first lexeme first: the rest are skipped once they cannot beat the
        // best (measured: ~40 terminals can start a statement, each a stack cost).
        let mut firsts: Vec<(u32, espalier_grammar::TerminalId)> = acceptable
            .iter()
            .filter(|&t| !lang.ignored.contains(t))
            .filter_map(|t| paths.text(t).map(|x| (x.len() as u32, t)))
            .collect();
        firsts.sort_unstable();
        let mut best = None;
        for (n, t) in firsts {
            if self.prune && best.is_some_and(|b| n >= b) {
                break;
            }
            let mut p2 = parser.clone();
            if p2.feed(&[t]) {
                best = min_opt(best, self.parser_cost(&p2, cols, false).map(|c| c + n));
            }
        }
        self.memo.lines.insert(key, best);
        best
    }
}

/// Pushes onto `key` the lexer's side of a recognizer state's future: the DFA state,
/// whether a lexeme is unfinished, and the layout's indentation, if the layer lays
/// lines out (its counters, then its stacks).
#[inline]
pub(crate) fn push_lexer_and_layout<P: TokenParser>(s: &Recognizer<P>, key: &mut Vec<u32>) {
    let rem = s.remainder();
    key.push(rem.dfa_state.as_u32());
    key.push(rem.len.min(1) as u32);
    if let Some(ind) = s.indentation() {
        key.extend([
            ind.depth,
            ind.at_line_start as u32,
            ind.content as u32,
            ind.col,
            ind.altcol,
            ind.cols.len() as u32,
        ]);
        key.extend_from_slice(ind.cols);
        key.extend_from_slice(ind.alt);
    }
}

#[cfg(test)]
mod tests {
    use super::whitespace_to;

    #[test]
    fn whitespace_counts_tabs_as_cpython_does() {
        assert_eq!(whitespace_to(0, 0, 4, 4), Some(4));
        assert_eq!(whitespace_to(2, 2, 4, 4), Some(2));
        assert_eq!(whitespace_to(0, 0, 8, 1), Some(1)); // one tab
        assert_eq!(whitespace_to(0, 0, 12, 5), Some(5)); // a tab and four spaces
        assert_eq!(whitespace_to(5, 5, 4, 4), None);
        assert_eq!(whitespace_to(0, 0, 8, 2), Some(2)); // a space and a tab
    }
}
