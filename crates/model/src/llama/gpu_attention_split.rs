//! A decode step's attention split over the cache's rows (issue 33: "attention of one
//! query over the cache, split over the sequence for long contexts"). Unsplit, each query
//! head is one workgroup that walks every cached position in chunks
//! (`gpu_attention.rs`): 9 workgroups for SmolLM2, however long the context, which
//! leaves a GPU's other multiprocessors idle while they walk. Split, the stores' rows are
//! dealt into `parts` ranges of `capacity / parts` rows; workgroup (head, part) runs the
//! same online softmax over its range (`gpu_attention_new_row.rs` with `split`) and writes
//! its running state (the unnormalised output, the maximum, the sum), and a second launch
//! ([`combine`]) rescales the parts to their common maximum and divides:
//! `out = Σ_p acc_p e^(m_p - M) / Σ_p l_p e^(m_p - M)`, `M = max_p m_p`. A part past the
//! position has no rows (`m` below every score, `l` 0) and weighs nothing.
//!
//! The number of parts depends on the stores' capacity only, never on the position, so
//! a recorded step (`gpu_replay.rs`) replays at every position until the stores grow.
//! [`AttentionSplit`] says how many rows a part takes: [`AttentionSplit::ROWS`] by
//! default, `ESPALIER_GPU_ATTENTION_ROWS` (0: never split) at load. It applies where a
//! decode step's attention is folded with RoPE (a GPU's; `gpu_block.rs`), so a CPU
//! adapter keeps one workgroup a head. The split costs a launch a layer and is used only
//! when the stores have room for two parts or more (capacity >= 512 rows by default).
//! Twin: [`attend_split_twin`].

use super::gpu_attention::{attend_range, AttendShape, SoftmaxState};

/// How a decode step's attention divides the cache's rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AttentionSplit {
    /// Rows a part takes; `None`: never split.
    rows: Option<usize>,
}

impl AttentionSplit {
    /// The default rows a part: two of the kernel's chunks of 128, so stores of 2,048
    /// rows are 8 parts (72 workgroups for SmolLM2's 9 heads, 96 for Qwen2.5-1.5B's 12).
    /// Chosen, not measured: no GPU has run it yet.
    pub(crate) const ROWS: usize = 256;

    /// The most parts a launch takes (a bound on the combine's loop and its buffer).
    pub(crate) const MAX_PARTS: usize = 64;

    /// Parts of `rows` rows (`None` or 0: never split).
    pub(crate) fn rows(rows: Option<usize>) -> Self {
        Self { rows: rows.filter(|&r| r > 0) }
    }

    /// `ESPALIER_GPU_ATTENTION_ROWS` when set to a number, else [`Self::ROWS`].
    pub(crate) fn from_env() -> Self {
        match std::env::var("ESPALIER_GPU_ATTENTION_ROWS") {
            Ok(v) => Self::rows(v.trim().parse().ok().or(Some(Self::ROWS))),
            Err(_) => Self::rows(Some(Self::ROWS)),
        }
    }

    /// The parts for stores of `capacity` rows: `capacity / rows` rounded up, at least 1,
    /// at most [`Self::MAX_PARTS`].
    pub(crate) fn parts(&self, capacity: usize) -> usize {
        self.rows.map_or(1, |r| capacity.div_ceil(r).clamp(1, Self::MAX_PARTS))
    }
}

/// The split kernels' arithmetic on the host for one new row (`t` = 1): each query head's
/// `parts` ranges of `capacity.div_ceil(parts)` rows through [`attend_range`], then
/// [`combine_twin`]'s order. `q` `[heads][d]`; returns `[heads * d]`.
pub(crate) fn attend_split_twin(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    s: AttendShape,
    parts: usize,
) -> Vec<f32> {
    let (d, n, span) = (s.head_dim, s.past + 1, s.capacity.div_ceil(parts));
    let group = s.heads / s.kv_heads;
    let mut out = Vec::with_capacity(s.heads * d);
    for head in 0..s.heads {
        let q = &q[head * d..][..d];
        let states: Vec<SoftmaxState> = (0..parts)
            .map(|p| {
                let (lo, hi) = ((p * span).min(n), ((p + 1) * span).min(n));
                attend_range(q, k, v, (head / group, s), lo..hi)
            })
            .collect();
        out.extend(combine_twin(&states, d));
    }
    out
}

/// [`combine`]'s order on the host: the largest maximum, then each part's weight in part
/// order.
pub(crate) fn combine_twin(states: &[SoftmaxState], d: usize) -> Vec<f32> {
    let top = states.iter().fold(f32::NEG_INFINITY, |a, s| a.max(s.m));
    let (mut l, mut acc) = (0f32, vec![0f32; d]);
    for s in states {
        let w = (s.m - top).exp();
        l += s.l * w;
        acc.iter_mut().zip(&s.acc).for_each(|(a, x)| *a += x * w);
    }
    acc.iter().map(|a| a / l).collect()
}

#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
pub(crate) use device::combine;

#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
mod device {
    use burn::tensor::Tensor;
    use cubecl::prelude::*;

    use super::super::gpu_tensor::{arg, cube, empty, tensor};
    use super::super::ModelError;

    /// Cube `head`, unit `u < d`: element `u` of the head's output from its parts'
    /// states (`partials[(head · parts + p) · (d + 2) ..]`: `d` values, the maximum, the
    /// sum).
    #[cube(launch_unchecked)]
    fn combine_parts(partials: &[f32], out: &mut [f32], parts: usize, d: usize) {
        let u = usize::cast_from(UNIT_POS_X);
        let head = usize::cast_from(CUBE_POS_X);
        let first = head * parts * (d + 2);
        let mut top = f32::new(-3.0e38);
        let mut p = 0usize;
        while p < parts {
            let m = partials[first + p * (d + 2) + d];
            if m > top {
                top = m;
            }
            p += 1;
        }
        let mut l = 0.0f32;
        let mut acc = 0.0f32;
        let mut p = 0usize;
        while p < parts {
            let at = first + p * (d + 2);
            let w = (partials[at + d] - top).exp();
            l += partials[at + d + 1] * w;
            acc += partials[at + u] * w;
            p += 1;
        }
        out[head * d + u] = acc / l;
    }

    /// The parts' states `partials` (`[heads · parts · (d + 2)]`, written by
    /// `attend_new_row_rows` split) combined into the step's attention, `[1, heads · d]`.
    pub(crate) fn combine(
        partials: &Tensor<1>,
        heads: usize,
        parts: usize,
        d: usize,
    ) -> Result<Tensor<2>, ModelError> {
        let what = "GPU attention's parts";
        if partials.dims()[0] != heads * parts * (d + 2) || d == 0 || d > 1024 {
            return Err(ModelError::Execution(format!(
                "{what}: {:?} values for {heads} heads, {parts} parts of {d}",
                partials.dims()
            )));
        }
        let partials = cube(partials.clone(), what)?;
        let out = empty(&partials, &[1, heads * d]);
        // SAFETY: cube `head` reads its heads' parts (the length checked) and writes its
        // own d outputs.
        unsafe {
            combine_parts::launch_unchecked(
                &partials.client,
                CubeCount::Static(heads as u32, 1, 1),
                CubeDim::new_1d(d as u32),
                arg(&partials),
                arg(&out),
                parts,
                d,
            )
        };
        Ok(tensor(out))
    }
}

#[cfg(test)]
mod tests {
    use super::super::gpu_attention::attend_twin;
    use super::*;

    #[test]
    fn parts_follow_the_capacity_not_the_position() {
        let split = AttentionSplit::rows(Some(256));
        assert_eq!(split.parts(64), 1);
        assert_eq!(split.parts(256), 1);
        assert_eq!(split.parts(512), 2);
        assert_eq!(split.parts(2048), 8);
        assert_eq!(split.parts(1 << 20), AttentionSplit::MAX_PARTS);
        assert_eq!(AttentionSplit::rows(Some(0)).parts(4096), 1);
        assert_eq!(AttentionSplit::rows(None).parts(4096), 1);
    }

    /// Split into parts (some past the position, one of fewer rows than a chunk) the
    /// twin stays within float rounding of the unsplit one.
    #[test]
    fn the_split_twin_is_the_unsplit_one() {
        let (heads, kv_heads, d, capacity) = (4usize, 2usize, 16usize, 300usize);
        let k: Vec<f32> =
            (0..kv_heads * capacity * d).map(|i| ((i * 37 % 101) as f32 - 50.0) / 40.0).collect();
        let v: Vec<f32> =
            (0..kv_heads * capacity * d).map(|i| ((i * 53 % 97) as f32 - 48.0) / 30.0).collect();
        let q: Vec<f32> = (0..heads * d).map(|i| ((i * 29 % 89) as f32 - 44.0) / 35.0).collect();
        for past in [0usize, 100, 299] {
            let s = AttendShape { heads, kv_heads, head_dim: d, capacity, t: 1, past };
            let want = attend_twin(&q, &k, &v, s);
            for parts in [1usize, 2, 3, 7] {
                let got = attend_split_twin(&q, &k, &v, s, parts);
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        (g - w).abs() <= 1e-5 * (1.0 + w.abs()),
                        "past {past}, {parts} parts, at {i}: {g} vs {w}"
                    );
                }
            }
        }
    }
}
