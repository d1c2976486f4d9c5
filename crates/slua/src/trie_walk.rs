//! Exact sLua masks in one walk of the vocabulary's byte trie.
//!
//! Checking the 49,152 tokens of a real vocabulary one by one repeats the same work
//! for every shared prefix and clones the tree of parsers for every token that
//! crosses a segment boundary. Here the vocabulary's [`TokTrie`] (the constraint
//! crate's, llguidance's layout) is walked once: a [`Recognizer`] keeps a stack of
//! (tree, DFA state) pairs, so a byte costs one transition of the current segment's
//! DFA, and a refused byte skips its whole subtree. The tree of parsers is consulted
//! only where the segment DFA accepts (a segment boundary, A1: at most one on any
//! path through one segment): there the tree after the segment is looked up in a
//! memo kept by the tree before it ([`crate::child_key::ChildKey`] → tree), built on
//! a miss.
//!
//! The memo key leaves out what does not change the tree: the text of number and
//! string literals and leading whitespace, and which whitespace byte ended a lexeme.
//! It keeps the alternative taken (which fixes the choice and the literal text), the
//! carried look-ahead byte, the text of new names and the kind of a name in scope
//! (the names in scope are one alternative; which name does not matter, its kind
//! does). So the memo does not depend on
//! the bytes of the unfinished segment and stays valid for as long as the tree is
//! unchanged, across decoding steps: the first mask after a boundary builds the trees
//! one boundary further, later masks reuse them, and a commit that completes a
//! segment adopts the memo of the tree it lands on.

use rustc_hash::FxHashMap;
use std::rc::Rc;
use std::sync::Arc;

use espalier_constraint::{Recognizer, TokTrie, TokenSet, Vocab};

use crate::seg_auto::SegState;
use crate::slua_constraint::SluaConstraint;
use crate::state_masks::MaskAt;

/// One pushed byte: the level (tree) it left the walk at, the DFA state there, and
/// where that level's segment started in the walk's bytes. `pending`: the byte
/// completed that level's segment, and the tree after it is built only when a
/// further byte needs it (most tokens end right at a boundary: a name and its
/// look-ahead character).
#[derive(Clone, Copy, Debug)]
struct Entry {
    level: u32,
    state: Option<SegState>,
    start: u32,
    pending: bool,
}

/// Where a walk's pushed bytes lead.
pub(crate) enum End<'w> {
    /// They complete a segment of this tree: these are its bytes (after any carried
    /// byte).
    Boundary(&'w SluaConstraint, Vec<u8>),
    /// They leave this tree's segment unfinished with these bytes.
    Inside(&'w SluaConstraint, Vec<u8>),
}

/// The walk's [`Recognizer`]: a stack of (tree, DFA state) over the trie path.
pub(crate) struct TrieWalk<'a> {
    base: &'a SluaConstraint,
    /// Trees met after boundaries; level `i + 1` is `levels[i]`, level 0 is `base`.
    levels: Vec<Rc<SluaConstraint>>,
    ids: FxHashMap<*const SluaConstraint, u32>,
    stack: Vec<Entry>,
    bytes: Vec<u8>,
    scratch: Vec<u8>,
    /// First bytes refused (their tokens are judged apart, see [`fill`]).
    skip: [bool; 256],
}

impl<'a> TrieWalk<'a> {
    /// A walk from `base`'s current state (its unfinished segment included).
    pub(crate) fn new(base: &'a SluaConstraint) -> TrieWalk<'a> {
        let state = base.dfa_state().map(|(_, s)| *s);
        TrieWalk {
            base,
            levels: Vec::new(),
            ids: FxHashMap::default(),
            stack: vec![Entry { level: 0, state, start: 0, pending: false }],
            bytes: Vec::new(),
            scratch: Vec::new(),
            skip: [false; 256],
        }
    }

    fn level(&self, i: u32) -> &SluaConstraint {
        if i == 0 {
            self.base
        } else {
            &self.levels[i as usize - 1]
        }
    }

    fn level_id(&mut self, c: Rc<SluaConstraint>) -> u32 {
        let ptr = Rc::as_ptr(&c);
        if let Some(&i) = self.ids.get(&ptr) {
            return i;
        }
        self.levels.push(c);
        let i = self.levels.len() as u32;
        self.ids.insert(ptr, i);
        i
    }

    /// Where the pushed bytes lead.
    pub(crate) fn end(&self) -> End<'_> {
        let top = &self.stack[self.stack.len() - 1];
        let c = self.level(top.level);
        let mut seg = c.partial().to_vec();
        seg.extend_from_slice(&self.bytes[top.start as usize..]);
        if top.pending {
            End::Boundary(c, seg)
        } else {
            End::Inside(c, seg)
        }
    }

    /// Pushes all of `bytes`; whether every one was accepted. Pops them again.
    pub(crate) fn accepts_all(&mut self, bytes: &[u8]) -> bool {
        let mut n = 0;
        let ok = bytes.iter().all(|&b| {
            let ok = self.try_push_byte(b);
            n += usize::from(ok);
            ok
        });
        self.pop_bytes(n);
        ok
    }

    /// Runs `f` on the walk after pushing `bytes`, if every byte is accepted.
    pub(crate) fn with_pushed<R>(&mut self, bytes: &[u8], f: impl FnOnce(&Self) -> R) -> Option<R> {
        let mut n = 0;
        let ok = bytes.iter().all(|&b| {
            let ok = self.try_push_byte(b);
            n += usize::from(ok);
            ok
        });
        let r = ok.then(|| f(self));
        self.pop_bytes(n);
        r
    }
}

impl Recognizer for TrieWalk<'_> {
    #[inline]
    fn try_push_byte(&mut self, b: u8) -> bool {
        let depth = self.stack.len() - 1;
        if depth == 0 && self.skip[usize::from(b)] {
            return false;
        }
        if self.stack[depth].pending {
            // Step into the tree after the completed segment (memoised).
            let top = &self.stack[depth];
            let mut seg = std::mem::take(&mut self.scratch);
            seg.clear();
            let child = {
                let c = self.level(top.level);
                seg.extend_from_slice(c.partial());
                seg.extend_from_slice(&self.bytes[top.start as usize..]);
                c.child(&seg)
            };
            self.scratch = seg;
            let Some(child) = child else { return false };
            let state = child.dfa_state().map(|(_, s)| *s);
            let level = self.level_id(child);
            self.stack[depth] =
                Entry { level, state, start: self.bytes.len() as u32, pending: false };
        }
        let top = &self.stack[depth];
        let (level, start) = (top.level, top.start);
        let Some((auto, _)) = self.level(level).dfa_state() else { return false };
        let Some(s) = &top.state else { return false };
        let t = auto.next(s, b);
        if auto.is_dead(&t) {
            return false;
        }
        let pending = auto.accepts(&t);
        if pending
            && (b >= 0x80
                || self.bytes[start as usize..].iter().any(|&x| x >= 0x80)
                || self.level(level).partial().iter().any(|&x| x >= 0x80))
        {
            // A completed segment must be UTF-8 (a string literal may hold any text).
            let mut seg = self.level(level).partial().to_vec();
            seg.extend_from_slice(&self.bytes[start as usize..]);
            seg.push(b);
            if std::str::from_utf8(&seg).is_err() {
                return false;
            }
        }
        self.stack.push(Entry { level, state: Some(t), start, pending });
        self.bytes.push(b);
        true
    }

    #[inline]
    fn pop_bytes(&mut self, n: usize) {
        let keep = self.bytes.len() - n.min(self.bytes.len());
        self.bytes.truncate(keep);
        self.stack.truncate(keep + 1);
    }
}

/// Fills `mask` with every non-special token of the trie's vocabulary that may
/// follow `c` (EOS is left to the caller).
pub(crate) fn fill(c: &SluaConstraint, trie: &Arc<TokTrie>, vocab: &Vocab, mask: &mut TokenSet) {
    mask.clear();
    let Some((auto, state)) = c.dfa_state() else { return };
    let masks = c.tree().env().dfas.masks();
    // Tokens whose first byte completes the segment (a look-ahead byte: ` `, `(`,
    // `,` after a name) go on in the tree after it; where that tree's segment is
    // decided by its DFA alone, they come from the cache by first byte (see
    // `crate::state_masks`).
    let mut cached = [false; 256];
    let mut ends = [false; 256];
    let mut seg = c.partial().to_vec();
    for b in 0..=255u8 {
        let t = auto.next(state, b);
        if auto.is_dead(&t) || !auto.accepts(&t) {
            continue;
        }
        ends[usize::from(b)] = true;
        seg.truncate(c.partial().len());
        seg.push(b);
        if std::str::from_utf8(&seg).is_err() {
            continue;
        }
        let Some(child) = c.child(&seg) else { continue };
        let Some((dfa, s)) = child.dfa_state().and_then(|(a, s)| a.fixed_only(s)) else { continue };
        // Building the mask of one byte's subtree costs about what walking it
        // does: built on the first sighting.
        let at = MaskAt { dfa, state: s, first: Some(b), trie };
        masks.note(at, trie.vocab_len());
        if let Some(m) = masks.get(at, vocab) {
            mask.union_with(&m.inside);
            add_crossing(&child, &m.crossing, 1, mask);
            cached[usize::from(b)] = true;
        }
    }
    // The other tokens: where the segment's DFA alone decides them, from the cache
    // by state; the tokens going past the segment's end are tried on the tree after
    // it.
    let fixed = auto.fixed_only(state).filter(|_| std::str::from_utf8(c.partial()).is_ok());
    let mut whole_cached = false;
    if let Some((dfa, s)) = fixed {
        if let Some(m) = masks.get(MaskAt { dfa, state: s, first: None, trie }, vocab) {
            mask.union_with(&m.inside);
            add_crossing(c, &m.crossing, 0, mask);
            for (done, end) in cached.iter_mut().zip(ends) {
                *done |= !end;
            }
            whole_cached = true;
        }
    }
    if cached.iter().all(|&b| b) {
        trie.add_duplicates(mask);
        return;
    }
    let from_cache = mask.count();
    walk_all(c, trie, &cached, mask);
    if let (Some((dfa, s)), false) = (fixed, whole_cached) {
        masks.note(MaskAt { dfa, state: s, first: None, trie }, mask.count() - from_cache);
    }
}

/// Adds the crossing tokens of a cached mask of `c` (their bytes after `skip`) that
/// the tree after `c`'s segment accepts.
fn add_crossing(
    c: &SluaConstraint,
    crossing: &[(u32, Box<[u8]>, usize)],
    skip: usize,
    mask: &mut TokenSet,
) {
    let mut seg = Vec::new();
    for (id, bytes, k) in crossing {
        seg.clear();
        seg.extend_from_slice(c.partial());
        seg.extend_from_slice(&bytes[skip..*k]);
        if c.child(&seg).is_some_and(|child| TrieWalk::new(&child).accepts_all(&bytes[*k..])) {
            mask.insert(*id as usize);
        }
    }
}

/// [`fill`] by walking the trie, but for the first bytes in `cached`.
fn walk_all(c: &SluaConstraint, trie: &TokTrie, cached: &[bool; 256], mask: &mut TokenSet) {
    let mut walk = TrieWalk::new(c);
    walk.skip = *cached;
    trie.walk(&mut walk, mask);
    for (id, bytes) in trie.long_tokens() {
        if walk.accepts_all(bytes) {
            mask.insert(*id as usize);
        }
    }
    trie.add_duplicates(mask);
}
