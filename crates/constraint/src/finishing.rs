//! Steering a grammar constraint to a finish: the *remaining cost* of a recognizer
//! state (how many bytes, under the cost model of [`espalier_grammar::CompletionCosts`],
//! still separate the text from a complete program) and the *finishing mask* built on
//! it, for a decoder that must wrap up before its token budget ends.
//!
//! The remaining cost of a state is the least of
//! - finishing the unfinished lexeme (the remainder) as a terminal the parser accepts,
//!   by a shortest DFA path ([`espalier_grammar::LexemePaths`]), or ending it where it
//!   stands, then the cost at the lexeme boundary;
//! - for an unfinished f-string, closing its replacement fields first
//!   (the private module `fstring_closer`);
//! - at a boundary inside a line: the LR stack's completion cost (first-free when the
//!   text ends in whitespace; a comment first needs its newline);
//! - at the start of a Python line: the whitespace to reach an open level's column
//!   exactly (dedenting to it), or one more column (INDENT), then the first lexeme of
//!   the line and the stack's cost after it; or a blank line.
//!
//! Every charge is at least the bytes the corresponding text takes and at most what
//! the plan charged for it before its first byte was written, so from every unfinished
//! state some single byte (and thus, in a byte-level BPE vocabulary, some token) lowers
//! the cost by at least one. The finishing mask keeps the allowed tokens whose cost
//! after is strictly lower than now, so taking only its tokens ends the program in at
//! most `cost` tokens; once the text is complete it holds EOS alone. Should no allowed
//! token lower the cost (a state the cost model cannot plan through, e.g. inside an
//! f-string replacement field), the allowed tokens of least cost are kept instead, so
//! the mask is never empty while the exact mask is not.
//!
//! Cost: one exact mask, then the allowed tokens' costs along one trie walk, shared
//! by tokens with a common prefix, one cost per group of tokens that end in
//! equivalent lexer states inside a lexeme ([`crate::finishing_walk`]); inside an
//! f-string, one recognizer copy and cost per closer-like token (name-only tokens
//! skipped where the literal's closer is the best way: they cannot lower the cost). The costs found (of recognizer states, content lines, LR stacks
//! per prefix) stay in a [`crate::CostCache`] for the next masks and the constraints
//! sharing it; each choice among ways (a lexeme's ends, a line start's whitespace, a
//! line's first lexeme) is tried fewest bytes first and stops once the rest cannot beat
//! the best (every way costs at least its own bytes). Measured, issue 13: a line
//! start's first visit asked 2,017 stack costs, 182 with the cuts.

use espalier_grammar::{Indentation, Language, Recognizer, TokenParser};
use rustc_hash::FxHashMap;

use crate::cost_cache::CostMemo;
use crate::{Constraint, GrammarConstraint, TokTrie, TokenSet, Vocab};

/// What one finishing mask found (see [`GrammarConstraint::finishing_mask`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finishing {
    /// The remaining cost before the step (`Some(0)` once complete; `None` when the
    /// cost model finds no plan from here).
    pub cost: Option<u32>,
    /// Whether every token of the mask lowers the cost (or the text is complete and
    /// the mask is EOS alone); `false` when the mask fell back to the allowed tokens of
    /// least cost, or to all allowed tokens.
    pub steered: bool,
}

/// How the finishing mask scores the allowed tokens: along one trie walk (the
/// default, [`crate::finishing_walk`]) or token by token (the reference it is tested
/// against).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scoring {
    Trie,
    PerToken,
}

/// Fills `mask` with the finishing mask of `c` (see the module doc); `None` when the
/// constraint's parser has no LR stacks (no cost model: the Earley recognizer).
pub(crate) fn finishing_mask<P: TokenParser>(
    c: &mut GrammarConstraint<P>,
    vocab: &Vocab,
    mask: &mut TokenSet,
    scoring: Scoring,
) -> Option<Finishing> {
    c.state().parser().lr_stacks()?;
    if mask.capacity() != vocab.len() {
        *mask = TokenSet::empty(vocab.len());
    }
    mask.clear();
    if c.is_complete() {
        mask.insert(vocab.eos() as usize);
        return Some(Finishing { cost: Some(0), steered: true });
    }
    let mut allowed = TokenSet::empty(vocab.len());
    c.exact_mask(&mut allowed);
    let state = c.state().clone();
    let trie = c.trie().clone();
    if scoring == Scoring::PerToken {
        // The reference starts from nothing: it checks the cached costs too.
        return Some(finishing_among(
            &state,
            &allowed,
            vocab,
            &trie,
            mask,
            scoring,
            &mut CostMemo::default(),
        ));
    }
    let cache = c.cost_cache().clone();
    Some(cache.with(state.language(), |memo| {
        finishing_among(&state, &allowed, vocab, &trie, mask, scoring, memo)
    }))
}

/// The finishing mask of `state` among the `allowed` tokens (its exact mask, without
/// EOS) into `mask` (cleared first); `state` must not be complete. Shared with
/// fill-in-the-middle, whose left side falls back to it when no bridge is found.
pub(crate) fn finishing_among<P: TokenParser>(
    state: &Recognizer<P>,
    allowed: &TokenSet,
    vocab: &Vocab,
    trie: &TokTrie,
    mask: &mut TokenSet,
    scoring: Scoring,
    memo: &mut CostMemo,
) -> Finishing {
    if mask.capacity() != vocab.len() {
        *mask = TokenSet::empty(vocab.len());
    }
    mask.clear();
    let mut f = Finisher::with_memo(state.language(), std::mem::take(memo));
    // The reference takes every way, without the lower-bound cuts.
    f.prune = scoring == Scoring::Trie;
    let now = f.remaining(state);
    let mut scored = crate::finishing_walk::Scored::default();
    // Inside an f-string every candidate's cost re-checks the whole literal (no memo
    // applies: the literal is part of the state), so only short tokens that start like
    // a closer are scored: each one of them that lowers the cost may be taken, and the
    // one-byte closers are among them (measured: a 60-field literal of a HumanEval run
    // took minutes per step when all 48k allowed tokens were scored).
    let in_fstring = state.language().python.is_some()
        && !crate::fstring_closer::closers(state.remainder_bytes()).is_empty();
    if in_fstring || scoring == Scoring::PerToken {
        // Names cannot lower the cost when the literal's own closer is the best way
        // (see `names_cannot_lower`): skipped, unless then no token lowers it.
        let skip_names = in_fstring && scoring == Scoring::Trie && f.closer_is_best(state, now);
        score_one_by_one(state, allowed, vocab, &mut f, in_fstring, skip_names, &mut scored);
        if skip_names && !matches!((now, scored.least()), (Some(n), Some(l)) if l < n) {
            scored.tokens.clear();
            score_one_by_one(state, allowed, vocab, &mut f, in_fstring, false, &mut scored);
        }
    } else {
        crate::finishing_walk::score_along_trie(state, allowed, trie, vocab, &mut f, &mut scored);
    }
    let least = scored.least();
    let steered = matches!((now, least), (Some(n), Some(l)) if l < n);
    scored.insert_kept(mask, |cost| match (now, least, cost) {
        (_, None, _) => true,
        (Some(n), Some(_), Some(x)) if steered => x < n,
        (_, Some(l), Some(x)) => x == l,
        _ => false,
    });
    if !in_fstring && scoring == Scoring::Trie {
        // Duplicate ids were not walked: they take their first id's verdict.
        trie.add_duplicates(mask);
        mask.intersect_with(allowed);
    }
    *memo = f.into_memo();
    Finishing { cost: now, steered }
}

/// Scores the `allowed` tokens one by one into `scored`; inside an f-string only the
/// closer-like ones, and with `skip_names` none made of name characters alone.
fn score_one_by_one<P: TokenParser>(
    state: &Recognizer<P>,
    allowed: &TokenSet,
    vocab: &Vocab,
    f: &mut Finisher<'_>,
    in_fstring: bool,
    skip_names: bool,
    scored: &mut crate::finishing_walk::Scored,
) {
    let mut s2 = state.clone();
    for id in allowed.iter() {
        let bytes = vocab.bytes(id as u32);
        if in_fstring && !crate::fstring_closer::may_close(bytes) {
            continue;
        }
        if skip_names && names_cannot_lower(bytes) {
            continue;
        }
        s2.clone_from(state);
        let cost = if s2.try_push_bytes(bytes) { f.remaining(&s2) } else { None };
        scored.tokens.push((id, cost));
    }
}

/// Whether `token` is made of name characters alone (`[A-Za-z0-9_]`), which cannot
/// lower the remaining cost of an unfinished f-string whose own closer (the bytes
/// that close its open fields and the literal, `fstring_closer`) is its best way:
/// such bytes open, close and quote nothing, so the closer after them is the same,
/// every way from there writes at least that closer (with a filler first, or the
/// lexer's shortest path to the quote, which the recognizer takes only when no
/// field is open, the closer then being that quote), and once the literal is closed
/// the parser is where the closer alone left it (it reads the literal as one
/// STRING). Measured (issue 13, finish8): in the 60-level literal of HumanEval/6 the
/// closer-like tokens were ~half names (`a...`, `0...`), each re-checking the fields.
fn names_cannot_lower(token: &[u8]) -> bool {
    token.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
}

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
    prune: bool,
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
    /// depends on: the parser stacks, the layout, Go's pending semicolon, the
    /// remainder's DFA state, and the remainder's bytes only when they may be an
    /// f-string (whose replacement fields are checked when it ends); kept in the memo
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
        let rem = s.remainder();
        key.push(rem.dfa_state);
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
        if self.lang.go.is_some() {
            key.push(s.semicolon_pending() as u32);
        }
        if let Some(stacks) = s.parser().lr_stacks() {
            for st in stacks {
                key.push(u32::MAX);
                key.extend_from_slice(st);
            }
        }
        // Only Python has f-strings: elsewhere (a Go block comment of 12 KB holding an
        // `f` before a quote) keying on the bytes cost 15 s per mask, hashing them once
        // per allowed token.
        let bytes = s.remainder_bytes();
        let quote = if self.lang.python.is_some() {
            bytes.iter().position(|&b| b == b'"' || b == b'\'')
        } else {
            None
        };
        if quote.is_some_and(|q| bytes[..q].iter().any(|&b| b == b'f' || b == b'F')) {
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
        if lang.python.is_some() {
            for closer in crate::fstring_closer::closers(s.remainder_bytes()) {
                if self.prune && best.is_some_and(|b| closer.len() as u32 >= b) {
                    continue;
                }
                let mut s2 = s.clone();
                if s2.try_push_bytes(&closer) {
                    best = min_opt(best, self.after_lexeme(s2).map(|c| c + closer.len() as u32));
                }
            }
        }
        best
    }

    /// Whether `now`, the remaining cost of `s` (inside an unfinished f-string), is
    /// that of its first closer (closing its fields and the literal) then the rest.
    fn closer_is_best<P: TokenParser>(&mut self, s: &Recognizer<P>, now: Option<u32>) -> bool {
        let Some(tail) = crate::fstring_closer::closers(s.remainder_bytes()).into_iter().next()
        else {
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

    /// Whether a plan's next text could continue the (skipped) lexeme ending in `q`.
    fn glues(&self, q: u32) -> bool {
        let lang = self.lang;
        let paths = lang.completion_costs().lexeme_paths();
        let dfa = &lang.dfa;
        let newline =
            lang.python.is_some() && dfa.next(q, b'\n') != espalier_grammar::LexerDfa::DEAD;
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

    fn stack_cost(&mut self, stack: &[u32], cols: &[u32], first_free: bool) -> Option<u32> {
        self.memo.stacks.stack_cost(self.lang.completion_costs(), stack, cols, first_free)
    }

    /// Python, at the start of a line: reach an open level's column exactly (and
    /// dedent to it) or open a new level, then write the line's first lexeme; or a
    /// blank line when the whitespace typed so far fits nothing.
    fn line_start<P: TokenParser>(
        &mut self,
        s: &Recognizer<P>,
        ind: Indentation<'_>,
    ) -> Option<u32> {
        let py = self.lang.python.as_ref()?;
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
                if p.feed(&[py.indent]) {
                    let mut cols = ind.cols.to_vec();
                    cols.push(col + w);
                    best = min_opt(best, self.content_line(&p, &cols).map(|c| c + w));
                }
            } else if (k + 1..n).all(|_| p.feed(&[py.dedent])) {
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
