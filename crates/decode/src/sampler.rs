//! Choosing one token from the model's logits: greedy, temperature, top-k, top-p, with
//! a seeded RNG that draws the same numbers natively and in wasm (ChaCha8, no OS
//! entropy), so a seed reproduces a generation anywhere.
//!
//! The sampler never sees the constraint: the caller passes a predicate saying which
//! ids may be chosen (the mask, the ban list of a step, the healing prefix set).

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};

/// Candidates whose logit is more than this many temperature-scaled nats below the
/// best one are dropped before sorting: together they weigh less than
/// `49152 * e^-30 ≈ 5e-9` of the mass, and skipping them turns a 49k-element sort
/// (~2 ms, 4% of a CPU forward pass) into a sort of a few hundred.
pub(crate) const NEGLIGIBLE_NATS: f32 = 30.0;

/// How to pick a token from a distribution. `temperature <= 0` means greedy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplingConfig {
    /// Softmax temperature; 0 (or below) picks the most likely token.
    pub temperature: f32,
    /// Keep only the `top_k` most likely tokens; 0 keeps all.
    pub top_k: usize,
    /// Keep the smallest set of most likely tokens whose mass reaches `top_p`; 1 keeps all.
    pub top_p: f32,
    /// Seed of the random generator.
    pub seed: u64,
}

impl Default for SamplingConfig {
    fn default() -> Self {
        Self { temperature: 0.0, top_k: 0, top_p: 1.0, seed: 0 }
    }
}

impl SamplingConfig {
    /// Greedy decoding (what evaluations use by default).
    pub fn greedy() -> Self {
        Self::default()
    }

    /// Whether this configuration picks the argmax.
    pub fn is_greedy(&self) -> bool {
        self.temperature <= 0.0 || self.top_k == 1
    }
}

/// A token sampler holding its random state.
#[derive(Clone, Debug)]
pub struct Sampler {
    config: SamplingConfig,
    pub(crate) rng: ChaCha8Rng,
    scratch: Vec<(u32, f32)>,
}

impl Sampler {
    /// A sampler seeded from `config.seed`.
    pub fn new(config: SamplingConfig) -> Self {
        let rng = ChaCha8Rng::seed_from_u64(config.seed);
        Self { config, rng, scratch: Vec::new() }
    }

    /// The configuration this sampler draws with.
    pub fn config(&self) -> &SamplingConfig {
        &self.config
    }

    /// Picks a token among the ids for which `allowed` holds; `None` when no allowed
    /// id has a finite logit (the caller reports a dead end).
    pub fn sample(&mut self, logits: &[f32], allowed: impl Fn(u32) -> bool) -> Option<u32> {
        if self.config.is_greedy() {
            return argmax(logits, allowed);
        }
        let t = self.config.temperature;
        let best = logits
            .iter()
            .enumerate()
            .filter(|(i, l)| l.is_finite() && allowed(*i as u32))
            .map(|(_, &l)| l)
            .fold(f32::NEG_INFINITY, f32::max);
        if !best.is_finite() {
            return None;
        }
        let floor = best - NEGLIGIBLE_NATS * t;
        let mut cands = std::mem::take(&mut self.scratch);
        cands.clear();
        cands.extend(
            logits
                .iter()
                .enumerate()
                .filter(|(i, &l)| l.is_finite() && l >= floor && allowed(*i as u32))
                .map(|(i, &l)| (i as u32, ((l - best) / t).exp())),
        );
        let chosen = self.draw(&mut cands);
        self.scratch = cands;
        chosen
    }

    /// Draws from `cands` (`(id, weight)` of every candidate within the floor): sorted
    /// by weight, cut by top-k and top-p, then one uniform draw over what is left.
    pub(crate) fn draw(&mut self, cands: &mut Vec<(u32, f32)>) -> Option<u32> {
        // Highest weight first, ties by id so the order never depends on the platform.
        cands.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        if self.config.top_k > 0 && cands.len() > self.config.top_k {
            cands.truncate(self.config.top_k);
        }
        let total: f32 = cands.iter().map(|c| c.1).sum();
        if self.config.top_p < 1.0 {
            let mut acc = 0.0;
            let mut keep = cands.len();
            for (i, c) in cands.iter().enumerate() {
                acc += c.1 / total;
                if acc >= self.config.top_p {
                    keep = i + 1;
                    break;
                }
            }
            cands.truncate(keep.max(1));
        }
        let total: f32 = cands.iter().map(|c| c.1).sum();
        let mut u = unit_f32(&mut self.rng) * total;
        for &(id, w) in cands.iter() {
            if u < w {
                return Some(id);
            }
            u -= w;
        }
        cands.last().map(|c| c.0)
    }
}

/// A uniform draw in `[0, 1)` from the top 24 bits (an f32 has a 24-bit mantissa).
pub(crate) fn unit_f32(rng: &mut ChaCha8Rng) -> f32 {
    (rng.next_u32() >> 8) as f32 * (1.0 / (1u32 << 24) as f32)
}

/// The allowed id with the highest finite logit; ties go to the lowest id.
pub fn argmax(logits: &[f32], allowed: impl Fn(u32) -> bool) -> Option<u32> {
    let mut best: Option<(u32, f32)> = None;
    for (i, &l) in logits.iter().enumerate() {
        if !l.is_finite() || best.is_some_and(|(_, b)| l <= b) || !allowed(i as u32) {
            continue;
        }
        best = Some((i as u32, l));
    }
    best.map(|b| b.0)
}

/// Softmax probabilities (temperature 1) of the `n` most likely ids, for traces and
/// the visualizer: `(id, probability)`, most likely first.
pub fn top_candidates(logits: &[f32], n: usize) -> Vec<(u32, f32)> {
    let best = logits.iter().copied().filter(|l| l.is_finite()).fold(f32::NEG_INFINITY, f32::max);
    if !best.is_finite() || n == 0 {
        return Vec::new();
    }
    let total: f32 = logits.iter().filter(|l| l.is_finite()).map(|&l| (l - best).exp()).sum();
    let mut top: Vec<(u32, f32)> = Vec::with_capacity(n + 1);
    for (i, &l) in logits.iter().enumerate() {
        if !l.is_finite() || (top.len() == n && l <= top[n - 1].1) {
            continue;
        }
        let pos = top.partition_point(|c| c.1 >= l);
        top.insert(pos, (i as u32, l));
        top.truncate(n);
    }
    top.into_iter().map(|(i, l)| (i, (l - best).exp() / total)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(temperature: f32, top_k: usize, top_p: f32, seed: u64) -> SamplingConfig {
        SamplingConfig { temperature, top_k, top_p, seed }
    }

    #[test]
    fn greedy_takes_the_best_allowed_and_the_lowest_id_on_ties() {
        let logits = [1.0, 5.0, 5.0, 3.0, f32::NAN];
        let mut s = Sampler::new(SamplingConfig::greedy());
        assert_eq!(s.sample(&logits, |_| true), Some(1));
        assert_eq!(s.sample(&logits, |i| i != 1), Some(2));
        assert_eq!(s.sample(&logits, |i| i == 0 || i == 4), Some(0));
        assert_eq!(s.sample(&logits, |i| i == 4), None, "NaN logits are never chosen");
    }

    #[test]
    fn same_seed_same_draws_other_seed_other_draws() {
        let logits: Vec<f32> = (0..50).map(|i| (i % 7) as f32 * 0.3).collect();
        let draw = |seed| {
            let mut s = Sampler::new(config(1.0, 0, 1.0, seed));
            (0..40).map(|_| s.sample(&logits, |_| true).unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
    }

    #[test]
    fn temperature_sampling_matches_the_softmax() {
        // p = softmax([0, ln 3]) = [0.25, 0.75]
        let logits = [0.0, 3f32.ln()];
        let mut s = Sampler::new(config(1.0, 0, 1.0, 1));
        let n = 20_000;
        let ones = (0..n).filter(|_| s.sample(&logits, |_| true) == Some(1)).count();
        let freq = ones as f64 / n as f64;
        assert!((freq - 0.75).abs() < 0.015, "frequency of id 1 was {freq}");
    }

    #[test]
    fn top_k_and_top_p_cut_the_tail() {
        let logits = [4.0, 3.0, 2.0, 1.0, 0.0];
        let mut k = Sampler::new(config(5.0, 2, 1.0, 3));
        let mut p = Sampler::new(config(1.0, 0, 0.5, 3));
        for _ in 0..500 {
            assert!(k.sample(&logits, |_| true).unwrap() < 2);
            // softmax(4,3,...) puts 0.64 on id 0: top-p 0.5 keeps only it.
            assert_eq!(p.sample(&logits, |_| true), Some(0));
        }
    }

    #[test]
    fn sampling_respects_the_predicate() {
        let logits = [9.0, 0.0, 0.0, 8.0];
        let mut s = Sampler::new(config(2.0, 0, 0.9, 11));
        for _ in 0..300 {
            let id = s.sample(&logits, |i| i == 1 || i == 2).unwrap();
            assert!(id == 1 || id == 2);
        }
        assert_eq!(s.sample(&logits, |_| false), None);
    }

    #[test]
    fn top_candidates_are_sorted_probabilities() {
        let logits = [0.0, 2.0, 1.0, f32::NEG_INFINITY];
        let top = top_candidates(&logits, 2);
        assert_eq!(top.iter().map(|c| c.0).collect::<Vec<_>>(), vec![1, 2]);
        let z = 1.0 + 2f32.exp() + 1f32.exp();
        assert!((top[0].1 - 2f32.exp() / z).abs() < 1e-6);
    }
}
