//! The `syncode` strategy: SynCode's DFA mask store, precomputed once per (grammar,
//! vocabulary) and looked up with the recognizer's accept sequences and remainder.
//!
//! For every lexer DFA state `q` (the remainder's state) the store keeps token lists:
//! - `M0[q][τ]`: tokens whose bytes stay inside the current lexeme from `q` and can
//!   still become terminal `τ` (`τ ∈ reachable(δ*(q, t))`). With `τ` ranging over A0
//!   this is exactly what the recognizer accepts for in-lexeme tokens.
//! - `M1[q][τ1][τ2]`: tokens `w1·w2` where `w1` takes `q` to a state where the lexeme
//!   may end as `τ1`, and `w2` (non-empty) is a live prefix of `τ2` or completes `τ2`
//!   and goes on with anything (SynCode's over-approximation once the accept sequence
//!   is used up). Used with A1 pairs `(τ1, after)` for `τ2 ∈ after`.
//! - `M1*[q][τ1]`: the same without `τ2` (anything after `τ1`): used when the parser's
//!   set after `τ1` is unknown (the remainder cannot complete as `τ1` yet, or the
//!   next lexeme may start with INDENT / DEDENT, which the Python layer decides only
//!   when the next lexeme's first byte arrives).
//!
//! A0 containing INDENT or DEDENT widens A0 to every terminal for the same reason.
//! The mask is the union of the rows selected; it is sound (every viable token is in
//! it) and over-approximates where tokens span lexemes; the exactness test measures
//! by how much. A remainder that may still split into several lexemes (`..`) is not
//! described by accept sequences: [`crate::GrammarConstraint`] then uses the exact
//! mask instead.
//!
//! Representation: rows are token-id lists, deduplicated (many DFA states share
//! rows), in one CSR array; `M0` and `M1*` are indexed densely by (state, terminal),
//! `M1` by (state, τ1) into sorted `(τ2, row)` pairs. The store is keyed by an FNV-1a
//! hash of the lexer DFA and the vocabulary's bytes; [`MaskStore::to_bytes`] /
//! [`MaskStore::from_bytes`] serialize it (the caller picks where to keep it: no
//! filesystem in the core beyond the native convenience [`MaskStore::load_or_build`]).

use std::collections::HashMap;

use espalier_grammar::{
    DfaState, Language, LexerDfa, Recognizer as GrammarRecognizer, TermSet, TerminalId, TokenParser,
};

use crate::{TokenSet, Vocab};

mod store_bytes;
pub use store_bytes::StoreError;

const NONE: u32 = u32::MAX;
/// The format's version, in the bytes and in the key.
const MAGIC: &[u8; 8] = b"ESPMS002";

/// SynCode's precomputed DFA mask store (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MaskStore {
    key: u64,
    num_states: u32,
    num_terms: u32,
    vocab_len: u32,
    /// Row id per (state, terminal), `NONE` when empty.
    m0: Vec<u32>,
    /// Row id per (state, τ1) for "anything after τ1".
    m1_any: Vec<u32>,
    /// Per (state, τ1): range into `m1_pairs`.
    m1_start: Vec<u32>,
    /// `(τ2, row)` sorted by τ2 within each (state, τ1) range.
    m1_pairs: Vec<(u32, u32)>,
    /// CSR rows: row `r` is `tokens[offsets[r]..offsets[r + 1]]`.
    offsets: Vec<u32>,
    tokens: Vec<u32>,
    /// INDENT / DEDENT terminal ids (Python layer), which widen A0 and A1.
    layout_terms: Vec<u32>,
    /// Long rows also as bitsets (index per row, `NONE` for short rows): a union of
    /// a 40k-token row costs ~770 word ORs instead of 40k inserts. Rebuilt on load,
    /// not serialized.
    dense_of: Vec<u32>,
    dense: Vec<TokenSet>,
}

/// Rows at least this long get a bitset copy (49,152 tokens = 768 words: a row of
/// 2,048 ids already costs more to insert one by one than to OR).
const DENSE_ROW: usize = 2048;

fn densify(offsets: &[u32], tokens: &[u32], vocab_len: usize) -> (Vec<u32>, Vec<TokenSet>) {
    let rows = offsets.len().saturating_sub(1);
    let mut dense_of = vec![NONE; rows];
    let mut dense = Vec::new();
    for r in 0..rows {
        let row = &tokens[offsets[r] as usize..offsets[r + 1] as usize];
        if row.len() >= DENSE_ROW {
            let mut set = TokenSet::empty(vocab_len);
            for &t in row {
                set.insert(t as usize);
            }
            dense_of[r] = dense.len() as u32;
            dense.push(set);
        }
    }
    (dense_of, dense)
}

/// FNV-1a, 64 bits: a stable hash for cache keys (no dependency, same on every
/// platform and Rust version).
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn u32(&mut self, x: u32) {
        self.bytes(&x.to_le_bytes());
    }
}

/// The cache key of a (grammar, vocabulary) pair: the lexer DFA (transitions,
/// winners, reachable sets), the terminal names and every token's bytes.
pub fn store_key(lang: &Language, vocab: &Vocab) -> u64 {
    let mut h = Fnv::new();
    h.bytes(MAGIC);
    let dfa = &lang.dfa;
    h.u32(dfa.num_states() as u32);
    for s in dfa.states() {
        for b in 0..=255u8 {
            h.u32(dfa.next(s, b).as_u32());
        }
        for &t in dfa.winners(s) {
            h.u32(t.as_u32());
        }
        h.u32(NONE);
        for t in dfa.reachable(s).iter() {
            h.u32(t.as_u32());
        }
        h.u32(NONE);
    }
    for t in &lang.grammar.terminals {
        h.bytes(t.name.as_bytes());
        h.u32(NONE);
    }
    h.u32(vocab.len() as u32);
    for id in 0..vocab.len() as u32 {
        h.u32(vocab.bytes(id).len() as u32);
        h.bytes(vocab.bytes(id));
        h.u32(u32::from(vocab.is_special(id)));
    }
    h.0
}

/// Builds rows, deduplicating identical token lists.
#[derive(Default)]
struct RowBuilder {
    rows: HashMap<Vec<u32>, u32>,
    offsets: Vec<u32>,
    tokens: Vec<u32>,
}

impl RowBuilder {
    fn add(&mut self, mut list: Vec<u32>) -> u32 {
        if list.is_empty() {
            return NONE;
        }
        list.sort_unstable();
        list.dedup();
        if let Some(&id) = self.rows.get(&list) {
            return id;
        }
        let id = self.offsets.len() as u32;
        self.offsets.push(self.tokens.len() as u32);
        self.tokens.extend_from_slice(&list);
        self.rows.insert(list, id);
        id
    }
}

/// R2 for every (token, offset): the terminals a suffix of the token may start, as a
/// live prefix or completed then followed by anything.
struct SuffixStarts {
    /// Where each token's sets start in `sets` (indexed like the token ids list).
    start: Vec<usize>,
    /// One set per (token, offset).
    sets: Vec<TermSet>,
}

impl SuffixStarts {
    fn build(dfa: &LexerDfa, vocab: &Vocab, ids: &[u32], nt: usize) -> SuffixStarts {
        let mut start = Vec::with_capacity(ids.len() + 1);
        let mut sets: Vec<TermSet> = Vec::new();
        for &id in ids {
            start.push(sets.len());
            let bytes = vocab.bytes(id);
            for i in 0..bytes.len() {
                let mut set = TermSet::new(nt);
                let mut s = LexerDfa::START;
                for (k, &b) in bytes[i..].iter().enumerate() {
                    s = dfa.next(s, b);
                    if s == LexerDfa::DEAD {
                        break;
                    }
                    if i + k + 1 < bytes.len() {
                        for &t in dfa.winners(s) {
                            set.insert(t);
                        }
                    } else {
                        set.union_with(dfa.reachable(s));
                    }
                }
                sets.push(set);
            }
        }
        SuffixStarts { start, sets }
    }

    /// The set of the `k`-th token's suffix from byte `i`.
    fn at(&self, k: usize, i: usize) -> &TermSet {
        &self.sets[self.start[k] + i]
    }
}

/// One DFA state's token lists: per terminal for M0 and M1's "anything after", per
/// terminal pair for M1.
struct StateLists {
    lists0: Vec<Vec<u32>>,
    lists_any: Vec<Vec<u32>>,
    lists1: HashMap<(u32, u32), Vec<u32>>,
}

impl StateLists {
    fn new(nt: usize) -> StateLists {
        StateLists {
            lists0: vec![Vec::new(); nt],
            lists_any: vec![Vec::new(); nt],
            lists1: HashMap::new(),
        }
    }

    /// Fills the lists of state `q` (emptied first): every token read from `q`.
    fn collect(
        &mut self,
        q: DfaState,
        dfa: &LexerDfa,
        vocab: &Vocab,
        ids: &[u32],
        suffix_starts: &SuffixStarts,
    ) {
        for l in self.lists0.iter_mut().chain(self.lists_any.iter_mut()) {
            l.clear();
        }
        self.lists1.clear();
        if q == LexerDfa::DEAD {
            return;
        }
        for (k, &id) in ids.iter().enumerate() {
            let bytes = vocab.bytes(id);
            let mut s = q;
            let mut dead = false;
            for (i, &b) in bytes.iter().enumerate() {
                // A cut before byte i: the lexeme ends here as a winner.
                if !(q == LexerDfa::START && i == 0) {
                    for &t1 in dfa.winners(s) {
                        self.lists_any[t1.index()].push(id);
                        for t2 in suffix_starts.at(k, i).iter() {
                            self.lists1.entry((t1.as_u32(), t2.as_u32())).or_default().push(id);
                        }
                    }
                }
                s = dfa.next(s, b);
                if s == LexerDfa::DEAD {
                    dead = true;
                    break;
                }
            }
            if !dead {
                for t in dfa.reachable(s).iter() {
                    self.lists0[t.index()].push(id);
                }
            }
        }
    }
}

/// The store's tables while they are built, state by state.
struct Tables {
    rows: RowBuilder,
    nt: usize,
    m0: Vec<u32>,
    m1_any: Vec<u32>,
    m1_start: Vec<u32>,
    m1_pairs: Vec<(u32, u32)>,
}

impl Tables {
    fn with_capacity(ns: usize, nt: usize) -> Tables {
        Tables {
            rows: RowBuilder::default(),
            nt,
            m0: vec![NONE; ns * nt],
            m1_any: vec![NONE; ns * nt],
            m1_start: Vec::with_capacity(ns * nt + 1),
            m1_pairs: Vec::new(),
        }
    }

    /// Adds state `q`'s lists as rows (taking them).
    fn add_state(&mut self, q: DfaState, lists: &mut StateLists) {
        let nt = self.nt;
        for t in 0..nt {
            self.m0[q.index() * nt + t] = self.rows.add(std::mem::take(&mut lists.lists0[t]));
            self.m1_any[q.index() * nt + t] =
                self.rows.add(std::mem::take(&mut lists.lists_any[t]));
        }
        let mut pairs: Vec<((u32, u32), Vec<u32>)> = lists.lists1.drain().collect();
        pairs.sort_unstable_by_key(|(k, _)| *k);
        let mut it = pairs.into_iter().peekable();
        for t1 in 0..nt as u32 {
            self.m1_start.push(self.m1_pairs.len() as u32);
            while let Some(((a, t2), _)) = it.peek() {
                if *a != t1 {
                    break;
                }
                let t2 = *t2;
                let (_, list) = it.next().unwrap_or(((0, 0), Vec::new()));
                let row = self.rows.add(list);
                self.m1_pairs.push((t2, row));
            }
        }
    }
}

impl MaskStore {
    /// Precomputes the store for `lang` and `vocab` (see the module
    /// doc). Cost: every DFA state times every token, stopping at the first dead byte.
    pub fn build(lang: &Language, vocab: &Vocab) -> MaskStore {
        let dfa: &LexerDfa = &lang.dfa;
        let ns = dfa.num_states();
        let nt = lang.grammar.num_terminals();
        let ids: Vec<u32> = (0..vocab.len() as u32)
            .filter(|&id| !vocab.is_special(id) && !vocab.bytes(id).is_empty())
            .collect();
        let suffix_starts = SuffixStarts::build(dfa, vocab, &ids, nt);
        let mut lists = StateLists::new(nt);
        let mut tables = Tables::with_capacity(ns, nt);
        for q in dfa.states() {
            lists.collect(q, dfa, vocab, &ids, &suffix_starts);
            tables.add_state(q, &mut lists);
        }
        tables.m1_start.push(tables.m1_pairs.len() as u32);
        let mut rows = tables.rows;
        rows.offsets.push(rows.tokens.len() as u32);
        let layout_terms = lang
            .layer
            .layout()
            .map(|l| vec![l.indent.as_u32(), l.dedent.as_u32()])
            .unwrap_or_default();
        let (dense_of, dense) = densify(&rows.offsets, &rows.tokens, vocab.len());
        MaskStore {
            dense_of,
            dense,
            key: store_key(lang, vocab),
            num_states: ns as u32,
            num_terms: nt as u32,
            vocab_len: vocab.len() as u32,
            m0: tables.m0,
            m1_any: tables.m1_any,
            m1_start: tables.m1_start,
            m1_pairs: tables.m1_pairs,
            offsets: rows.offsets,
            tokens: rows.tokens,
            layout_terms,
        }
    }

    /// The cache key this store was built for (see [`store_key`]).
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Bytes of memory the store takes.
    pub fn memory_bytes(&self) -> usize {
        4 * (self.m0.len()
            + self.m1_any.len()
            + self.m1_start.len()
            + self.offsets.len()
            + self.tokens.len())
            + 8 * self.m1_pairs.len()
            + 4 * self.dense_of.len()
            + self.dense.iter().map(|d| d.words().len() * 8).sum::<usize>()
    }

    /// Number of distinct rows and total token entries (for reports).
    pub fn stats(&self) -> (usize, usize) {
        (self.offsets.len().saturating_sub(1), self.tokens.len())
    }

    #[inline]
    fn row(&self, r: u32) -> &[u32] {
        if r == NONE {
            return &[];
        }
        let a = self.offsets[r as usize] as usize;
        let b = self.offsets[r as usize + 1] as usize;
        &self.tokens[a..b]
    }

    fn add_row(&self, r: u32, mask: &mut TokenSet) {
        if r == NONE {
            return;
        }
        let d = self.dense_of[r as usize];
        if d != NONE {
            mask.union_with(&self.dense[d as usize]);
            return;
        }
        for &t in self.row(r) {
            mask.insert(t as usize);
        }
    }

    /// Sets `mask` to the SynCode mask for `state` (EOS not included). Returns
    /// `false` (mask untouched) when the store was built for another grammar shape.
    pub fn fill<P: TokenParser>(&self, state: &GrammarRecognizer<P>, mask: &mut TokenSet) -> bool {
        let lang = state.language();
        let nt = self.num_terms as usize;
        if lang.dfa.num_states() != self.num_states as usize || lang.grammar.num_terminals() != nt {
            return false;
        }
        mask.clear();
        let q = state.remainder().dfa_state.index();
        let acc = state.accept_sequences();
        let wide =
            |set: &TermSet| self.layout_terms.iter().any(|&t| set.contains(TerminalId::new(t)));
        let all: Vec<TerminalId>;
        let a0: Vec<TerminalId> = if wide(&acc.a0) {
            all = (0..nt).map(TerminalId::from_index).collect();
            all.clone()
        } else {
            acc.a0.iter().collect()
        };
        for &t in &a0 {
            self.add_row(self.m0[q * nt + t.index()], mask);
            let after = acc.a1.iter().find(|(t1, _)| *t1 == t).map(|(_, s)| s);
            match after {
                Some(after) if !wide(after) => {
                    let k = q * nt + t.index();
                    let pairs =
                        &self.m1_pairs[self.m1_start[k] as usize..self.m1_start[k + 1] as usize];
                    for &(t2, row) in pairs {
                        if after.contains(TerminalId::new(t2)) {
                            self.add_row(row, mask);
                        }
                    }
                }
                _ => self.add_row(self.m1_any[q * nt + t.index()], mask),
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Constraint, GrammarConstraint, Strategy};
    use std::sync::Arc;

    fn lang() -> Arc<Language> {
        crate::toy::toy_language()
    }

    fn vocab() -> Vocab {
        crate::toy::toy_vocab(&["<eos>"], &["return", " return", "retur", "n ", "x;", "x=1;"])
    }

    #[test]
    fn syncode_masks_contain_the_exact_masks_and_round_trip() {
        let (lang, vocab) = (lang(), vocab());
        let store = Arc::new(MaskStore::build(&lang, &vocab));
        let bytes = store.to_bytes();
        let key = store_key(&lang, &vocab);
        assert_eq!(MaskStore::from_bytes(&bytes, key).unwrap(), *store);
        assert!(matches!(MaskStore::from_bytes(&bytes, key ^ 1), Err(StoreError::Stale { .. })));
        assert!(matches!(
            MaskStore::from_bytes(&bytes[..bytes.len() - 3], key),
            Err(StoreError::Format { .. })
        ));

        let kit = crate::MaskKit::for_vocab(lang.clone(), &vocab).with_store(store);
        let mut c = GrammarConstraint::new(&kit, Strategy::Syncode, "toy");
        let mut exact = TokenSet::empty(vocab.len());
        let mut syn = TokenSet::empty(vocab.len());
        let mut over = 0;
        for &b in b"x = (1 + ab) + ret; return (x);retur" {
            c.exact_mask(&mut exact);
            assert!(c.syncode_mask(&mut syn));
            let mut missing = exact.clone();
            missing.subtract(&syn);
            assert!(
                missing.is_empty(),
                "syncode misses {:?} after {:?}",
                missing
                    .iter()
                    .map(|t| String::from_utf8_lossy(vocab.bytes(t as u32)).into_owned())
                    .collect::<Vec<_>>(),
                String::from_utf8_lossy(c.text())
            );
            over += syn.count() - exact.count();
            c.commit(&[b]).unwrap();
        }
        assert!(over > 0, "SynCode over-approximates tokens that span lexemes");
    }
}
