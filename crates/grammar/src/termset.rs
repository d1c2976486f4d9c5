//! A small fixed-width bitset over terminal ids.
//!
//! Accept sets, lookahead sets and "terminals reachable from a DFA state" are all sets
//! of terminals. The shipped grammars have ~100 terminals (Python 113, Go ~100), so a
//! set is four words held inline: no heap pointer to follow (the lexer's reachable
//! sets and the LR table's valid sets are flat arrays), a copy is four moves, and
//! intersection, equality and union are fixed-length loops the compiler unrolls.
//! Measured on the mask benchmark (`bench/constraint-wasm`, 17,961 steps):
//! with one heap `Vec<u64>` per set, cloning a recognizer (its acceptable set among
//! other things) was 4.8x slower in wasm than natively, each copy a `memory.copy`
//! call, and comparing sets called `memcmp`. Grammars with more than
//! [`TermSet::CAPACITY`] terminals are refused when they are built
//! ([`crate::GrammarError::TooManyTerminals`]).

use crate::ids::TerminalId;

/// Words of a [`TermSet`].
const WORDS: usize = 4;

/// A set of terminal ids (see [`crate::TerminalId`]) below [`TermSet::CAPACITY`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TermSet {
    words: [u64; WORDS],
}

impl TermSet {
    /// The most terminals a grammar may have (ids `0..CAPACITY`).
    pub const CAPACITY: usize = 64 * WORDS;

    /// An empty set. `n`, the number of terminals of the grammar, is at most
    /// [`Self::CAPACITY`] (grammars with more are refused when built).
    pub fn new(n: usize) -> Self {
        debug_assert!(n <= Self::CAPACITY, "{n} terminals, at most {}", Self::CAPACITY);
        Self::default()
    }

    /// Adds `t`; returns whether it was new (ids at or past the capacity are ignored).
    #[inline]
    pub fn insert(&mut self, t: TerminalId) -> bool {
        let (w, b) = (t.index() / 64, t.index() % 64);
        let Some(word) = self.words.get_mut(w) else { return false };
        let old = *word;
        *word |= 1 << b;
        old != *word
    }

    /// Removes `t`.
    #[inline]
    pub fn remove(&mut self, t: TerminalId) {
        if let Some(word) = self.words.get_mut(t.index() / 64) {
            *word &= !(1 << (t.index() % 64));
        }
    }

    /// Whether `t` is in the set.
    #[inline]
    pub fn contains(&self, t: TerminalId) -> bool {
        self.words.get(t.index() / 64).is_some_and(|w| w & (1 << (t.index() % 64)) != 0)
    }

    /// Adds every element of `other`; returns whether anything changed.
    #[inline]
    pub fn union_with(&mut self, other: &TermSet) -> bool {
        let mut changed = 0;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            changed |= *b & !*a;
            *a |= b;
        }
        changed != 0
    }

    /// Whether the two sets share an element.
    #[inline]
    pub fn intersects(&self, other: &TermSet) -> bool {
        // OR of the word-wise ANDs, without early exit: branch-free, four words.
        self.words.iter().zip(&other.words).fold(0, |acc, (a, b)| acc | (a & b)) != 0
    }

    /// Whether every element of `self` is in `other`.
    pub fn is_subset(&self, other: &TermSet) -> bool {
        self.words.iter().zip(&other.words).all(|(a, b)| a & !b == 0)
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.words.iter().fold(0, |acc, w| acc | w) == 0
    }

    /// Removes every element.
    #[inline]
    pub fn clear(&mut self) {
        self.words = [0; WORDS];
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The elements in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = TerminalId> + '_ {
        set_bits(&self.words).map(TerminalId::from_index)
    }
}

/// The positions of the set bits of `words` (bit `b` of word `i` is `64 * i + b`), in
/// increasing order: the iteration of every bitset here and of the constraint
/// crate's token sets.
#[inline]
pub fn set_bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(i, &word)| {
        let mut w = word;
        std::iter::from_fn(move || {
            if w == 0 {
                return None;
            }
            let bit = w.trailing_zeros() as usize;
            w &= w - 1;
            Some(i * 64 + bit)
        })
    })
}

impl std::fmt::Debug for TermSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_union_iter() {
        let t = TerminalId::new;
        let mut a = TermSet::new(130);
        assert!(a.insert(t(3)) && a.insert(t(129)) && !a.insert(t(3)));
        let mut b = TermSet::new(130);
        b.insert(t(64));
        assert!(!a.intersects(&b));
        assert!(a.union_with(&b));
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![t(3), t(64), t(129)]);
        assert!(b.is_subset(&a) && !a.is_subset(&b));
        assert_eq!(a.len(), 3);
        let past = TerminalId::from_index(TermSet::CAPACITY);
        assert!(!a.insert(past) && !a.contains(past));
        let mut c = a;
        c.remove(t(129));
        assert!(c != a && c.is_subset(&a) && !c.is_empty() && TermSet::new(3).is_empty());
    }
}
