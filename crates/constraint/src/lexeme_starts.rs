//! Per-trie-node summaries that let `exact` skip whole subtrees: the XGrammar idea of
//! context-independent tokens, cut to what our lexer makes of them.
//!
//! Observation: the lexer DFA does not depend on the parser, and a new lexeme always
//! starts in the DFA's START state. So if a lexeme starts at trie node `n` (the byte
//! on the edge into `n` is its first byte), then for every token below `n` the rest of
//! the token either stays inside that lexeme, and is allowed iff the terminals still
//! reachable from its final DFA state meet the parser's acceptable set `A` (the
//! recognizer's own test, see [`crate::lexer_walk`]), or the DFA dies at a fixed node
//! `m` below `n` (a boundary), where the full recognizer must decide. Both facts
//! depend only on the trie, so they are computed once per (grammar, vocabulary):
//! - `inlex(n)`: the tokens below `n` (and `n`'s own) that stay in the lexeme,
//!   grouped by the class of their final state (equivalent states: same winners after
//!   every continuation), each group with its reachable set's id: the exact mask
//!   tests the set, the finishing mask ([`crate::finishing_walk`]) costs the class
//!   once (finish8: 8.3 MB for Python x SmolLM2 against 7.0 MB grouped by set alone);
//! - `bounds(n)`: the boundary nodes below `n`, each with the lexer state of its
//!   parent (the light path up to it must still be viable, and the lexeme it ends is
//!   the parent state's winner).
//!
//! At mask time a lexeme start at `n` costs one intersection per distinct reachable
//! set plus one lookup per listed token (or one bitset union per big group), instead
//! of a recognizer step per trie node.
//!
//! The text usually ends inside a lexeme, so the root of the trie is one more
//! lexeme start, read from the remainder's lexer state: the root summaries, one per
//! class of equivalent lexer states (Python: 878 classes of 2,616 states, counted
//! independently in `tests/it/root_summaries.rs`), are all
//! built with the rest, so no mask pays for one (issue 16: built on first use, the
//! first mask inside a string cost 2.0-2.7 ms; all of them take ~0.1 s of CPU at
//! setup, and string bodies keep ~49k tokens in the lexeme: one 6 KB bitset each).
//! Size for Python x SmolLM2: see `memory_bytes` (reported by `espalier bench` as
//! `summaries_bytes`).
//!
//! One file of ~640 lines: the summaries' layout (`Groups`, `Part`, the flag bits),
//! their build (`scan`) and their reading (`Lists`) are one data structure whose parts
//! must agree bit for bit; the lexer states' classes it is built from are in
//! [`crate::lexer_state_classes`].

use espalier_grammar::{DfaState, LexerDfa, TermSet};

use crate::lexer_state_classes::{equivalent_states, reachable_sets, state_classes, winner_ids};
use crate::{TokTrie, TokenSet};

/// Groups of at least this many tokens (same class of final state, same lexeme start) also
/// get a dense bitset, so an allowed group costs one pass over the mask's 768 words
/// (~0.1 us) instead of one insertion per token (~1 ns each): a mask allows ~38k
/// tokens on average over the benchmark files, most of them in a few big groups.
/// 256 bounds the memory (a bitset is 6 KB; a token is in few groups).
pub(crate) const DENSE_MIN: usize = 256;

/// The summaries (see the module doc), indexed by trie node.
#[derive(Clone, Debug)]
pub struct LexemeStarts {
    /// Distinct reachable-terminal sets.
    pub(crate) sets: Vec<TermSet>,
    /// Per trie node: the index of its first group in `groups` (one more entry at
    /// the end).
    group_start: Vec<u32>,
    /// Every node's tokens staying in the lexeme, grouped.
    groups: Groups,
    bound_start: Vec<u32>,
    bound_node: Vec<u32>,
    /// Per boundary, its parent's lexer state with the boundary's facts (see
    /// [`STATE_BITS`]).
    bound_state: Vec<u32>,
    /// Parent of every trie node (the root's is itself).
    parent: Vec<u32>,
    /// Edge byte of every trie node.
    byte: Vec<u8>,
    /// Reachable-set id of every lexer DFA state.
    state_set: Vec<u16>,
    /// Class id of every lexer DFA state (classes of equivalent states, numbered
    /// densely: tokens are grouped by the class they end in, see [`Groups`]).
    state_class: Vec<u16>,
    /// Per class id: its representative state and its reachable-set id.
    class_rep: Vec<u32>,
    class_sid: Vec<u16>,
    /// Per lexer DFA state, the id of its winners (states with equal winner lists
    /// share it), so that comparing two states' winners is one integer comparison.
    winners_id: Vec<u32>,
    /// Number of token ids (the dense bitsets' size).
    vocab_len: usize,
    /// Every lexer state's representative: the smallest state equivalent to it (same
    /// winners after every continuation, so the same summary from the root). Python's
    /// 2,616 states fall into 880 classes (878 besides DEAD's and START's), so a third
    /// of the root summaries are built.
    state_rep: Vec<u32>,
    /// Per lexer state: the index in `roots` of its class's summary of the whole
    /// trie (`u32::MAX` for DEAD and START, which are never a remainder's state).
    root_of: Vec<u32>,
    /// The whole trie's summary from every class of remainder states, all built
    /// with the rest (see [`LexemeStarts::build`]).
    roots: Vec<Part>,
}

/// Marks, in a boundary's parent state, a lexeme with no accepting prefix yet: the
/// recognizer then refuses the boundary byte (no lexeme to end), without trying.
pub(crate) const NO_ACCEPT: u32 = 1 << 31;
/// A boundary's entry in `bound_state` holds the parent's lexer state in these bits
/// (lexers with more states get no summaries), [`NO_ACCEPT`], and two facts fixed
/// by the lexer and the boundary byte, so that a mask reads them with the state
/// instead of looking them up in the lexer's tables for every boundary (a mask goes
/// through ~390 boundaries on the benchmark files):
pub(crate) const STATE_BITS: u32 = 0xFFFF;
/// - the parent's state has no winner, or the byte does not kill the lexeme: the
///   lexer would back up and re-read, so the recognizer must decide;
pub(crate) const UNUSUAL: u32 = 1 << 16;
/// - the boundary byte starts no lexeme: everything below is refused.
pub(crate) const FIRST_DEAD: u32 = 1 << 17;
/// - (root summaries only) the byte kills the lexeme and no state on the path below
///   the root has winners: the recognizer ends the lexeme at the remainder's own
///   last accepting point and re-reads the remainder's bytes after it, whatever
///   the path. If that re-reading fails, every such boundary is refused, which a
///   mask finds out once ([`crate::exact`]) instead of once per boundary: inside a
///   string every byte that ends it unusually (a newline in a `'` string, a byte no
///   UTF-8 text has) re-read the string's text, 20-30 us of a 27 us mask.
pub(crate) const ROOT_REREAD: u32 = 1 << 18;
/// Stack mark of [`scan`] from the root: no state below the root has winners yet.
const ROOT_PATH: u32 = 1 << 30;

/// The lexer state of a packed entry (its low [`STATE_BITS`]; the high bits are marks).
#[inline(always)]
pub(crate) fn state_of(entry: u32) -> DfaState {
    DfaState::new(entry & STATE_BITS)
}

/// `qm` (a parent state, maybe with [`NO_ACCEPT`]) with the facts of the boundary
/// byte `byte` below it (see [`STATE_BITS`]).
fn bound_entry(dfa: &LexerDfa, qm: u32, byte: u8) -> u32 {
    let q = state_of(qm);
    let mut entry = qm & (STATE_BITS | NO_ACCEPT);
    if dfa.winners(q).is_empty() || dfa.next(q, byte) != LexerDfa::DEAD {
        entry |= UNUSUAL;
    }
    if qm & ROOT_PATH != 0 && dfa.next(q, byte) == LexerDfa::DEAD {
        entry |= ROOT_REREAD;
    }
    if dfa.next(LexerDfa::START, byte) == LexerDfa::DEAD {
        entry |= FIRST_DEAD;
    }
    entry
}

/// What a scan of one subtree finds: tokens staying in the lexeme (with
/// reachable-set ids, sorted by id) and boundary nodes (with their parent's lexer
/// state and the boundary's facts, see [`STATE_BITS`]).
#[derive(Clone, Debug, Default)]
struct Raw {
    inlex_tok: Vec<u32>,
    /// Per token, the class id of its final lexer state.
    inlex_set: Vec<u16>,
    bound_node: Vec<u32>,
    bound_state: Vec<u32>,
}

/// Token groups (runs of tokens whose final lexer states are equivalent, so share one
/// reachable-set id), one after another: a mask tests each group's set once and
/// takes or skips the group whole, and the finishing mask (`crate::finishing_walk`)
/// costs each group once (equivalent states have the same remaining cost). Groups of
/// at least [`DENSE_MIN`] tokens are kept only as a bitset (a string body keeps ~49k
/// tokens in the lexeme: 6 KB as a bitset instead of 300 KB as a list).
#[derive(Clone, Debug, Default)]
pub(crate) struct Groups {
    /// The tokens of the listed groups.
    toks: Vec<u32>,
    /// Per group, the index of its first token in `toks` (one more entry at the end:
    /// group `g`'s tokens are `toks[first[g]..first[g + 1]]`, empty for a bitset).
    first: Vec<u32>,
    /// Per group, its reachable-set id.
    sid: Vec<u16>,
    /// Per group, the representative lexer state of its class.
    rep: Vec<u32>,
    /// Per group, one of its tokens (the smallest id).
    first_tok: Vec<u32>,
    /// Per group, its index in `sets`, or `u32::MAX` when listed.
    dense: Vec<u32>,
    sets: Vec<TokenSet>,
}

impl Groups {
    fn new() -> Self {
        Groups { first: vec![0], ..Default::default() }
    }

    /// Appends the groups of `toks` / `cids` (sorted by class id, then token); the
    /// classes' representatives and set ids are `class_rep` / `class_sid`.
    fn push_sorted(
        &mut self,
        toks: &[u32],
        cids: &[u16],
        class_rep: &[u32],
        class_sid: &[u16],
        vocab_len: usize,
    ) {
        let mut i = 0;
        while i < toks.len() {
            let mut j = i + 1;
            while j < toks.len() && cids[j] == cids[i] {
                j += 1;
            }
            if j - i >= DENSE_MIN {
                let mut set = TokenSet::empty(vocab_len);
                for &t in &toks[i..j] {
                    set.insert(t as usize);
                }
                self.dense.push(self.sets.len() as u32);
                self.sets.push(set);
            } else {
                self.toks.extend_from_slice(&toks[i..j]);
                self.dense.push(u32::MAX);
            }
            self.sid.push(class_sid[cids[i] as usize]);
            self.rep.push(class_rep[cids[i] as usize]);
            self.first_tok.push(toks[i..j].iter().copied().min().unwrap_or(0));
            self.first.push(self.toks.len() as u32);
            i = j;
        }
    }

    /// Number of groups.
    pub(crate) fn len(&self) -> usize {
        self.sid.len()
    }

    /// Group `g`'s reachable-set id.
    #[inline]
    pub(crate) fn sid(&self, g: usize) -> u16 {
        self.sid[g]
    }

    /// Group `g`'s class representative (a lexer state equivalent to every token's
    /// final state).
    #[inline]
    pub(crate) fn rep(&self, g: usize) -> DfaState {
        DfaState::new(self.rep[g])
    }

    /// One token of group `g`.
    #[inline]
    pub(crate) fn first_tok(&self, g: usize) -> u32 {
        self.first_tok[g]
    }

    /// Calls `f` on every token of group `g`.
    pub(crate) fn for_each(&self, g: usize, mut f: impl FnMut(u32)) {
        match self.dense[g] {
            u32::MAX => self.toks[self.first[g] as usize..self.first[g + 1] as usize]
                .iter()
                .for_each(|&t| f(t)),
            d => self.sets[d as usize].iter().for_each(|t| f(t as u32)),
        }
    }

    /// Adds group `g`'s tokens to `mask`.
    #[inline(always)]
    pub(crate) fn add_to(&self, g: usize, mask: &mut TokenSet) {
        match self.dense[g] {
            u32::MAX => {
                for &t in &self.toks[self.first[g] as usize..self.first[g + 1] as usize] {
                    mask.insert(t as usize);
                }
            }
            d => mask.union_with(&self.sets[d as usize]),
        }
    }

    fn memory_bytes(&self, vocab_len: usize) -> usize {
        4 * self.toks.len() + 18 * self.sid.len() + self.sets.len() * vocab_len.div_ceil(8)
    }

    fn shrink_to_fit(&mut self) {
        self.toks.shrink_to_fit();
        self.first.shrink_to_fit();
        self.sid.shrink_to_fit();
        self.rep.shrink_to_fit();
        self.first_tok.shrink_to_fit();
        self.dense.shrink_to_fit();
        self.sets.shrink_to_fit();
    }
}

/// A root summary: the whole trie walked from one class of lexer states.
#[derive(Clone, Debug)]
pub(crate) struct Part {
    groups: Groups,
    bound_node: Vec<u32>,
    bound_state: Vec<u32>,
}

/// The lists one lexeme start hands to the mask walk: token groups staying in the
/// lexeme (`groups` numbered `g0..g1`), boundary nodes with their parents' lexer
/// states and their facts (see [`STATE_BITS`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lists<'a> {
    pub(crate) groups: &'a Groups,
    pub(crate) g0: usize,
    pub(crate) g1: usize,
    pub(crate) bound_node: &'a [u32],
    pub(crate) bound_state: &'a [u32],
}

impl Part {
    /// This summary as [`Lists`].
    pub(crate) fn lists(&self) -> Lists<'_> {
        Lists {
            groups: &self.groups,
            g0: 0,
            g1: self.groups.len(),
            bound_node: &self.bound_node,
            bound_state: &self.bound_state,
        }
    }
}

/// Walks the subtree of `start` from DFA state `q` (the state after `start`'s byte,
/// or at the root the remainder's state), pruning at boundaries; `with_start` says
/// whether `start`'s own token counts.
#[allow(clippy::too_many_arguments)]
fn scan(
    trie: &TokTrie,
    dfa: &LexerDfa,
    state_class: &[u16],
    start: usize,
    q: DfaState,
    with_start: bool,
    out: &mut Raw,
    stack: &mut Vec<(usize, u32)>,
) {
    // The high bit of a stack entry's state marks "no accepting state yet in this
    // lexeme" (only for lexemes that start at `start`; at the root the lexeme began
    // in the committed text, which may have accepted: unknown, so never marked).
    stack.clear();
    let mark0 = match with_start {
        true if dfa.winners(q).is_empty() => NO_ACCEPT,
        true => 0,
        false => ROOT_PATH,
    };
    stack.push((start, q.as_u32() | mark0));
    let first = out.inlex_tok.len();
    while let Some((i, qm)) = stack.pop() {
        let qi = state_of(qm);
        let (_, tok, size, _) = trie.node_info(i);
        if tok != u32::MAX && (i != start || with_start) {
            out.inlex_tok.push(tok);
            out.inlex_set.push(state_class[qi.index()]);
        }
        let end = i + size;
        let mut c = i + 1;
        let mark = stack.len();
        while c < end {
            let (cb, _, csize, _) = trie.node_info(c);
            let qc = dfa.next(qi, cb);
            if qc == LexerDfa::DEAD || qc == LexerDfa::START {
                out.bound_node.push(c as u32);
                out.bound_state.push(bound_entry(dfa, qm, cb));
            } else {
                // Both marks last while the path meets no winners.
                let m = if dfa.winners(qc).is_empty() { qm & (NO_ACCEPT | ROOT_PATH) } else { 0 };
                stack.push((c, qc.as_u32() | m));
            }
            c += csize;
        }
        stack[mark..].reverse();
    }
    group_by_class(out, first);
}

/// Groups the summary's tokens from `first` on by class (so by reachable set too),
/// so a mask tests each set once and skips refused groups whole.
fn group_by_class(out: &mut Raw, first: usize) {
    let len = out.inlex_tok.len() - first;
    if len > 4096 {
        // Root summaries hold up to the whole vocabulary: a counting sort by set id
        // (a few hundred ids) instead of a comparison sort halves their build time,
        // which a mask pays the first time it meets a lexer state.
        let num_sets = out.inlex_set[first..].iter().map(|&s| s as usize + 1).max().unwrap_or(0);
        let mut at = vec![0u32; num_sets + 1];
        for &sid in &out.inlex_set[first..] {
            at[sid as usize + 1] += 1;
        }
        for i in 1..at.len() {
            at[i] += at[i - 1];
        }
        let mut toks = vec![0u32; len];
        for (&sid, &tok) in out.inlex_set[first..].iter().zip(&out.inlex_tok[first..]) {
            toks[at[sid as usize] as usize] = tok;
            at[sid as usize] += 1;
        }
        out.inlex_tok.truncate(first);
        out.inlex_tok.extend_from_slice(&toks);
        out.inlex_set[first..].sort_unstable();
        return;
    }
    let mut pairs: Vec<(u16, u32)> = out.inlex_set[first..]
        .iter()
        .copied()
        .zip(out.inlex_tok[first..].iter().copied())
        .collect();
    pairs.sort_unstable();
    for (k, (sid, tok)) in pairs.into_iter().enumerate() {
        out.inlex_set[first + k] = sid;
        out.inlex_tok[first + k] = tok;
    }
}

/// Every trie node's parent and byte, from preorder: a node's parent is the nearest
/// earlier node whose subtree contains it.
fn parents_and_bytes(trie: &TokTrie) -> (Vec<u32>, Vec<u8>) {
    let n = trie.node_count();
    let (mut parent, mut byte) = (vec![0; n], vec![0; n]);
    let mut path: Vec<usize> = vec![0];
    for i in 1..n {
        while let Some(&top) = path.last() {
            let (_, _, size, _) = trie.node_info(top);
            if top + size > i {
                break;
            }
            path.pop();
        }
        parent[i] = *path.last().unwrap_or(&0) as u32;
        byte[i] = trie.node_info(i).0;
        path.push(i);
    }
    (parent, byte)
}

impl LexemeStarts {
    /// Computes the summaries of every trie node for the lexer `dfa`. Returns `None`
    /// when the lexer has more than 65,535 states or distinct reachable sets (16-bit
    /// ids: Python has 2,616 states and a few hundred sets) — callers then walk node
    /// by node.
    pub fn build(trie: &TokTrie, dfa: &LexerDfa) -> Option<LexemeStarts> {
        let n = trie.node_count();
        if dfa.num_states() > STATE_BITS as usize {
            return None;
        }
        let (sets, state_set) = reachable_sets(dfa)?;
        let state_rep = equivalent_states(dfa);
        let (class_rep, state_class) = state_classes(&state_rep, STATE_BITS as usize)?;
        let class_sid: Vec<u16> = class_rep.iter().map(|&r| state_set[r as usize]).collect();
        let (parent, byte) = parents_and_bytes(trie);
        let mut out = LexemeStarts {
            sets,
            state_set,
            state_class,
            class_rep,
            class_sid,
            winners_id: winner_ids(dfa),
            group_start: Vec::with_capacity(n + 1),
            groups: Groups::new(),
            bound_start: Vec::with_capacity(n + 1),
            bound_node: Vec::new(),
            bound_state: Vec::new(),
            parent,
            state_rep,
            root_of: Vec::new(),
            roots: Vec::new(),
            vocab_len: trie.vocab_len(),
            byte,
        };
        let mut scratch = Vec::new();
        out.build_node_summaries(trie, dfa, &mut scratch);
        out.build_roots(trie, dfa, &mut scratch);
        Some(out)
    }

    /// Builds the summary of every trie node where a lexeme may start (the lexer
    /// neither dies nor ends on its byte).
    fn build_node_summaries(
        &mut self,
        trie: &TokTrie,
        dfa: &LexerDfa,
        scratch: &mut Vec<(usize, u32)>,
    ) {
        let mut raw = Raw::default();
        for start in 0..trie.node_count() {
            self.group_start.push(self.groups.len() as u32);
            self.bound_start.push(self.bound_node.len() as u32);
            if start == 0 {
                continue;
            }
            let (byte, _, _, _) = trie.node_info(start);
            let q = dfa.next(LexerDfa::START, byte);
            if q == LexerDfa::DEAD || q == LexerDfa::START {
                continue;
            }
            raw.inlex_tok.clear();
            raw.inlex_set.clear();
            raw.bound_node.clear();
            raw.bound_state.clear();
            scan(trie, dfa, &self.state_class, start, q, true, &mut raw, scratch);
            self.groups.push_sorted(
                &raw.inlex_tok,
                &raw.inlex_set,
                &self.class_rep,
                &self.class_sid,
                self.vocab_len,
            );
            self.bound_node.extend_from_slice(&raw.bound_node);
            self.bound_state.extend_from_slice(&raw.bound_state);
        }
        self.group_start.push(self.groups.len() as u32);
        self.groups.shrink_to_fit();
        self.bound_start.push(self.bound_node.len() as u32);
    }

    /// Builds the summary of the whole trie walked from every class of lexer states
    /// (the remainder the text ends in), so that no mask pays for one: built on first
    /// use, a string body's summary (~49k tokens stay in the lexeme) cost a mask up to
    /// 2.7 ms of CPU; all of Python's 878 classes take ~0.2 s here (issue 16).
    ///
    /// Equivalent states share a summary: the lists hold trie nodes, set ids and the
    /// lexer states of boundary parents, which the walk only asks about winners,
    /// reachable sets and dead transitions, all equal between equivalent states (the
    /// recognizer itself runs on the real text).
    fn build_roots(&mut self, trie: &TokTrie, dfa: &LexerDfa, scratch: &mut Vec<(usize, u32)>) {
        let n = dfa.num_states();
        self.root_of = vec![u32::MAX; n];
        for q in 2..n as u32 {
            let rep = DfaState::new(self.state_rep[q as usize]);
            if rep == LexerDfa::START || rep == LexerDfa::DEAD {
                continue;
            }
            if self.root_of[rep.index()] == u32::MAX {
                let mut raw = Raw::default();
                scan(trie, dfa, &self.state_class, 0, rep, false, &mut raw, scratch);
                let mut groups = Groups::new();
                groups.push_sorted(
                    &raw.inlex_tok,
                    &raw.inlex_set,
                    &self.class_rep,
                    &self.class_sid,
                    self.vocab_len,
                );
                groups.shrink_to_fit();
                self.root_of[rep.index()] = self.roots.len() as u32;
                self.roots.push(Part {
                    groups,
                    bound_node: raw.bound_node,
                    bound_state: raw.bound_state,
                });
            }
            self.root_of[q as usize] = self.root_of[rep.index()];
        }
    }

    /// The summary of the whole trie walked from lexer state `q` (a remainder the
    /// text ends in; not START), or `None` for a state the lexer does not have.
    pub(crate) fn root(&self, q: DfaState) -> Option<&Part> {
        let k = *self.root_of.get(q.index())?;
        self.roots.get(k as usize)
    }

    /// How many root summaries there are (one per class of equivalent lexer states).
    pub fn roots_built(&self) -> usize {
        self.roots.len()
    }

    /// Bytes of memory the summaries take.
    pub fn memory_bytes(&self) -> usize {
        5 * self.parent.len()
            + 4 * (self.group_start.len() + self.bound_start.len() + self.bound_node.len())
            + self.groups.memory_bytes(self.vocab_len)
            + 4 * self.bound_state.len()
            + self.sets.len() * 32
            + 4 * self.state_rep.len()
            + 2 * self.state_class.len()
            + 6 * self.class_rep.len()
            + 4 * self.winners_id.len()
            + 4 * self.root_of.len()
            + self
                .roots
                .iter()
                .map(|p| p.groups.memory_bytes(self.vocab_len) + 8 * p.bound_node.len())
                .sum::<usize>()
    }

    /// The lists of the lexeme starting at node `n` (see [`Lists`]).
    #[inline(always)]
    pub(crate) fn lists(&self, n: usize) -> Lists<'_> {
        let (c, d) = (self.bound_start[n] as usize, self.bound_start[n + 1] as usize);
        Lists {
            groups: &self.groups,
            g0: self.group_start[n] as usize,
            g1: self.group_start[n + 1] as usize,
            bound_node: &self.bound_node[c..d],
            bound_state: &self.bound_state[c..d],
        }
    }

    /// Appends to `out` the bytes on the path from node `from` (excluded) down to
    /// node `to` (included); `to` must be below `from`.
    #[inline(always)]
    pub(crate) fn path_bytes(&self, from: usize, to: usize, out: &mut Vec<u8>) {
        let start = out.len();
        let mut i = to;
        while i != from && i != 0 {
            out.push(self.byte[i]);
            i = self.parent[i] as usize;
        }
        out[start..].reverse();
    }

    /// The edge byte of trie node `i`.
    #[inline]
    pub(crate) fn byte_of(&self, i: usize) -> u8 {
        self.byte[i]
    }

    /// The parent of trie node `i`.
    #[inline]
    pub(crate) fn parent(&self, i: usize) -> usize {
        self.parent[i] as usize
    }

    /// The id of lexer state `q`'s winners (equal ids, equal winner lists).
    #[inline]
    pub(crate) fn winners_id(&self, q: DfaState) -> u32 {
        self.winners_id[q.index()]
    }

    /// The representative of lexer state `q`'s class of equivalent states.
    #[inline]
    pub(crate) fn rep_of(&self, q: DfaState) -> DfaState {
        DfaState::new(self.state_rep[q.index()])
    }

    /// The reachable-set id of lexer state `q`.
    #[inline]
    pub(crate) fn set_of(&self, q: DfaState) -> u16 {
        self.state_set[q.index()]
    }
}
