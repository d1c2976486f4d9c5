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
//!    grouped by their reachable-terminal set, big groups as dense bitsets; boundary
//!    nodes where the lexeme ends), recursively — no per-node work for the bulk of
//!    the vocabulary.
//! 3. At a boundary the lexeme is ended once per parent node (one parser step on a
//!    recognizer copy, or none at all for whitespace and comments, which the parser
//!    never sees), and every sibling's first byte is then decided by one DFA lookup
//!    and one set test: outside Python's line starts the first byte of a lexeme does
//!    not change the acceptable set. Verdicts "reachable set x acceptable set" are
//!    cached per mask, since few distinct acceptable sets occur in one mask.
//!
//! Measured on the benchmark files (`espalier bench mask`, 17,961 steps): a mask
//! visits ~180 lexeme starts and allows ~38k tokens on average.
//!
//! The exactness test checks the result against pushing every sampled token's bytes
//! through the full recognizer.

use std::sync::Arc;

use espalier_grammar::{LexerDfa, Recognizer as GrammarRecognizer, TermSet, TokenParser};

use crate::lexeme_starts::{LexemeStarts, Lists, NO_ACCEPT};
use crate::lexer_walk::{LexWalker, Push};
use crate::{Recognizer, TokTrie, TokenSet};

/// Scratch state for exact masks, reused across steps.
#[derive(Clone, Debug)]
pub struct ExactWalker<P: TokenParser> {
    walker: LexWalker<P>,
    fallback: LexWalker<P>,
    starts: Option<Arc<LexemeStarts>>,
    /// Full states: `pool[0]` the top anchor; at recursion level `l`, `pool[2l + 1]`
    /// the state after the lexeme ending at the current boundary parent, and
    /// `pool[2l + 2]` a scratch state (line starts, unusual boundaries).
    pool: Vec<GrammarRecognizer<P>>,
    /// Acceptable sets met in this mask (the first `n_accs`), each with its verdict
    /// per reachable-set id: 0 unknown, 1 disjoint, 2 meets.
    accs: Vec<(TermSet, Vec<u8>)>,
    n_accs: usize,
    path: Vec<u8>,
    /// Lexeme starts summarized by the last walk (plus trie nodes offered one by
    /// one, when the text ends between lexemes).
    pub last_nodes: usize,
    /// Full recognizer byte steps of the last walk (the expensive part).
    pub last_heavy: usize,
}

/// What ending the lexeme at a boundary's parent gave (see [`ExactWalker::summarize`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// The lexeme cannot end there: every boundary below the parent is refused.
    Refused,
    /// An ignored lexeme (whitespace, comment) ended: nothing changed for the
    /// parser, the anchor still describes the state.
    Virtual,
    /// `pool[2l + 1]` holds the state after the lexeme.
    Real,
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
            accs: Vec::new(),
            n_accs: 0,
            path: Vec::new(),
            last_nodes: 0,
            last_heavy: 0,
        }
    }

    /// Sets `mask` to exactly the non-special tokens whose bytes keep `state` viable.
    pub fn fill(&mut self, state: &GrammarRecognizer<P>, trie: &TokTrie, mask: &mut TokenSet) {
        mask.clear();
        self.walker.reset(state);
        self.last_heavy = 0;
        self.last_nodes = 0;
        self.n_accs = 0;
        let q = state.remainder().dfa_state;
        match self.starts.clone() {
            Some(starts) if q != LexerDfa::START => {
                // The text ends inside a lexeme (the usual case): the root is one more
                // lexeme start, summarized per remainder state.
                let part = starts.root(trie, &state.language().dfa, q);
                self.pool[0].clone_from(state);
                let acc = self.intern(0, &starts);
                self.summarize(0, part.lists(), 0, 0, acc, trie, &starts, mask);
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
                            let acc = self.intern(0, &starts);
                            self.summarize(0, starts.lists(i), 0, i, acc, trie, &starts, mask);
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
                self.last_nodes += nodes;
                self.last_heavy += self.walker.heavy_steps;
            }
        }
        trie.add_duplicates(mask);
        for (id, bytes) in trie.long_tokens() {
            let mut s = state.clone();
            if s.try_push_bytes(bytes) {
                mask.insert(*id as usize);
            }
        }
    }

    /// The id of `pool[slot]`'s acceptable set among those met in this mask.
    fn intern(&mut self, slot: usize, starts: &LexemeStarts) -> usize {
        let set = self.pool[slot].acceptable_terminals();
        if let Some(k) = self.accs[..self.n_accs].iter().position(|(s, _)| s == set) {
            return k;
        }
        let k = self.n_accs;
        if k == self.accs.len() {
            self.accs.push((set.clone(), Vec::new()));
        } else {
            self.accs[k].0.clone_from(set);
        }
        let verdicts = &mut self.accs[k].1;
        verdicts.clear();
        verdicts.resize(starts.sets.len(), 0);
        self.n_accs += 1;
        k
    }

    /// Whether reachable set `sid` meets acceptable set `acc` (cached).
    #[inline]
    fn meets(&mut self, acc: usize, sid: u16, starts: &LexemeStarts) -> bool {
        let (set, verdicts) = &mut self.accs[acc];
        let v = &mut verdicts[sid as usize];
        if *v == 0 {
            *v = 1 + u8::from(starts.sets[sid as usize].intersects(set));
        }
        *v == 2
    }

    /// Makes `pool[dst]` the full state at trie node `to`: `pool[anchor]` (the state
    /// at node `anchor_node`) plus the path bytes down to `to`. `false` if the
    /// recognizer refuses them (it should not: the path was viable by the light
    /// reasoning; treated as refused).
    fn materialize(&mut self, dst: usize, anchor: usize, anchor_node: usize, to: usize, starts: &LexemeStarts) -> bool {
        let (lo, hi) = self.pool.split_at_mut(dst);
        hi[0].clone_from(&lo[anchor]);
        self.path.clear();
        starts.path_bytes(anchor_node, to, &mut self.path);
        self.last_heavy += self.path.len();
        let ok = hi[0].try_push_bytes(&self.path);
        debug_assert!(ok, "light path refused by the recognizer");
        ok
    }

    /// Decides the subtree below a node `n` where a lexeme starts, from `n`'s
    /// `lists`; the full state after `n`'s byte is `pool[anchor]` plus the path bytes
    /// from `anchor_node` down to `n` (light steps: the acceptable set is
    /// `accs[acc]`).
    #[allow(clippy::too_many_arguments)]
    fn summarize(
        &mut self,
        level: usize,
        lists: Lists<'_>,
        anchor: usize,
        anchor_node: usize,
        acc: usize,
        trie: &TokTrie,
        starts: &LexemeStarts,
        mask: &mut TokenSet,
    ) {
        self.last_nodes += 1;
        while self.pool.len() < 2 * level + 3 {
            let s = self.pool[0].clone();
            self.pool.push(s);
        }
        // Tokens staying in the lexeme come grouped by reachable set: one test per
        // group, big groups as one bitset union.
        let (toks, sids) = (lists.toks, lists.sids);
        let mut i = 0;
        while i < toks.len() {
            let sid = sids[i];
            let mut j = i + 1;
            while j < toks.len() && sids[j] == sid {
                j += 1;
            }
            if self.meets(acc, sid, starts) {
                match (j - i >= crate::lexeme_starts::DENSE_MIN).then(|| lists.dense_group(i)).flatten() {
                    Some(d) => mask.union_with(d),
                    None => toks[i..j].iter().for_each(|&t| mask.insert(t as usize)),
                }
            }
            i = j;
        }
        if lists.bound_node.is_empty() {
            return;
        }
        let (e_slot, scratch) = (2 * level + 1, 2 * level + 2);
        let dfa_arc = self.pool[anchor].language().dfa.clone();
        let dfa = &*dfa_arc;
        let lang = self.pool[anchor].language().clone();
        let anchor_at_line_start = self.pool[anchor].at_line_start();
        // The boundary parent whose lexeme end is in hand, and what it gave.
        let mut cur = usize::MAX;
        let mut ended = Ended::Refused;
        let mut e_acc = acc;
        let mut e_line_start = false;
        // At a line start: the acceptable set after the first content byte (the same
        // for every content byte: indentation is decided before the byte is read).
        let mut content_acc: Option<usize> = None;
        for (&m, &pq) in lists.bound_node.iter().zip(lists.bound_state) {
            if pq & NO_ACCEPT != 0 {
                continue; // nothing to end the lexeme at: refused
            }
            // The light path down to the parent must be viable.
            if !self.meets(acc, starts.set_of(pq), starts) {
                continue;
            }
            let m = m as usize;
            let p = starts.parent(m);
            let byte = starts.byte_of(m);
            let winners = dfa.winners(pq);
            if winners.is_empty() || dfa.next(pq, byte) != LexerDfa::DEAD {
                // The lexer would back up and re-read: let the recognizer decide.
                self.unusual(level, m, p, anchor, anchor_node, trie, starts, mask);
                continue;
            }
            if p != cur {
                cur = p;
                content_acc = None;
                let acceptable = &self.accs[acc].0;
                ended = if !winners.iter().any(|&t| acceptable.contains(t)) {
                    Ended::Refused
                } else if !anchor_at_line_start && winners.iter().all(|&t| lang.ignored.contains(t) && !lang.is_layout_newline(t)) {
                    e_acc = acc;
                    e_line_start = false;
                    Ended::Virtual
                } else if self.materialize(e_slot, anchor, anchor_node, p, starts) && self.pool[e_slot].end_lexeme() {
                    self.last_heavy += 1;
                    e_acc = self.intern(e_slot, starts);
                    e_line_start = self.pool[e_slot].at_line_start();
                    Ended::Real
                } else {
                    Ended::Refused
                };
            }
            if ended == Ended::Refused {
                continue;
            }
            let first = dfa.next(LexerDfa::START, byte);
            if first == LexerDfa::DEAD {
                continue;
            }
            let content = !matches!(byte, b' ' | b'\t' | b'\x0c' | b'\r' | b'\n' | b'#');
            if e_line_start && content {
                // Python's indentation decides INDENT / DEDENT now.
                if let Some(c) = content_acc {
                    if !dfa.reachable(first).intersects(&self.accs[c].0) {
                        continue;
                    }
                }
                let (lo, hi) = self.pool.split_at_mut(scratch);
                hi[0].clone_from(&lo[e_slot]);
                self.last_heavy += 1;
                if !hi[0].try_push_byte(byte) {
                    continue;
                }
                let a2 = self.intern(scratch, starts);
                content_acc.get_or_insert(a2);
                self.summarize(level + 1, starts.lists(m), scratch, m, a2, trie, starts, mask);
                continue;
            }
            if !dfa.reachable(first).intersects(&self.accs[e_acc].0) {
                continue;
            }
            let (a, an) = if ended == Ended::Virtual { (anchor, anchor_node) } else { (e_slot, p) };
            self.summarize(level + 1, starts.lists(m), a, an, e_acc, trie, starts, mask);
        }
    }

    /// A boundary the lists cannot decide alone (the lexer backs up and re-reads
    /// bytes there): the full recognizer takes the boundary byte; the subtree below is
    /// summarized if a lexeme starts exactly there, else walked node by node.
    #[allow(clippy::too_many_arguments)]
    fn unusual(
        &mut self,
        level: usize,
        m: usize,
        p: usize,
        anchor: usize,
        anchor_node: usize,
        trie: &TokTrie,
        starts: &LexemeStarts,
        mask: &mut TokenSet,
    ) {
        let scratch = 2 * level + 2;
        if !self.materialize(scratch, anchor, anchor_node, p, starts) {
            return;
        }
        let (byte, tok, _, _) = trie.node_info(m);
        self.last_heavy += 1;
        if !self.pool[scratch].try_push_byte(byte) {
            return;
        }
        if self.pool[scratch].remainder().len == 1 {
            let a2 = self.intern(scratch, starts);
            self.summarize(level + 1, starts.lists(m), scratch, m, a2, trie, starts, mask);
        } else {
            if tok != u32::MAX {
                mask.insert(tok as usize);
            }
            self.fallback.reset(&self.pool[scratch]);
            trie.walk_below(m, &mut self.fallback, mask);
            self.last_heavy += self.fallback.heavy_steps;
        }
    }
}

/// Whether the full recognizer, in a state whose lexer is at `q` (inside the
/// lexeme of `state`, same acceptable set), surely refuses `byte` when the DFA dies
/// there: a cheap test that avoids a recognizer clone and step (and the error value
/// it builds) for most boundary bytes. Exact reasoning, conservative where unsure:
/// - the lexeme ends as the winners of `q` (when `q` has none, pending bytes would be
///   re-read: unsure); if none of them is acceptable, the parser refuses it;
/// - if they are ignored terminals other than a layout newline (Python's NL, Go's
///   newlines, see `Language::is_layout_newline`), the parser does not move,
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
    let layout = lang.python.as_ref().is_some_and(|py| acceptable.contains(py.indent) || acceptable.contains(py.dedent));
    if layout || !winners.iter().all(|&t| lang.ignored.contains(t) && !lang.is_layout_newline(t)) {
        return false;
    }
    let s = dfa.next(LexerDfa::START, byte);
    s == LexerDfa::DEAD || !dfa.reachable(s).intersects(acceptable)
}

