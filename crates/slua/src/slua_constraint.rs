//! [`SluaConstraint`]: the tree of parsers plus the bytes of the segment in
//! progress, the state behind the [`espalier_constraint::Constraint`] that the
//! decoder drives and the visualizer draws (the trait's implementation is
//! `constraint_impl.rs`).
//!
//! Bytes of the unfinished segment are kept with their state in the segment's DFA.
//! A token is walked through that DFA; where it completes the segment (A1: at most
//! one such point on any path) and goes on, the rest is checked against the tree fed
//! the completed segment, so tokens spanning segment boundaries are judged exactly
//! and never need healing ([`Commit::Heal`] is never returned).
//!
//! Masks come from one walk of the vocabulary's byte trie ([`crate::trie_walk`]),
//! with the trees after segment boundaries memoised for as long as the tree is
//! unchanged; [`SluaConstraint::fill_mask_per_token`] keeps the earlier
//! token-by-token computation as a reference. [`SluaConstraint::fill_finishing_mask`]
//! steers towards the end of the script ([`crate::finishing`]).

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use std::cell::RefCell;

use rustc_hash::FxHashMap;

use crate::child_key::ChildKey;
use crate::finish_cache::FinishCache;
use crate::lexeme::Lex;
use crate::scope::Env;
use crate::seg_auto::{SegAuto, SegState};
use crate::tree::{Segment, Tree};
use espalier_constraint::{Constraint, TokTrie, TokenSet, Vocab};

/// The tree of parsers plus the bytes of the segment in progress.
#[derive(Clone, Debug)]
pub struct SluaConstraint {
    tree: Tree,
    partial: Vec<u8>,
    /// The state of the segment's automaton after `partial`.
    state: Option<SegState>,
    seg: Option<Rc<Segment>>,
    /// Trees after the current segment (see [`crate::trie_walk`]).
    memo: ChildMemo,
    /// The vocabulary trie given by [`SluaConstraint::with_trie`] or built on the
    /// first mask.
    trie: Option<Arc<TokTrie>>,
    /// Finishing costs of the current tree (see [`crate::finishing`]).
    finish: Rc<FinishCache>,
}

impl SluaConstraint {
    /// A constraint for a script of either kind over `env`.
    pub fn new(env: Rc<Env>) -> SluaConstraint {
        SluaConstraint::from_tree(Tree::new(env))
    }

    /// A constraint for a script of `kind` (`effect` or `talent`).
    pub fn for_kind(env: Rc<Env>, kind: &str) -> SluaConstraint {
        SluaConstraint::from_tree(Tree::for_kind(env, kind))
    }

    /// Uses `trie` (built from the vocabulary later passed to the masks) instead of
    /// building one on the first mask: for callers that already hold the
    /// vocabulary's trie (a decoder's kit). A trie of another vocabulary size is
    /// replaced by one built from the vocabulary.
    pub fn with_trie(mut self, trie: Arc<TokTrie>) -> SluaConstraint {
        self.trie = Some(trie);
        self
    }

    fn from_tree(tree: Tree) -> SluaConstraint {
        let mut c = SluaConstraint {
            tree,
            partial: Vec::new(),
            state: None,
            seg: None,
            memo: Rc::default(),
            trie: None,
            finish: Rc::default(),
        };
        c.refresh();
        c.prepare();
        c
    }

    /// Setup: what the first masks would otherwise build. The viability table (the
    /// first expression's mask paid its 1.1-1.8 ms, see `crate::viability`), and the
    /// trees after each keyword of the first segment followed by a space (a script's
    /// kind): the name that follows `effect` or `talent` may be no taken name, and
    /// compiling that automaton (some 600 trie nodes of excluded words) cost 1.2-1.7
    /// ms of the mask after the kind. Both are kept by the environment's
    /// [`crate::dfa::DfaCache`], so a constraint over a warm cache pays neither.
    fn prepare(&self) {
        self.tree.env().viability().prepare();
        let Some(seg) = &self.seg else { return };
        for alt in &seg.alts {
            if let (Lex::Lit(text), Some(la), true) = (&alt.lex, alt.la, alt.done.is_empty()) {
                if la.contains(b' ') {
                    self.child(format!("{} ", text.as_str()).as_bytes());
                }
            }
        }
    }

    /// The tree of parsers.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// The bytes of the segment in progress.
    pub fn partial(&self) -> &[u8] {
        &self.partial
    }

    /// The current segment's automaton and state; `None` once the script is finished.
    pub(crate) fn dfa_state(&self) -> Option<(&SegAuto, &SegState)> {
        Some((self.seg.as_ref()?.auto.as_ref().ok()?, self.state.as_ref()?))
    }

    /// The current segment (alternatives and regex); `None` once finished.
    pub(crate) fn segment_ref(&self) -> Option<&Rc<Segment>> {
        self.seg.as_ref()
    }

    pub(crate) fn memo(&self) -> &ChildMemo {
        &self.memo
    }

    pub(crate) fn finish_cache(&self) -> &FinishCache {
        &self.finish
    }

    /// The trie for `vocab`: the one given, or one built here on the first mask and
    /// kept (clones share it). A trie of another vocabulary size is replaced.
    pub(crate) fn trie(&mut self, vocab: &Vocab) -> Arc<TokTrie> {
        match &self.trie {
            Some(t) if t.vocab_len() == vocab.len() => t.clone(),
            _ => {
                let t = Arc::new(TokTrie::new(vocab));
                self.trie = Some(t.clone());
                t
            }
        }
    }

    fn refresh(&mut self) {
        self.partial.clear();
        self.memo = Rc::default();
        self.finish = Rc::default();
        if self.tree.has_finished() {
            self.state = None;
            self.seg = None;
            return;
        }
        let seg = self.tree.segment();
        self.state = seg.auto.as_ref().ok().map(|a| a.start());
        self.seg = Some(seg);
    }

    /// This constraint with its unfinished segment completed by `seg_bytes` (the
    /// segment's bytes after any carried byte, matching the segment regex).
    pub(crate) fn completed(mut self, seg_bytes: &[u8]) -> Option<SluaConstraint> {
        let text = std::str::from_utf8(seg_bytes).ok()?;
        self.tree.feed_segment(text).ok()?;
        self.refresh();
        Some(self)
    }

    pub(crate) fn expected(&mut self) -> String {
        self.tree.next_regex().map_or_else(|| "(end of script)".to_string(), |r| format!("/{r}/"))
    }

    /// Feeds one byte; `false` (and no change) when it is refused.
    pub(crate) fn push(&mut self, b: u8) -> bool {
        let Some(seg) = self.seg.clone() else { return false };
        let (Ok(auto), Some(s)) = (seg.auto.as_ref(), self.state.as_ref()) else { return false };
        let t = auto.next(s, b);
        if auto.is_dead(&t) {
            return false;
        }
        self.partial.push(b);
        if auto.accepts(&t) {
            let seg = std::mem::take(&mut self.partial);
            // The memo of the tree this segment leads to stays valid for the real
            // tree (it differs only in literal texts and offsets): adopt it.
            let adopted = self
                .child_key(&seg)
                .and_then(|k| self.memo.borrow().get(&k).cloned().flatten())
                .map(|c| (c.memo.clone(), c.finish.clone()));
            let Ok(text) = String::from_utf8(seg) else { return false };
            if self.tree.feed_segment(&text).is_err() {
                return false;
            }
            self.refresh();
            if let Some((memo, finish)) = adopted {
                self.memo = memo;
                self.finish = finish;
            }
        } else {
            self.state = Some(t);
        }
        true
    }

    /// The earlier mask computation, kept as the reference the trie walk is tested
    /// and timed against: every token checked on its own, with the trees after
    /// completed segments cached for this call only. Same result as
    /// [`Constraint::fill_mask`], tens of times slower on a real vocabulary.
    pub fn fill_mask_per_token(&mut self, vocab: &Vocab, mask: &mut TokenSet) {
        mask.clear();
        let mut cache = HashMap::new();
        for (id, bytes) in vocab.tokens().iter().enumerate() {
            if bytes.is_empty() || vocab.is_special(id as u32) {
                continue;
            }
            if self.walk(bytes, &mut cache) {
                mask.insert(id);
            }
        }
        if self.is_complete() {
            mask.insert(vocab.eos() as usize);
        }
    }

    /// Whether `bytes` can follow, given a cache of trees after completed segments.
    fn walk(&self, bytes: &[u8], cache: &mut HashMap<Vec<u8>, Option<SluaConstraint>>) -> bool {
        let Some((auto, s)) = self.dfa_state() else { return false };
        let mut s = *s;
        for (i, &b) in bytes.iter().enumerate() {
            s = auto.next(&s, b);
            if auto.is_dead(&s) {
                return false;
            }
            if auto.accepts(&s) {
                let rest = &bytes[i + 1..];
                let mut key = self.partial.clone();
                key.extend_from_slice(&bytes[..=i]);
                // Completions that differ only in leading whitespace lead to the same
                // tree (offsets aside): one clone serves them all.
                // (Not after a carried byte: then a whitespace byte may be the look-ahead.)
                let lead = if self.tree.carry().is_some() {
                    0
                } else {
                    key.iter().take_while(|b| crate::byte_set::is_ws(**b)).count()
                };
                let key = key.split_off(lead);
                let next = cache.entry(key.clone()).or_insert_with(|| {
                    let mut c = self.clone();
                    let text = String::from_utf8(key).ok()?;
                    c.tree.feed_segment(&text).ok()?;
                    c.refresh();
                    Some(c)
                });
                let next = next.clone();
                return match next {
                    Some(c) => rest.is_empty() || c.walk(rest, &mut HashMap::new()),
                    None => false,
                };
            }
        }
        true
    }
}

/// Trees after the current segment, by [`ChildKey`]; `None` marks a segment the tree
/// refuses (kept so it is not tried again). Shared by clones of one constraint.
pub(crate) type ChildMemo = Rc<RefCell<FxHashMap<ChildKey, Option<Rc<SluaConstraint>>>>>;

impl SluaConstraint {
    /// The memo key for completing the current segment with `seg_bytes` (the
    /// segment's bytes after any carried byte; the DFA accepts them). `None` when
    /// they are not UTF-8 or no alternative matches (the tree would refuse them).
    pub(crate) fn child_key(&self, seg_bytes: &[u8]) -> Option<ChildKey> {
        ChildKey::new(self.segment_ref()?, self.tree().carry(), seg_bytes)
    }

    /// The constraint after completing the current segment with `seg_bytes`, from
    /// the memo or built (and memoised). `None` when the tree refuses the segment.
    pub(crate) fn child(&self, seg_bytes: &[u8]) -> Option<Rc<SluaConstraint>> {
        let key = self.child_key(seg_bytes)?;
        if let Some(hit) = self.memo().borrow().get(&key) {
            return hit.clone();
        }
        let built = self.clone().completed(seg_bytes).map(Rc::new);
        self.memo().borrow_mut().insert(key, built.clone());
        built
    }
}
