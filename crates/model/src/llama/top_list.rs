//! A step's best candidates as a short list ([`TopList`]): the `k` allowed ids with the
//! highest finite logits, highest first, ties to the lowest id (the order of the CPU
//! sampler's `argmax`), and the softmax denominator over every allowed finite logit.
//! On a GPU the list is found on the device (`gpu_top.rs`) and only it comes back (a few
//! hundred bytes instead of the 196 KB vector): the visualizer's candidates with their
//! probabilities, and the greedy draw under the step's mask even after a few refusals.
//! [`top_twin`] is the host's answer, the one the device's must equal.

/// What a list's total sums: `exp((logit - best) / temperature)` over every allowed
/// finite logit at most `floor` below the best (the sampler's candidates at its
/// temperature: `espalier_decode::Sampler::draw_mass`; [`Mass::SOFTMAX`]: the softmax
/// denominator, every logit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mass {
    pub temperature: f32,
    pub floor: f32,
}

impl Mass {
    /// Temperature 1, every logit: the softmax's denominator.
    pub const SOFTMAX: Mass = Mass { temperature: 1.0, floor: f32::INFINITY };

    /// Whether `l` counts, `best` the highest allowed logit.
    fn counts(self, l: f32, best: f32) -> bool {
        best - l <= self.floor
    }

    /// `l`'s term.
    fn weight(self, l: f32, best: f32) -> f32 {
        ((l - best) / self.temperature).exp()
    }
}

/// One list asked of a step's logits (`DeviceLogits::tops`): the `k` best ids among
/// `allowed` (a bitset in `u64` words, bit `id % 64` of word `id / 64`; `None`: every id)
/// and the total of `mass` over them all.
#[derive(Clone, Copy, Debug)]
pub struct ListQuery<'a> {
    pub allowed: Option<&'a [u64]>,
    pub k: usize,
    pub mass: Mass,
}

impl<'a> ListQuery<'a> {
    /// The `k` best of `allowed` with the softmax's denominator.
    pub fn new(allowed: Option<&'a [u64]>, k: usize) -> Self {
        Self { allowed, k, mass: Mass::SOFTMAX }
    }

    /// The same list with the total of `mass`.
    pub fn with_mass(self, mass: Mass) -> Self {
        Self { mass, ..self }
    }
}

/// The `k` best allowed ids and the mass they are drawn from.
#[derive(Clone, Debug, PartialEq)]
pub struct TopList {
    /// `(id, logit)`, the highest logit first, ties to the lowest id; fewer than `k`
    /// entries when fewer ids are allowed and finite.
    pub entries: Vec<(u32, f32)>,
    /// The sum of `mass` over every allowed finite logit (`best` the first entry's); 0
    /// when there is none. On a GPU summed in its order (a tree), within rounding of the
    /// host's sequential sum.
    pub total: f32,
    /// The `k` asked for.
    pub k: usize,
    /// What `total` sums.
    pub mass: Mass,
}

impl TopList {
    /// The longest list a query may ask for (the device finds it in `k` rounds).
    pub const MAX_K: usize = 64;

    /// Whether the list holds every allowed finite id (fewer than `k` of them).
    pub fn is_complete(&self) -> bool {
        self.entries.len() < self.k
    }

    /// The entries' probabilities over the list's mass (with [`Mass::SOFTMAX`]: the
    /// softmax at temperature 1 over every allowed finite logit).
    pub fn probabilities(&self) -> Vec<(u32, f32)> {
        let Some(&(_, best)) = self.entries.first() else { return Vec::new() };
        self.entries.iter().map(|&(id, l)| (id, self.mass.weight(l, best) / self.total)).collect()
    }

    /// Among the listed ids, the first not in `refused`: the greedy draw under the
    /// list's mask less `refused`. `Some(None)` when every allowed id is refused (the
    /// list is complete), `None` when the list cannot tell (all its entries refused,
    /// more ids allowed past them).
    pub fn first_not_in(&self, refused: &[u32]) -> Option<Option<u32>> {
        match self.entries.iter().find(|(id, _)| !refused.contains(id)) {
            Some(&(id, _)) => Some(Some(id)),
            None => self.is_complete().then_some(None),
        }
    }
}

/// The host's [`TopList`] of `logits` under `allowed`: the order of sums the GPU's is
/// checked against (the entries exactly, the total within rounding).
pub(crate) fn top_twin(
    logits: &[f32],
    allowed: impl Fn(usize) -> bool,
    k: usize,
    mass: Mass,
) -> TopList {
    let mut entries: Vec<(u32, f32)> = Vec::with_capacity(k + 1);
    for (i, &l) in logits.iter().enumerate() {
        if k == 0 || !l.is_finite() || !allowed(i) {
            continue;
        }
        if entries.len() == k && entries.last().is_some_and(|&(_, last)| l <= last) {
            continue;
        }
        // After every entry with a logit >= l: equal logits keep id order.
        let at = entries.partition_point(|&(_, e)| e >= l);
        entries.insert(at, (i as u32, l));
        entries.truncate(k);
    }
    let best = best_allowed(logits, &allowed);
    let total = best.map_or(0.0, |best| {
        let mut total = 0.0f32;
        for (i, &l) in logits.iter().enumerate() {
            if l.is_finite() && allowed(i) && mass.counts(l, best) {
                total += mass.weight(l, best);
            }
        }
        total
    });
    TopList { entries, total, k, mass }
}

/// The highest allowed finite logit.
fn best_allowed(logits: &[f32], allowed: impl Fn(usize) -> bool) -> Option<f32> {
    logits
        .iter()
        .enumerate()
        .filter(|&(i, l)| l.is_finite() && allowed(i))
        .map(|(_, &l)| l)
        .reduce(f32::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_twin_lists_the_best_allowed_finite_ids_in_argmax_order() {
        let l = [1.0, f32::NAN, 3.0, f32::INFINITY, 3.0, 2.0, f32::NEG_INFINITY, 0.5];
        let top = top_twin(&l, |_| true, 3, Mass::SOFTMAX);
        assert_eq!(top.entries, vec![(2, 3.0), (4, 3.0), (5, 2.0)]);
        assert!(!top.is_complete());
        let want = 2.0 + (-1.0f32).exp() + (-2.0f32).exp() + (-2.5f32).exp();
        assert!((top.total - want).abs() < 1e-6, "{} vs {want}", top.total);
        let odd = top_twin(&l, |i| i % 2 == 1, 4, Mass::SOFTMAX);
        assert_eq!(odd.entries, vec![(5, 2.0), (7, 0.5)]);
        assert!(odd.is_complete());
        assert_eq!(odd.total, 1.0 + (-1.5f32).exp());
        let none = top_twin(&l, |_| false, 2, Mass::SOFTMAX);
        assert_eq!((none.entries.len(), none.total), (0, 0.0));
        assert_eq!(top_twin(&l, |_| true, 0, Mass::SOFTMAX).entries, vec![]);
    }

    #[test]
    fn the_first_unrefused_entry_is_the_greedy_draw_when_the_list_can_tell() {
        let l = [1.0, 5.0, 3.0, 4.0, 2.0];
        let top = top_twin(&l, |_| true, 2, Mass::SOFTMAX);
        assert_eq!(top.first_not_in(&[]), Some(Some(1)));
        assert_eq!(top.first_not_in(&[1]), Some(Some(3)));
        // Both listed ids refused, more allowed past them: the list cannot tell.
        assert_eq!(top.first_not_in(&[1, 3]), None);
        let all = top_twin(&l, |i| i == 1, 2, Mass::SOFTMAX);
        assert_eq!(all.first_not_in(&[1]), Some(None));
    }

    #[test]
    fn probabilities_are_the_softmax_over_the_allowed_mass() {
        let l = [0.0, 1.0, 2.0];
        let top = top_twin(&l, |_| true, 2, Mass::SOFTMAX);
        let p = top.probabilities();
        let z = 1.0 + (-1.0f32).exp() + (-2.0f32).exp();
        assert_eq!(p.iter().map(|c| c.0).collect::<Vec<_>>(), vec![2, 1]);
        assert!((p[0].1 - 1.0 / z).abs() < 1e-6 && (p[1].1 - (-1.0f32).exp() / z).abs() < 1e-6);
    }

    #[test]
    fn a_mass_sums_its_temperature_within_its_floor() {
        let l = [0.0, 1.0, 2.0, -10.0];
        let hot = Mass { temperature: 2.0, floor: 10.0 };
        let top = top_twin(&l, |_| true, 1, hot);
        // -10 is 12 below the best: past the floor (the softmax counts it: e^-12).
        let want = 1.0 + (-0.5f32).exp() + (-1.0f32).exp();
        assert!((top.total - want).abs() < 1e-6, "{} vs {want}", top.total);
        assert_eq!(top.probabilities(), vec![(2, 1.0 / top.total)]);
        let all = top_twin(&l, |_| true, 1, Mass::SOFTMAX);
        assert!(all.total > top_twin(&l[..3], |_| true, 1, Mass::SOFTMAX).total);
    }
}
