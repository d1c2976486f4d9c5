//! [`CostCache`]: the costs the finishing masks of one language have found, kept for
//! the next masks and shared by every constraint that holds the same cache (the
//! decoder's kit makes one per language and hands it to every constraint it makes).
//!
//! What it holds are functions of the grammar alone: LR stack costs memoised per stack
//! prefix ([`espalier_grammar::StackCostMemo`]), the cost of a content line from a
//! parser state and its block columns, and the remaining cost of a recognizer state
//! under the finisher's key (what that cost reads of the state: DFA state, layout,
//! LR stacks, Go's pending semicolon, a possible f-string's bytes). Measured (issue 13, `espalier bench mask
//! --finishing`): the slow finishing masks were a context's first visit (after a
//! block's `:` or inside a new block's indentation: ~20 ms, two thousand stack costs
//! of depth ~55 each searched from scratch); the same mask again took a few ms.
//!
//! A cache, not state: masks are the same with an empty one. A constraint that finds
//! the cache busy (another thread's mask holds it) computes with an empty one rather
//! than wait; a cache used by another language starts over; entries are dropped past
//! a bound (a few MB).

use std::sync::{Arc, Mutex, TryLockError, Weak};

use espalier_grammar::{Language, LrState, StackCostMemo};
use rustc_hash::FxHashMap;

/// A content line's key: its parser stacks and block columns.
pub(crate) type LineKey = (Vec<Vec<LrState>>, Vec<u32>);

/// The memo one finishing computation reads and adds to (see the module doc).
#[derive(Debug, Default)]
pub(crate) struct CostMemo {
    /// The language the entries belong to (a weak handle: its address cannot be
    /// reused by another language while held; `None` before the first use).
    lang: Option<Weak<Language>>,
    pub(crate) stacks: StackCostMemo,
    /// (parser stacks, block columns) -> cost of a content line starting there.
    pub(crate) lines: FxHashMap<LineKey, Option<u32>>,
    /// Recognizer states (the finisher's keys, at most [`CostMemo::MAX_KEY`] words)
    /// -> remaining cost.
    states: FxHashMap<Vec<u32>, Option<u32>>,
    /// Words held by the keys of `states`.
    state_words: usize,
}

impl CostMemo {
    /// Line costs kept at most (the stack memo bounds itself).
    const MAX_LINES: usize = 20_000;
    /// Words of state keys kept at most (4 MB).
    const MAX_STATE_WORDS: usize = 1 << 20;
    /// Longer state keys (an f-string's bytes) are not kept across masks.
    pub(crate) const MAX_KEY: usize = 512;

    /// Drops every entry if they belong to another language, or past the bounds.
    fn prepare(&mut self, lang: &Arc<Language>) {
        if !self.lang.as_ref().is_some_and(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(lang))) {
            *self = CostMemo { lang: Some(Arc::downgrade(lang)), ..CostMemo::default() };
        }
        if self.lines.len() > Self::MAX_LINES {
            self.lines.clear();
        }
        if self.state_words > Self::MAX_STATE_WORDS {
            self.states.clear();
            self.state_words = 0;
        }
    }

    /// The remaining cost kept for state `key`.
    pub(crate) fn state(&self, key: &[u32]) -> Option<Option<u32>> {
        self.states.get(key).copied()
    }

    /// Keeps the remaining cost of state `key` (not kept past [`Self::MAX_KEY`] words).
    pub(crate) fn keep_state(&mut self, key: &[u32], cost: Option<u32>) -> bool {
        if key.len() > Self::MAX_KEY {
            return false;
        }
        self.state_words += key.len();
        self.states.insert(key.to_vec(), cost);
        true
    }
}

/// A shareable memo of finishing costs (see the module doc). Clones share it.
#[derive(Clone, Debug, Default)]
pub struct CostCache(Arc<Mutex<CostMemo>>);

impl CostCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Entries held (stack prefixes and costs, line costs), for reports.
    pub fn entries(&self) -> usize {
        match self.0.try_lock() {
            Ok(m) => m.stacks.len() + m.lines.len() + m.states.len(),
            Err(_) => 0,
        }
    }

    /// Runs `f` on the memo for `lang`: this cache's, or an empty one when another
    /// computation holds it (or one panicked while holding it).
    pub(crate) fn with<R>(&self, lang: &Arc<Language>, f: impl FnOnce(&mut CostMemo) -> R) -> R {
        match self.0.try_lock() {
            Ok(mut memo) => {
                memo.prepare(lang);
                f(&mut memo)
            }
            Err(TryLockError::Poisoned(p)) => {
                self.0.clear_poison();
                let mut memo = p.into_inner();
                *memo = CostMemo::default();
                memo.prepare(lang);
                f(&mut memo)
            }
            Err(TryLockError::WouldBlock) => {
                let mut memo = CostMemo::default();
                memo.prepare(lang);
                f(&mut memo)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache used by another language starts over; the same language keeps it.
    #[test]
    fn entries_belong_to_one_language() {
        let py = espalier_grammar::python().unwrap();
        let go = espalier_grammar::go().unwrap();
        let cache = CostCache::new();
        cache.with(&py, |m| assert!(m.keep_state(&[1, 2, 3], Some(7))));
        assert_eq!(cache.with(&py, |m| m.state(&[1, 2, 3])), Some(Some(7)));
        assert_eq!(
            cache.with(&go, |m| m.state(&[1, 2, 3])),
            None,
            "another language's costs are not read"
        );
        assert_eq!(cache.entries(), 0);
        let busy = cache.0.lock().unwrap();
        assert_eq!(
            cache.with(&go, |m| m.state(&[1, 2, 3])),
            None,
            "a busy cache: an empty memo, no wait"
        );
        drop(busy);
    }
}
