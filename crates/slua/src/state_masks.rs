//! The part of a mask that depends only on the segment's DFA state, cached.
//!
//! Inside a string literal nearly every token may come next, and the trie walk of
//! [`crate::trie_walk`] steps through some 45,000 of them at every step (about 2 ms
//! each, a third of the steps over 2 ms in `mask_speed`). Yet when the current
//! segment has no names-in-scope part (or that part is dead), which tokens stay
//! inside the segment or end exactly where it completes depends only on the
//! segment's compiled DFA ([`SegDfa`], shared through the [`crate::dfa::DfaCache`])
//! and the state reached, provided the bytes of the segment so far are whole UTF-8
//! characters (then a completed segment is UTF-8 exactly when the token's own bytes
//! are). Only the tokens that go past the segment's end depend on the tree after it.
//!
//! So per (DFA, state, vocabulary trie) a [`StateMask`] keeps `inside` (those
//! tokens) and `crossing` (the tokens that complete the segment and go on, with the
//! length of their part in it); a mask is then `inside` plus each crossing token
//! whose rest the tree after the segment accepts (that tree comes from the memo of
//! [`crate::trie_walk`], as in the walk). Tokens whose first byte completes the
//! segment (a look-ahead byte after a name: ` `, `(`, `:`) are left out: they are
//! judged by first byte, by the same kind of mask of the tree after the segment
//! (keyed by its DFA, its state and that byte) where that tree's segment has no
//! names-in-scope part, by walking otherwise. Without this split, the mask after
//! a new name (any identifier byte may extend it) would hold some 20,000 crossing
//! tokens (` ` and a word) and gain nothing. An entry is built on the first sighting
//! of a state (building is one walk of the trie through the DFA alone, cheaper per
//! byte than the tree's walk, and a short walk along the points where tokens leave
//! the segment: inside a string literal 1.3 ms where the tree's walk took 1.7) and
//! used for that mask; it is kept when it allows a large share of the vocabulary
//! (small masks are cheap to build again) and few tokens cross the segment's end
//! (with many, the state is walked instead), and the cache holds at most
//! [`StateMasks::CAP`] built entries (6 KiB each on a 49,152-token vocabulary).

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

use espalier_constraint::{Recognizer, TokTrie, TokenSet, Vocab};
use rustc_hash::FxHashMap;

use crate::seg_dfa::{DfaState, SegDfa};

/// The tree-independent part of the masks from one DFA state (see the module doc).
#[derive(Debug)]
pub(crate) struct StateMask {
    /// Tokens that stay inside the segment or end where it completes.
    pub(crate) inside: TokenSet,
    /// Tokens that complete the segment and go on: id, bytes, and how many of the
    /// bytes complete it (counting the first byte of a mask by first byte).
    pub(crate) crossing: Vec<(u32, Box<[u8]>, usize)>,
}

/// What a cache entry is.
#[derive(Debug)]
enum Slot {
    /// Seen; its mask allowed few tokens (cheap to build or walk again): not kept.
    Small,
    /// Seen once with a large mask by a walk (a first-byte mask's state, noted
    /// before it is asked for): built when asked for.
    Large,
    /// Built, but too many tokens go past the segment's end to gain from it.
    Crossing,
    /// Built. The DFA and trie are held so that their addresses (the key) stay theirs.
    Built { _dfa: Rc<SegDfa>, _trie: Arc<TokTrie>, mask: Rc<StateMask> },
}

/// Which [`StateMask`] is asked about: the segment's DFA at `state`, over `trie`;
/// with `first`, the mask of the tokens starting with that byte.
#[derive(Clone, Copy)]
pub(crate) struct MaskAt<'a> {
    pub(crate) dfa: &'a Rc<SegDfa>,
    pub(crate) state: DfaState,
    pub(crate) first: Option<u8>,
    pub(crate) trie: &'a Arc<TokTrie>,
}

/// The DFA, its state, the first byte (256: none) and the trie.
type Key = (*const SegDfa, DfaState, u16, *const TokTrie);

impl MaskAt<'_> {
    fn key(self) -> Key {
        (
            Rc::as_ptr(self.dfa),
            self.state,
            self.first.map_or(256, u16::from),
            Arc::as_ptr(self.trie),
        )
    }
}

/// [`StateMask`]s by DFA, state and trie; owned by the [`crate::dfa::DfaCache`] so
/// that it lives as long as the compiled DFAs it is keyed by.
#[derive(Debug, Default)]
pub struct StateMasks(RefCell<FxHashMap<Key, Slot>>, Cell<usize>);

impl StateMasks {
    /// At most this many masks are built and kept; past it the cache starts afresh.
    /// 512 built masks of a 49,152-token vocabulary take 3 MiB.
    pub const CAP: usize = 512;

    /// At most this many states are noted (a few bytes each). Four short scripts
    /// note some 500 states: when notes counted towards [`StateMasks::CAP`], the
    /// cache started afresh within them and built every mask again.
    pub const NOTES_CAP: usize = 1 << 16;

    /// A mask that allows less than this share of the vocabulary (8,192 of 49,152
    /// tokens) is cheap to build again: it is used once and not kept. Inside a
    /// string literal a mask allows about 45,000 tokens, after a keyword a few
    /// hundred.
    pub const LARGE_SHARE: usize = 6;

    /// The state mask `at`: cached, or built here when the state is new or was noted
    /// with a large mask ([`StateMasks::note`]); `None` when too many tokens cross the
    /// segment's end (the state is walked). With a `first` byte, the mask of the tokens
    /// starting with it, which completed the segment before this one: their other bytes
    /// are walked from the state.
    pub(crate) fn get(&self, at: MaskAt, vocab: &Vocab) -> Option<Rc<StateMask>> {
        let MaskAt { dfa, trie, .. } = at;
        let key = at.key();
        let noted_large = match self.0.borrow().get(&key) {
            Some(Slot::Built { mask, .. }) => return Some(mask.clone()),
            Some(Slot::Large) => true,
            None => false,
            _ => return None,
        };
        let mask = StateMask::build(at, vocab);
        let large = noted_large || mask.inside.count() * Self::LARGE_SHARE >= trie.vocab_len();
        // Each crossing token is tried on its own at every use: worth it only when
        // they are few beside the tokens the entry saves walking.
        if mask.crossing.len() * 8 > mask.inside.count() {
            self.insert(key, if large { Slot::Crossing } else { Slot::Small });
            return None;
        }
        if !large {
            self.insert(key, Slot::Small);
            return Some(Rc::new(mask));
        }
        let mask = Rc::new(mask);
        self.insert(
            key,
            Slot::Built { _dfa: dfa.clone(), _trie: trie.clone(), mask: mask.clone() },
        );
        Some(mask)
    }

    /// Notes a state seen for the first time, whose walk allowed `allowed` tokens.
    /// (The key's addresses may be reused once freed; a stale note only decides
    /// whether a later state is built one sighting early.)
    pub(crate) fn note(&self, at: MaskAt, allowed: usize) {
        let key = at.key();
        if !self.0.borrow().contains_key(&key) {
            let large = allowed * Self::LARGE_SHARE >= at.trie.vocab_len();
            self.insert(key, if large { Slot::Large } else { Slot::Small });
        }
    }

    /// The number of masks built and kept.
    pub fn built(&self) -> usize {
        self.1.get()
    }

    fn insert(&self, key: Key, slot: Slot) {
        let mut map = self.0.borrow_mut();
        let built = matches!(slot, Slot::Built { .. });
        if map.len() >= Self::NOTES_CAP || (built && self.1.get() >= Self::CAP) {
            map.clear();
            self.1.set(0);
        }
        self.1.set(self.1.get() + usize::from(built));
        if let Some(Slot::Built { .. }) = map.insert(key, slot) {
            self.1.set(self.1.get() - 1);
        }
    }
}

impl StateMask {
    /// Walks the trie (with `first`, that byte's subtree) from `state` stopping at
    /// the segment's end (`inside`), noting where tokens complete the segment; then
    /// walks only the paths through those points and the subtrees below them (the
    /// crossing tokens). The second walk once went on past the end with any bytes
    /// over the whole trie, a second full walk: building was two walks, 2.5 ms inside
    /// a string literal on a 49,152-token vocabulary.
    fn build(at: MaskAt, vocab: &Vocab) -> StateMask {
        let MaskAt { state, first, .. } = at;
        let (dfa, trie): (&SegDfa, &TokTrie) = (at.dfa, at.trie);
        let skip = usize::from(first.is_some());
        let in_first = |bytes: &[u8]| bytes.first() == first.as_ref().or(bytes.first());
        let walk = |rec: &mut dyn Recognizer, mask: &mut TokenSet| match first {
            None => _ = trie.walk(rec, mask),
            Some(b) => _ = trie.walk_children_of_byte(b, rec, mask),
        };
        let mut inside = TokenSet::empty(trie.vocab_len());
        let mut w = DfaWalk::new(at, false);
        walk(&mut w, &mut inside);
        for (id, bytes) in trie.long_tokens() {
            if in_first(bytes) && w.accepts_all(&bytes[skip..]) {
                inside.insert(*id as usize);
            }
        }
        trie.add_duplicates(&mut inside);
        let mut ends = w.ends;
        ends.sort_unstable();
        ends.dedup();
        let mut past = TokenSet::empty(trie.vocab_len());
        walk(&mut PastEnds { ends: &ends, stack: vec![(0, ends.len(), false)] }, &mut past);
        let mut w = DfaWalk::new(at, true);
        for (id, bytes) in trie.long_tokens() {
            if in_first(bytes) && w.accepts_all(&bytes[skip..]) {
                past.insert(*id as usize);
            }
        }
        trie.add_duplicates(&mut past);
        past.subtract(&inside);
        let crossing = past
            .iter()
            .filter_map(|id| {
                let bytes = vocab.bytes(id as u32);
                let k = end_of_segment(dfa, state, &bytes[skip..])?;
                Some((id as u32, bytes.into(), skip + k))
            })
            .collect();
        StateMask { inside, crossing }
    }
}

/// The walk along the points where tokens complete a segment (`ends`: their bytes,
/// sorted; no one extends another, by A1) and on with any bytes past them.
struct PastEnds<'e> {
    ends: &'e [Vec<u8>],
    /// Per pushed byte (and the start): the range of `ends` the bytes so far begin,
    /// and whether they already hold one whole.
    stack: Vec<(usize, usize, bool)>,
}

impl Recognizer for PastEnds<'_> {
    fn try_push_byte(&mut self, b: u8) -> bool {
        let depth = self.stack.len() - 1;
        let (lo, hi, past) = self.stack[depth];
        if past {
            self.stack.push((lo, hi, true));
            return true;
        }
        // Every end in the range is longer than `depth` (a shorter one sorts first
        // and would have set `past`).
        let range = &self.ends[lo..hi];
        let (from, to) =
            (range.partition_point(|e| e[depth] < b), range.partition_point(|e| e[depth] <= b));
        if from == to {
            return false;
        }
        self.stack.push((lo + from, lo + to, range[from].len() == depth + 1));
        true
    }

    fn pop_bytes(&mut self, n: usize) {
        let keep = self.stack.len() - n.min(self.stack.len() - 1);
        self.stack.truncate(keep);
    }
}

/// How many bytes of `bytes` complete the segment from `state` (the first accepting
/// point: A1 allows no other).
fn end_of_segment(dfa: &SegDfa, mut state: DfaState, bytes: &[u8]) -> Option<usize> {
    for (i, &b) in bytes.iter().enumerate() {
        state = dfa.next(state, b)?;
        if dfa.accepts(state) {
            return Some(i + 1);
        }
    }
    None
}

/// The walk of one segment DFA: the segment's bytes as [`crate::trie_walk::TrieWalk`]
/// judges them before its end (a completed segment must be UTF-8); after the end it
/// refuses every byte, or with `past_end` accepts every byte.
struct DfaWalk<'d> {
    dfa: &'d SegDfa,
    /// Per pushed byte (and the start): the state, and whether the segment is complete.
    stack: Vec<(DfaState, bool)>,
    bytes: Vec<u8>,
    past_end: bool,
    /// Refuse a first byte that completes the segment: those tokens are judged by
    /// their first byte (see [`crate::trie_walk`]'s `fill`).
    whole_tokens: bool,
    /// The bytes of every path that completed the segment (where crossing tokens
    /// leave it).
    ends: Vec<Vec<u8>>,
}

impl<'d> DfaWalk<'d> {
    /// A walk from the state `at`, past the segment's end or not.
    fn new(at: MaskAt<'d>, past_end: bool) -> Self {
        DfaWalk {
            dfa: at.dfa,
            stack: vec![(at.state, false)],
            bytes: Vec::new(),
            past_end,
            whole_tokens: at.first.is_none(),
            ends: Vec::new(),
        }
    }

    fn accepts_all(&mut self, bytes: &[u8]) -> bool {
        let mut n = 0;
        let ok = bytes.iter().all(|&b| {
            let ok = self.try_push_byte(b);
            n += usize::from(ok);
            ok
        });
        self.pop_bytes(n);
        ok
    }
}

impl Recognizer for DfaWalk<'_> {
    fn try_push_byte(&mut self, b: u8) -> bool {
        let (s, complete) = self.stack[self.stack.len() - 1];
        let next = if complete {
            if !self.past_end {
                return false;
            }
            (s, true)
        } else {
            let Some(t) = self.dfa.next(s, b) else { return false };
            let done = self.dfa.accepts(t);
            if done && self.whole_tokens && self.bytes.is_empty() {
                return false;
            }
            if done && (b >= 0x80 || self.bytes.iter().any(|&x| x >= 0x80)) {
                let mut seg = self.bytes.clone();
                seg.push(b);
                if std::str::from_utf8(&seg).is_err() {
                    return false;
                }
            }
            if done {
                let mut end = Vec::with_capacity(self.bytes.len() + 1);
                end.extend_from_slice(&self.bytes);
                end.push(b);
                self.ends.push(end);
            }
            (t, done)
        };
        self.stack.push(next);
        self.bytes.push(b);
        true
    }

    fn pop_bytes(&mut self, n: usize) {
        let keep = self.bytes.len() - n.min(self.bytes.len());
        self.bytes.truncate(keep);
        self.stack.truncate(keep + 1);
    }
}
