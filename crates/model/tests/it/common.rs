//! What several suites of this binary share: a deterministic generator for the fuzz
//! suites, the GGUF string encoding of hand-written files, the greedy choice.

/// A tiny xorshift generator: deterministic, no dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The greedy id of a step's logits ([`espalier_model::greedy`]: ties to the lowest id).
#[cfg(feature = "burn")]
pub fn argmax(logits: &[f32]) -> u32 {
    espalier_model::greedy(logits).expect("a finite logit")
}

/// A GGUF string: its length as a `u64`, then its bytes.
pub fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}
