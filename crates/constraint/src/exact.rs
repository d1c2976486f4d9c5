//! The `exact` strategy: the vocabulary trie walked through the grammar's byte-level
//! recognizer, so a token is allowed iff every byte keeps the text a viable prefix
//! (sound and complete by construction; the recognizer handles lexemes spanning
//! tokens, whitespace, comments and indentation inside tokens).
//!
//! Three layers keep it cheap:
//! 1. [`LexWalker`]: inside a lexeme only the lexer DFA steps; the full recognizer
//!    (cloned into reused slots) runs only where a lexeme starts or ends.
//! 2. [`LexemeStarts`]: where a new lexeme starts exactly at a trie node, the whole
//!    subtree below is decided from precomputed lists (tokens staying in that lexeme,
//!    with their reachable-terminal set; boundary nodes where the recognizer must
//!    run again), recursively — no per-node work for the bulk of the vocabulary.
//! 3. Subtrees of refused bytes are skipped with one addition (the flat trie).
//!
//! The exactness test checks the result against pushing every sampled token's bytes
//! through the full recognizer.

use std::sync::Arc;

use espalier_grammar::{Recognizer as GrammarRecognizer, TokenParser};

use crate::lexeme_starts::LexemeStarts;
use crate::lexer_walk::{LexWalker, Push};
use crate::{Recognizer, TokTrie, TokenSet};

/// Scratch state for exact masks, reused across steps.
#[derive(Clone, Debug)]
pub struct ExactWalker<P: TokenParser> {
    walker: LexWalker<P>,
    fallback: LexWalker<P>,
    starts: Option<Arc<LexemeStarts>>,
    /// Full states: `pool[2l]` the anchor of recursion level `l`, `pool[2l + 1]` the
    /// materialized parent of a boundary node.
    pool: Vec<GrammarRecognizer<P>>,
    ok: Vec<bool>,
    bytes: Vec<u8>,
    /// Trie nodes offered by the last walk.
    pub last_nodes: usize,
    /// Full recognizer byte steps of the last walk (the expensive part).
    pub last_heavy: usize,
}

impl<P: TokenParser> ExactWalker<P> {
    /// A walker for recognizers like `start`; `starts` (built for the same trie and
    /// lexer) enables subtree summaries.
    pub fn new(start: &GrammarRecognizer<P>, starts: Option<Arc<LexemeStarts>>) -> Self {
        Self {
            walker: LexWalker::new(start),
            fallback: LexWalker::new(start),
            starts,
            pool: vec![start.clone()],
            ok: Vec::new(),
            bytes: Vec::new(),
            last_nodes: 0,
            last_heavy: 0,
        }
    }

    /// Sets `mask` to exactly the non-special tokens whose bytes keep `state` viable.
    pub fn fill(&mut self, state: &GrammarRecognizer<P>, trie: &TokTrie, mask: &mut TokenSet) {
        mask.clear();
        self.walker.reset(state);
        self.last_heavy = 0;
        let q = state.remainder().dfa_state;
        match self.starts.clone() {
            Some(starts) if q != espalier_grammar::LexerDfa::START => {
                // The text ends inside a lexeme (the usual case): the root is one more
                // lexeme start, summarized per remainder state.
                let part = starts.root(trie, &state.language().dfa, q);
                self.pool[0].clone_from(state);
                self.summarize(0, 0, (&part.inlex_tok, &part.inlex_set, &part.bound_node, &part.bound_state), trie, &starts, mask);
                self.last_nodes = 0;
            }
            None => {
                self.last_nodes = trie.walk(&mut self.walker, mask);
                self.last_heavy = self.walker.heavy_steps;
            }
            Some(starts) => {
                let end = trie.node_count();
                let mut i = 1;
                let mut nodes = 0;
                while i < end {
                    let (byte, tok, size, pops) = trie.node_info(i);
                    nodes += 1;
                    match self.walker.push_kind(byte) {
                        Push::Rejected => {
                            self.walker.pop_bytes(pops - 1);
                            i += size;
                        }
                        Push::Heavy(true) => {
                            if let Some(f) = self.walker.top_full() {
                                self.pool[0].clone_from(f);
                            }
                            let (t, ts) = starts.inlex(i);
                            let (b, bs) = starts.bounds(i);
                            self.summarize(0, i, (t, ts, b, bs), trie, &starts, mask);
                            self.walker.pop_bytes(pops);
                            i += size;
                        }
                        Push::Light | Push::Heavy(false) => {
                            if tok != u32::MAX {
                                mask.insert(tok as usize);
                            }
                            if size == 1 {
                                self.walker.pop_bytes(pops);
                            }
                            i += 1;
                        }
                    }
                }
                self.last_nodes = nodes;
                self.last_heavy += self.walker.heavy_steps;
            }
        }
        trie.add_duplicates(mask);
        for (id, bytes) in trie.long_tokens() {
            let mut s = state.clone();
            if s.push_bytes(bytes).is_ok() {
                mask.insert(*id as usize);
            }
        }
    }

    /// Decides the subtree below node `n`, where a lexeme starts; `pool[2 * level]`
    /// holds the full state after `n`'s byte.
    #[allow(clippy::type_complexity)]
    fn summarize(
        &mut self,
        level: usize,
        n: usize,
        lists: (&[u32], &[u16], &[u32], &[u32]),
        trie: &TokTrie,
        starts: &LexemeStarts,
        mask: &mut TokenSet,
    ) {
        while self.pool.len() < 2 * level + 3 {
            let s = self.pool[0].clone();
            self.pool.push(s);
        }
        let a = 2 * level;
        // Which reachable sets meet the acceptable set, computed once per set id used.
        let sets = &starts.sets;
        self.ok.clear();
        self.ok.resize(sets.len() * 2, false);
        {
            let acceptable = self.pool[a].acceptable_terminals();
            let ok = &mut self.ok;
            let mut test = |sid: u16| -> bool {
                let k = sid as usize * 2;
                if !ok[k] {
                    ok[k] = true;
                    ok[k + 1] = sets[sid as usize].intersects(acceptable);
                }
                ok[k + 1]
            };
            let (toks, sids, nodes, pstates) = lists;
            // Tokens come grouped by reachable set: one test per group.
            let mut i = 0;
            while i < toks.len() {
                let sid = sids[i];
                let mut j = i + 1;
                while j < toks.len() && sids[j] == sid {
                    j += 1;
                }
                if test(sid) {
                    for &t in &toks[i..j] {
                        mask.insert(t as usize);
                    }
                }
                i = j;
            }
            if nodes.is_empty() {
                return;
            }
            // Keep only viable boundaries (their light path must be viable).
            self.bytes.clear();
            let dfa = &*self.pool[a].language().dfa;
            for (&m, &pq) in nodes.iter().zip(pstates) {
                if pq & crate::lexeme_starts::NO_ACCEPT != 0 {
                    continue; // nothing to end the lexeme at: refused
                }
                if test(starts.set_of(pq))
                    && !surely_refused(&self.pool[a], dfa, pq, starts.byte_of(m as usize))
                {
                    self.bytes.extend_from_slice(&m.to_le_bytes());
                    self.bytes.extend_from_slice(&pq.to_le_bytes());
                }
            }
        }
        let viable: Vec<(u32, u32)> = self
            .bytes
            .chunks_exact(8)
            .map(|c| (u32::from_le_bytes([c[0], c[1], c[2], c[3]]), u32::from_le_bytes([c[4], c[5], c[6], c[7]])))
            .collect();
        let mut materialized = usize::MAX;
        let mut path = Vec::new();
        // The parser's acceptable set after the parent's lexeme, when it is known to
        // decide the next lexeme's first byte (see `after_lexeme`).
        let mut after: Option<Option<espalier_grammar::TermSet>> = None;
        // Per byte class (content / whitespace-or-#), the acceptable set a sibling's
        // successful push revealed: the lexeme that ends is the same for every sibling
        // and the indentation layer treats all bytes of a class alike, so the first
        // byte of every other sibling of that class is decided by this set alone.
        let mut class_acc: [Option<espalier_grammar::TermSet>; 2] = [None, None];
        let dfa_arc = self.pool[a].language().dfa.clone();
        let dfa = &*dfa_arc;
        for (m, pq) in viable {
            let m = m as usize;
            let p = starts.parent(m);
            if p != materialized {
                after = None;
                class_acc = [None, None];
                let (lo, hi) = self.pool.split_at_mut(a + 1);
                hi[0].clone_from(&lo[a]);
                path.clear();
                starts.path_bytes(n, p, &mut path);
                for &b in &path {
                    let ok = hi[0].push_byte(b).is_ok();
                    debug_assert!(ok, "light path refused by the recognizer");
                }
                self.last_heavy += path.len();
                materialized = p;
            }
            let (byte, tok, _, _) = trie.node_info(m);
            let first = dfa.next(espalier_grammar::LexerDfa::START, byte);
            let class = usize::from(matches!(byte, b' ' | b'\t' | b'\x0c' | b'\r' | b'\n' | b'#'));
            let clean = !dfa.winners(pq).is_empty();
            if let (true, Some(set)) = (clean, &class_acc[class]) {
                if first == espalier_grammar::LexerDfa::DEAD || !dfa.reachable(first).intersects(set) {
                    continue;
                }
            }
            let after = after.get_or_insert_with(|| after_lexeme(&self.pool[a + 1], pq));
            if let Some(set) = after {
                if first == espalier_grammar::LexerDfa::DEAD || !dfa.reachable(first).intersects(set) {
                    continue;
                }
            }
            let (lo, hi) = self.pool.split_at_mut(a + 2);
            hi[0].clone_from(&lo[a + 1]);
            self.last_heavy += 1;
            if hi[0].push_byte(byte).is_err() {
                continue;
            }
            if hi[0].remainder().len == 1 {
                if clean && class_acc[class].is_none() {
                    class_acc[class] = Some(hi[0].acceptable_terminals().clone());
                }
                let (t, ts) = starts.inlex(m);
                let (b, bs) = starts.bounds(m);
                self.summarize(level + 1, m, (t, ts, b, bs), trie, starts, mask);
            } else {
                if tok != u32::MAX {
                    mask.insert(tok as usize);
                }
                self.fallback.reset(&self.pool[a + 2]);
                trie.walk_below(m, &mut self.fallback, mask);
                self.last_heavy += self.fallback.heavy_steps;
            }
        }
    }
}

/// The acceptable set right after the lexeme in progress in `state` (lexer state
/// `q`) ends, when that set alone decides whether the next lexeme may start with a
/// given byte: the lexeme has one winner, which the parser takes, which is not
/// ignored (so not Python's NL either: indentation is decided only after a newline),
/// and the set holds no INDENT / DEDENT. `None` when unsure.
fn after_lexeme<P: TokenParser>(state: &GrammarRecognizer<P>, q: u32) -> Option<espalier_grammar::TermSet> {
    let lang = state.language();
    let winners = lang.dfa.winners(q);
    if winners.len() != 1 || lang.ignored.contains(winners[0]) || state.remainder().dfa_state != q {
        return None;
    }
    let acc = state.accept_sequences();
    let (_, set) = acc.a1.into_iter().find(|(t, _)| *t == winners[0])?;
    if let Some(py) = &lang.python {
        if set.contains(py.indent) || set.contains(py.dedent) || winners[0] == py.nl {
            return None;
        }
    }
    Some(set)
}

/// Whether the full recognizer, in a state whose lexer is at `q` (inside the
/// lexeme of `state`, same acceptable set), surely refuses `byte` when the DFA dies
/// there: a cheap test that avoids a recognizer clone and step (and the error value
/// it builds) for most boundary bytes. Exact reasoning, conservative where unsure:
/// - the lexeme ends as the winners of `q` (when `q` has none, pending bytes would be
///   re-read: unsure); if none of them is acceptable, the parser refuses it;
/// - if they are ignored terminals other than Python's NL, the parser does not move,
///   so unless INDENT / DEDENT may come (the indentation layer can change the
///   acceptable set), the next lexeme starting with `byte` must meet the same set.
pub(crate) fn surely_refused<P: TokenParser>(
    state: &GrammarRecognizer<P>,
    dfa: &espalier_grammar::LexerDfa,
    q: u32,
    byte: u8,
) -> bool {
    use espalier_grammar::LexerDfa;
    let winners = dfa.winners(q);
    if winners.is_empty() || q == LexerDfa::START || dfa.next(q, byte) != LexerDfa::DEAD {
        return false;
    }
    let acceptable = state.acceptable_terminals();
    if !winners.iter().any(|&t| acceptable.contains(t)) {
        return true;
    }
    let lang = state.language();
    let (nl, layout) = match &lang.python {
        Some(py) => (Some(py.nl), acceptable.contains(py.indent) || acceptable.contains(py.dedent)),
        None => (None, false),
    };
    if layout || !winners.iter().all(|&t| lang.ignored.contains(t) && Some(t) != nl) {
        return false;
    }
    let s = dfa.next(LexerDfa::START, byte);
    s == LexerDfa::DEAD || !dfa.reachable(s).intersects(acceptable)
}

/// Keeps [`Recognizer`] in scope for the fallback walk.
#[allow(dead_code)]
fn _assert_recognizer<P: TokenParser>(w: &mut LexWalker<P>) -> bool {
    w.try_push_byte(b' ')
}
