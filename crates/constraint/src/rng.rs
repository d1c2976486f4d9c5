//! SplitMix64: the small, fast, seedable generator of the random walks (sLua's walker,
//! this crate's randomized suites). Fixed seeds make every walk reproducible, without a
//! dependency; the one copy both depend on.

/// A SplitMix64 generator; `Rng(state)` starts from a raw state, [`Rng::new`] from a seed.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// A generator from a seed (the state is the seed mixed with the golden ratio).
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// A float in [0, 1).
    pub fn float(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}
