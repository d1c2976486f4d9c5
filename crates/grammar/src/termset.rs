//! A small fixed-width bitset over terminal ids.
//!
//! Accept sets, lookahead sets and "terminals reachable from a DFA state" are all sets
//! of terminals; grammars have at most a few hundred terminals, so a boxed slice of
//! words is both compact and fast to intersect.

/// A set of terminal ids (see [`crate::TerminalId`]), sized for one grammar.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct TermSet {
    words: Vec<u64>,
}

impl TermSet {
    /// An empty set able to hold ids `0..n`.
    pub fn new(n: usize) -> Self {
        Self { words: vec![0; n.div_ceil(64).max(1)] }
    }

    /// Adds `t`; returns whether it was new.
    #[inline]
    pub fn insert(&mut self, t: u32) -> bool {
        let (w, b) = ((t / 64) as usize, t % 64);
        let old = self.words[w];
        self.words[w] |= 1 << b;
        old != self.words[w]
    }

    /// Removes `t`.
    #[inline]
    pub fn remove(&mut self, t: u32) {
        let w = (t / 64) as usize;
        if w < self.words.len() {
            self.words[w] &= !(1 << (t % 64));
        }
    }

    /// Whether `t` is in the set.
    #[inline]
    pub fn contains(&self, t: u32) -> bool {
        let w = (t / 64) as usize;
        w < self.words.len() && self.words[w] & (1 << (t % 64)) != 0
    }

    /// Adds every element of `other`; returns whether anything changed.
    #[inline]
    pub fn union_with(&mut self, other: &TermSet) -> bool {
        let mut changed = false;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            let n = *a | *b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }

    /// Whether the two sets share an element.
    #[inline]
    pub fn intersects(&self, other: &TermSet) -> bool {
        self.words.iter().zip(&other.words).any(|(a, b)| a & b != 0)
    }

    /// Whether every element of `self` is in `other`.
    pub fn is_subset(&self, other: &TermSet) -> bool {
        self.words.iter().zip(&other.words).all(|(a, b)| a & !b == 0)
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }

    /// Removes every element, keeping the capacity.
    #[inline]
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The elements in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros();
                w &= w - 1;
                Some(i as u32 * 64 + b)
            })
        })
    }
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
        let mut a = TermSet::new(130);
        assert!(a.insert(3) && a.insert(129) && !a.insert(3));
        let mut b = TermSet::new(130);
        b.insert(64);
        assert!(!a.intersects(&b));
        assert!(a.union_with(&b));
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![3, 64, 129]);
        assert!(b.is_subset(&a) && !a.is_subset(&b));
        assert_eq!(a.len(), 3);
    }
}
