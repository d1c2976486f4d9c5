//! [`CostCache`]: the costs the finishing masks of one language have found, kept for
//! the next masks and shared by every constraint that holds the same cache (the
//! decoder's kit makes one per language and hands it to every constraint it makes).
//!
//! What it holds are functions of the grammar alone: LR stack costs memoised per stack
//! prefix ([`espalier_grammar::StackCostMemo`]) and the cost of a content line from a
//! parser state and its block columns. Measured (issue 13, `espalier bench mask
//! --finishing`): the slow finishing masks were a context's first visit (after a
//! block's `:` or inside a new block's indentation: ~20 ms, two thousand stack costs
//! of depth ~55 each searched from scratch); the same mask again took a few ms.
//!
//! A cache, not state: masks are the same with an empty one. A constraint that finds
//! the cache busy (another thread's mask holds it) computes with an empty one rather
//! than wait; a cache used by another language starts over; entries are dropped past
//! a bound (a few MB).

use std::sync::{Arc, Mutex, TryLockError};

use espalier_grammar::{Language, StackCostMemo};
use rustc_hash::FxHashMap;

/// The memo one finishing computation reads and adds to (see the module doc).
#[derive(Debug, Default)]
pub(crate) struct CostMemo {
    /// The language the entries belong to (its address; 0 before the first use).
    lang: usize,
    pub(crate) stacks: StackCostMemo,
    /// (parser stacks, block columns) -> cost of a content line starting there.
    pub(crate) lines: FxHashMap<(Vec<Vec<u32>>, Vec<u32>), Option<u32>>,
}

impl CostMemo {
    /// Line costs kept at most (the stack memo bounds itself).
    const MAX_LINES: usize = 20_000;

    /// Drops every entry if they belong to another language, or past the bound.
    fn prepare(&mut self, lang: &Language) {
        let id = lang as *const Language as usize;
        if self.lang != id || self.lines.len() > Self::MAX_LINES {
            *self = CostMemo { lang: id, ..CostMemo::default() };
        }
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
            Ok(m) => m.stacks.len() + m.lines.len(),
            Err(_) => 0,
        }
    }

    /// Runs `f` on the memo for `lang`: this cache's, or an empty one when another
    /// computation holds it (or one panicked while holding it).
    pub(crate) fn with<R>(&self, lang: &Language, f: impl FnOnce(&mut CostMemo) -> R) -> R {
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
