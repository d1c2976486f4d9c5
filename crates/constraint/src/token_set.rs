//! A fixed-size bitset over token ids: masks are built, intersected and iterated once
//! per decoding step, so they are flat `u64` words.

/// A set of token ids below a fixed bound.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct TokenSet {
    words: Vec<u64>,
    len: usize,
}

impl Clone for TokenSet {
    fn clone(&self) -> Self {
        Self { words: self.words.clone(), len: self.len }
    }

    /// Reuses the words' allocation (a derived `clone_from` would allocate a copy).
    fn clone_from(&mut self, src: &Self) {
        self.words.clone_from(&src.words);
        self.len = src.len;
    }
}

impl TokenSet {
    /// The empty set over ids `0..len`.
    pub fn empty(len: usize) -> Self {
        Self { words: vec![0; len.div_ceil(64)], len }
    }

    /// The full set over ids `0..len`.
    pub fn full(len: usize) -> Self {
        let mut set = Self { words: vec![u64::MAX; len.div_ceil(64)], len };
        set.trim();
        set
    }

    /// The bound on ids (the vocabulary size), not the number of members.
    pub fn capacity(&self) -> usize {
        self.len
    }

    /// Adds `id`; ids at or past the bound are ignored.
    pub fn insert(&mut self, id: usize) {
        if id < self.len {
            self.words[id / 64] |= 1 << (id % 64);
        }
    }

    /// Removes `id`.
    pub fn remove(&mut self, id: usize) {
        if id < self.len {
            self.words[id / 64] &= !(1 << (id % 64));
        }
    }

    /// Whether `id` is a member.
    pub fn contains(&self, id: usize) -> bool {
        id < self.len && self.words[id / 64] & (1 << (id % 64)) != 0
    }

    /// Removes every member.
    pub fn clear(&mut self) {
        self.words.fill(0);
    }

    /// Adds every id.
    pub fn fill(&mut self) {
        self.words.fill(u64::MAX);
        self.trim();
    }

    /// Number of members.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set has no member.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// `self |= other` (sets of different bounds combine over the shorter one).
    pub fn union_with(&mut self, other: &TokenSet) {
        // Eight words per iteration: wasm's 128-bit loop was not unrolled (one v128
        // per iteration, each paying V8's loop check: 1.66x native in the mask
        // benchmark's profile, where dense token groups are unions of 768 words).
        let n = self.words.len().min(other.words.len());
        let mut a = self.words[..n].chunks_exact_mut(8);
        let mut b = other.words[..n].chunks_exact(8);
        for (x, y) in (&mut a).zip(&mut b) {
            let x: &mut [u64; 8] = x.try_into().expect("chunks of 8");
            let y: &[u64; 8] = y.try_into().expect("chunks of 8");
            // Loaded, combined and stored whole, so that both targets use vector
            // registers (an in-place `|=` per word stayed scalar natively).
            *x = std::array::from_fn(|k| x[k] | y[k]);
        }
        for (x, y) in a.into_remainder().iter_mut().zip(b.remainder()) {
            *x |= y;
        }
        self.trim();
    }

    /// `self &= other`.
    pub fn intersect_with(&mut self, other: &TokenSet) {
        for (i, a) in self.words.iter_mut().enumerate() {
            *a &= other.words.get(i).copied().unwrap_or(0);
        }
    }

    /// `self -= other`.
    pub fn subtract(&mut self, other: &TokenSet) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= !b;
        }
    }

    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        espalier_grammar::termset::set_bits(&self.words)
    }

    /// The raw words, for storing masks compactly.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The raw words, to write a set by words (bits at or past the bound must stay
    /// clear).
    pub fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    /// Rebuilds a set from [`TokenSet::words`]; `None` when the word count does not fit `len`.
    pub fn from_words(words: Vec<u64>, len: usize) -> Option<Self> {
        if words.len() != len.div_ceil(64) {
            return None;
        }
        let mut set = Self { words, len };
        set.trim();
        Some(set)
    }

    fn trim(&mut self) {
        let extra = self.words.len() * 64 - self.len;
        if extra > 0 {
            if let Some(last) = self.words.last_mut() {
                *last &= u64::MAX >> extra;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_operations_agree_with_a_hash_set() {
        let mut a = TokenSet::empty(130);
        let mut b = TokenSet::empty(130);
        for i in (0..130).step_by(3) {
            a.insert(i);
        }
        for i in (0..130).step_by(5) {
            b.insert(i);
        }
        let mut both = a.clone();
        both.intersect_with(&b);
        assert_eq!(both.iter().collect::<Vec<_>>(), (0..130).step_by(15).collect::<Vec<_>>());
        let mut either = a.clone();
        either.union_with(&b);
        assert_eq!(either.count(), (0..130).filter(|i| i % 3 == 0 || i % 5 == 0).count());
        // Unions over whole blocks of eight words and the rest (1,000 ids: 15 words + 40 bits).
        let (mut x, mut y) = (TokenSet::empty(1000), TokenSet::empty(1000));
        (0..1000).step_by(7).for_each(|i| x.insert(i));
        (0..1000).step_by(11).for_each(|i| y.insert(i));
        x.union_with(&y);
        assert_eq!(
            x.iter().collect::<Vec<_>>(),
            (0..1000).filter(|i| i % 7 == 0 || i % 11 == 0).collect::<Vec<_>>()
        );
        a.subtract(&b);
        assert!(!a.contains(15) && a.contains(3));
        assert_eq!(TokenSet::full(130).count(), 130);
        assert!(!TokenSet::full(130).contains(130));
    }
}
