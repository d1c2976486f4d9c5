//! Sampling from a [`Shortlist`]: the best allowed ids of a step's logits found where the
//! logits are (a GPU reads back these instead of the whole vector), and the same draw
//! [`Sampler::sample`] makes on the whole vector whenever the list decides it:
//!
//! - greedy: the first entry;
//! - the list holds every candidate within the sampler's floor, or top-k keeps only listed
//!   ids whose weights exceed every unlisted one's: the draw itself;
//! - otherwise, with the list's [`ListTotal`] (the weights of every candidate summed where
//!   the logits are, in the device's order and `exp`): the unlisted weights' sum lies in
//!   an interval, so does the sampler's total (its sequential f32 sum, within
//!   [`Sampler::draw`]'s rounding), and the draw is monotone in the total (a larger total
//!   moves the uniform draw, and top-p's cut, only later). When both ends of the interval
//!   choose the same listed id (with the same top-p cut), so does the sampler: that is the
//!   draw. When they differ, or the draw runs past the list, the list cannot tell.
//!
//! A list that cannot tell draws nothing and leaves the RNG as it was: the caller samples
//! the whole vector from the same state.

use crate::sampler::{unit_f32, Sampler, NEGLIGIBLE_NATS};

/// The best allowed ids of a step's logits, found where they are (a GPU reads back only
/// these): `(id, logit)`, the highest logit first, ties to the lowest id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shortlist {
    /// The entries, best first.
    pub entries: Vec<(u32, f32)>,
    /// `None` when the entries are every allowed id with a finite logit; otherwise a
    /// bound on the logits of those left out.
    pub rest_at_most: Option<f32>,
    /// The sampler's weights summed over every candidate (listed or not), when the
    /// logits were asked for it ([`DrawMass`]) and could sum it.
    pub total: Option<ListTotal>,
}

/// What a sampling draw's weights are: `exp((logit - best) / temperature)` over the
/// allowed finite logits at most `floor` below the best ([`SamplingConfig::draw_mass`]).
///
/// [`SamplingConfig::draw_mass`]: crate::SamplingConfig::draw_mass
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawMass {
    pub temperature: f32,
    pub floor: f32,
}

/// The weights of a [`DrawMass`] summed over every allowed id (none refused) where the
/// logits are: within [`ListTotal::RELATIVE_ERROR`] of the exact sum of the weights the
/// sampler computes, over at most `terms` ids.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ListTotal {
    pub sum: f32,
    pub terms: usize,
}

impl ListTotal {
    /// How far a device's sum may be from the exact sum of the host's weights, relative:
    /// WGSL's `exp` is within `3 + 2|x|` ulp (x down to -30 within the floor: 63 ulp,
    /// 4e-6) and a tree sum of 49,152 terms within ~17 roundings (1e-6); 1e-3 leaves a
    /// factor of 200. The GPU kernel check (`espalier_model::gpu_kernel_check`) holds
    /// the device's totals to 1e-4 of `1 + total` (at most 2e-4 relative: a total is at
    /// least 1, the best's weight).
    pub const RELATIVE_ERROR: f64 = 1e-3;
}

impl crate::SamplingConfig {
    /// The mass a shortlist's total should sum for this configuration's draws; `None`
    /// when greedy or top-k (a list decides those without it).
    pub fn draw_mass(&self) -> Option<DrawMass> {
        let t = self.temperature;
        (!self.is_greedy() && self.top_k == 0)
            .then_some(DrawMass { temperature: t, floor: NEGLIGIBLE_NATS * t })
    }
}

impl Sampler {
    /// [`Sampler::sample`] from a [`Shortlist`]: the same draw as from the whole vector,
    /// or `None` when the list cannot tell (see the module); nothing is drawn then.
    pub fn sample_shortlist(&mut self, list: &Shortlist) -> Option<Option<u32>> {
        let complete = list.rest_at_most.is_none();
        if self.config().is_greedy() {
            return list.entries.first().map(|e| Some(e.0)).or(complete.then_some(None));
        }
        let t = self.config().temperature;
        let Some(&(_, best)) = list.entries.first() else {
            return complete.then_some(None);
        };
        let floor = best - NEGLIGIBLE_NATS * t;
        let weight = |l: f32| ((l - best) / t).exp();
        let mut cands: Vec<(u32, f32)> =
            list.entries.iter().filter(|e| e.1 >= floor).map(|&(id, l)| (id, weight(l))).collect();
        // The ids left out are below the floor, or top-k keeps only listed ids whose
        // weights exceed every one of theirs.
        if let Some(rest) = list.rest_at_most.filter(|&rest| rest >= floor) {
            cands.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let k = self.config().top_k;
            if k > 0 && cands.len() >= k && cands[k - 1].1 > weight(rest) {
                return Some(self.draw(&mut cands));
            }
            let total = list.total.filter(|_| k == 0)?;
            // The sampler's first entries are the listed ones heavier than every unlisted
            // one; the rest of the list counts with the unlisted.
            cands.retain(|c| c.1 > weight(rest));
            return self.draw_within(&cands, total).map(Some);
        }
        Some(self.draw(&mut cands))
    }

    /// The draw over `cands` (the heaviest candidates, in the sampler's order) and others
    /// whose weights, with `cands`', sum to `total` (see the module), or `None`.
    fn draw_within(&mut self, cands: &[(u32, f32)], total: ListTotal) -> Option<u32> {
        let listed: f64 = cands.iter().map(|c| f64::from(c.1)).sum();
        let device = f64::from(total.sum);
        let rest =
            |sign: f64| (device * (1.0 + sign * ListTotal::RELATIVE_ERROR) - listed).max(0.0);
        // The sampler sums in f32, one rounding (half an epsilon) an added term, each
        // within that of the running total.
        let rounding = total.terms as f64 * f64::from(f32::EPSILON) / 2.0;
        let head: f32 = cands.iter().map(|c| c.1).sum();
        let low = f32::next_down(((f64::from(head) + rest(-1.0)) * (1.0 - rounding)) as f32);
        let high = f32::next_up(((f64::from(head) + rest(1.0)) * (1.0 + rounding)) as f32);
        let mut rng = self.rng.clone();
        let unit = unit_f32(&mut rng);
        let top_p = self.config().top_p;
        let (a, b) =
            (listed_pick(cands, low, unit, top_p)?, listed_pick(cands, high, unit, top_p)?);
        (a == b).then(|| {
            self.rng = rng;
            cands[a.1].0
        })
    }
}

/// Where [`Sampler::draw`] ends on candidates that begin with `cands` and total `total`
/// (for top-p: the first total), drawing `unit`: `(top-p's cut, index)` when both are
/// inside `cands`, else `None`.
fn listed_pick(cands: &[(u32, f32)], total: f32, unit: f32, top_p: f32) -> Option<(usize, usize)> {
    let (mut kept, mut total) = (None, total);
    if top_p < 1.0 {
        let mut acc = 0.0;
        let cut = cands.iter().position(|c| {
            acc += c.1 / total;
            acc >= top_p
        })?;
        kept = Some(cut + 1);
        total = cands[..=cut].iter().map(|c| c.1).sum();
    }
    let mut u = unit * total;
    for (i, &(_, w)) in cands[..kept.unwrap_or(cands.len())].iter().enumerate() {
        if u < w {
            return Some((kept.unwrap_or(0), i));
        }
        u -= w;
    }
    // Past the cut the sampler takes the last kept; past the list, an unlisted one.
    kept.map(|k| (k, k - 1))
}

#[cfg(test)]
mod tests {
    use rand_core::RngCore;

    use super::*;
    use crate::SamplingConfig;

    fn config(temperature: f32, top_k: usize, top_p: f32, seed: u64) -> SamplingConfig {
        SamplingConfig { temperature, top_k, top_p, seed }
    }

    /// The best `k` allowed ids of `logits`, as a device's list would hold them.
    fn shortlist_of(logits: &[f32], allowed: impl Fn(u32) -> bool, k: usize) -> Shortlist {
        let mut all: Vec<(u32, f32)> = logits
            .iter()
            .enumerate()
            .filter(|&(i, l)| l.is_finite() && allowed(i as u32))
            .map(|(i, &l)| (i as u32, l))
            .collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let rest_at_most = (all.len() > k).then(|| all[k - 1].1);
        all.truncate(k);
        Shortlist { entries: all, rest_at_most, total: None }
    }

    #[test]
    fn a_shortlist_draws_what_the_whole_vector_draws_or_says_it_cannot() {
        // Peaked logits (a few tokens far above a long tail), as a model's are, with
        // ties in the tail; a mask of every third id.
        let logits: Vec<f32> = (0..3000u32)
            .map(|i| {
                let x = (i.wrapping_mul(2_654_435_761) >> 7) % 1000;
                if i % 97 == 5 {
                    25.0 - (i % 11) as f32
                } else {
                    (x / 50) as f32 * 0.25
                }
            })
            .collect();
        let allowed = |i: u32| i % 3 != 1;
        let mut undecided = Vec::new();
        for (t, top_k, top_p) in [
            (0.7, 0, 1.0),
            (1.0, 0, 0.9),
            (0.3, 40, 1.0),
            (1.5, 20, 0.95),
            (1.0, 64, 1.0),
            (0.0, 0, 1.0),
        ] {
            for depth in [1, 8, 64, 3000] {
                let list = shortlist_of(&logits, allowed, depth);
                for seed in 0..20 {
                    let mut whole = Sampler::new(config(t, top_k, top_p, seed));
                    let mut short = whole.clone();
                    let case = format!("t {t} k {top_k} p {top_p} depth {depth} seed {seed}");
                    match short.sample_shortlist(&list) {
                        Some(got) => assert_eq!(got, whole.sample(&logits, allowed), "{case}"),
                        // Nothing drawn: the whole vector draws next, from the same state.
                        None => undecided.push((t, top_k, depth)),
                    }
                    assert_eq!(short.rng.next_u32(), whole.rng.next_u32(), "{case}: draws used");
                }
            }
        }
        // A complete list always decides, greedy always, and top-k below the list's depth
        // here (the tail is far below the peaks); plain temperature and top-p need every
        // id within the 30-nat floor, which reaches this tail.
        for &(t, top_k, depth) in &undecided {
            assert!(depth < 3000 && t > 0.0, "undecided: t {t} depth {depth}");
            assert!(!(depth == 64 && (top_k == 20 || top_k == 40)), "undecided: top-k {top_k}");
        }
        assert!(undecided.len() < 300, "{} of 480 undecided", undecided.len());
    }

    /// `shortlist_of` with the total a device would sum for `config`: the weights' exact
    /// sum off by `error` (relative).
    fn with_total(
        mut list: Shortlist,
        logits: &[f32],
        allowed: impl Fn(u32) -> bool,
        c: &SamplingConfig,
        error: f64,
    ) -> Shortlist {
        let Some(mass) = c.draw_mass() else { return list };
        let best = list.entries.first().map_or(0.0, |e| e.1);
        let exact: f64 = logits
            .iter()
            .enumerate()
            .filter(|&(i, &l)| l.is_finite() && allowed(i as u32) && best - l <= mass.floor)
            .map(|(_, &l)| f64::from(((l - best) / mass.temperature).exp()))
            .sum();
        list.total = Some(ListTotal { sum: (exact * (1.0 + error)) as f32, terms: logits.len() });
        list
    }

    #[test]
    fn a_shortlist_with_its_total_draws_what_the_whole_vector_draws_or_says_it_cannot() {
        // A model-like tail: most of the mass in the best few, a long tail within the floor.
        let logits: Vec<f32> = (0..5000u32)
            .map(|i| {
                let x = (i.wrapping_mul(2_654_435_761) >> 9) % 4096;
                if i % 211 == 7 {
                    14.0 - (i % 13) as f32 * 0.5
                } else {
                    x as f32 / 512.0
                }
            })
            .collect();
        let allowed = |i: u32| i % 5 != 2;
        let (mut decided, mut cases) = (0, 0);
        for (t, top_p) in [(0.8, 1.0), (1.0, 0.95), (0.5, 0.9), (1.2, 1.0)] {
            for error in [0.0, 9e-4, -9e-4] {
                for seed in 0..60 {
                    let c = config(t, 0, top_p, seed);
                    let list =
                        with_total(shortlist_of(&logits, allowed, 64), &logits, allowed, &c, error);
                    let mut whole = Sampler::new(c.clone());
                    let mut short = whole.clone();
                    let case = format!("t {t} p {top_p} error {error} seed {seed}");
                    cases += 1;
                    if let Some(got) = short.sample_shortlist(&list) {
                        decided += 1;
                        assert_eq!(got, whole.sample(&logits, allowed), "{case}");
                    }
                    assert_eq!(short.rng.next_u32(), whole.rng.next_u32(), "{case}: draws used");
                }
            }
        }
        // Without the total none of these decides (the floor reaches the tail); with it
        // every draw that lands among the listed heavy ids does.
        let without = shortlist_of(&logits, allowed, 64);
        assert_eq!(Sampler::new(config(0.8, 0, 1.0, 0)).sample_shortlist(&without), None);
        assert!(decided * 2 > cases, "{decided} of {cases} decided");
    }
}
