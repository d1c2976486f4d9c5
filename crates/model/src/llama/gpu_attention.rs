//! Causal grouped-query attention of the new rows over the device KV cache, in one launch
//! on a cubecl GPU (issue 33 step 4). The burn path (`mod.rs`: a reshape copy of the
//! queries, the keys' transposition, two batched matmuls, the mask, softmax's five ops,
//! the output's reshapes) is ~10 launches per layer without `fusion`.
//!
//! Cube (head, row) attends query head `head` of new row `row` (position `past + row`)
//! to cached positions `0..=past + row` of key/value head `head / group`, reading the
//! cache store `[kv_heads, capacity, d]` in place. One workgroup of [`UNITS`] walks the
//! positions in chunks of [`UNITS`] with an online softmax: unit `u` scores position
//! `start + u` (a dot product of `d`), the chunk's maximum folds in shared memory (the
//! larger of each pair), each unit's `exp(score - max)` is kept in shared memory and
//! their sum folds the same way (halves added); then unit `i < d` rescales its running
//! output by `exp(old max - new max)` and adds the chunk's weighted values in position
//! order. At the end `out = acc / sum`. The scores are not scaled: the queries are
//! (`weights`). [`attend_twin`] repeats the order on the host. `d <= UNITS`.
//!
//! A decode step on a GPU attends straight from the QKV product's row instead
//! (`gpu_attention_new_row.rs`), with this online softmax ([`chunk_weights`] and the
//! chunk order).

use super::gpu_fold::{fold_max, fold_sum};

/// Units of a (head, row) workgroup, also the chunk of positions (a power of two).
pub(crate) const UNITS: usize = 128;

/// The cache and head shapes [`attend_twin`] and the kernel read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AttendShape {
    pub heads: usize,
    pub kv_heads: usize,
    pub head_dim: usize,
    /// Rows of the cache store per key/value head.
    pub capacity: usize,
    /// New rows.
    pub t: usize,
    /// Position of the first new row.
    pub past: usize,
}

/// The kernel's arithmetic on the host: `q` `[heads][t][d]`, `k` / `v` the stores
/// `[kv_heads][capacity][d]`; returns `[t][heads * d]`.
pub(crate) fn attend_twin(q: &[f32], k: &[f32], v: &[f32], s: AttendShape) -> Vec<f32> {
    let d = s.head_dim;
    let group = s.heads / s.kv_heads;
    let mut out = vec![0f32; s.t * s.heads * d];
    for head in 0..s.heads {
        for r in 0..s.t {
            let q = &q[(head * s.t + r) * d..][..d];
            let state = attend_range(q, k, v, (head / group, s), 0..s.past + r + 1);
            let o = &mut out[r * s.heads * d + head * d..][..d];
            o.iter_mut().zip(&state.acc).for_each(|(o, a)| *o = a / state.l);
        }
    }
    out
}

/// The online softmax's running state over some positions: the maximum score `m`, the
/// sum `l` of `exp(score - m)`, and the values weighted by those, unnormalised.
pub(crate) struct SoftmaxState {
    pub m: f32,
    pub l: f32,
    pub acc: Vec<f32>,
}

/// One query `q` over positions `range` of key/value head `kv`'s stores, in the kernel's
/// chunks of [`UNITS`] from the range's start.
pub(crate) fn attend_range(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    (kv, s): (usize, AttendShape),
    range: std::ops::Range<usize>,
) -> SoftmaxState {
    let d = s.head_dim;
    let (mut m, mut l, mut acc) = (f32::NEG_INFINITY, 0f32, vec![0f32; d]);
    for start in range.clone().step_by(UNITS) {
        let count = UNITS.min(range.end - start);
        let mut scores = [f32::NEG_INFINITY; UNITS];
        for (u, s_u) in scores.iter_mut().enumerate().take(count) {
            let key = &k[(kv * s.capacity + start + u) * d..][..d];
            *s_u = q.iter().zip(key).fold(0.0, |a, (x, y)| a + x * y);
        }
        let new_m = m.max(fold_max(&mut scores.clone()));
        let mut e = [0f32; UNITS];
        for u in 0..count {
            e[u] = (scores[u] - new_m).exp();
        }
        let alpha = (m - new_m).exp();
        l = l * alpha + fold_sum(&mut e.clone());
        for (i, a) in acc.iter_mut().enumerate() {
            let mut chunk = 0f32;
            for (j, &e) in e.iter().enumerate().take(count) {
                chunk += e * v[(kv * s.capacity + start + j) * d + i];
            }
            *a = *a * alpha + chunk;
        }
        m = new_m;
    }
    SoftmaxState { m, l, acc }
}

#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
pub(crate) use device::{attend, chunk_weights};

#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
mod device {
    use burn::tensor::Tensor;
    use cubecl::prelude::*;

    use super::super::gpu_fold::{fold_max_shared, fold_sum_shared};
    use super::super::gpu_tensor::{arg, cube, empty, tensor, Position};
    use super::super::ModelError;
    use super::{AttendShape, UNITS};

    /// See the module: cube (head, row), [`UNITS`] units.
    #[allow(clippy::too_many_arguments)]
    #[cube(launch_unchecked)]
    fn attend_rows(
        q: &[f32],
        k: &[f32],
        v: &[f32],
        out: &mut [f32],
        position: &[f32],
        heads: usize,
        group: usize,
        d: usize,
        capacity: usize,
        t: usize,
    ) {
        let u = usize::cast_from(UNIT_POS_X);
        let units = comptime![UNITS];
        let head = usize::cast_from(CUBE_POS_X);
        let r = usize::cast_from(CUBE_POS_Y);
        let past = usize::cast_from(u32::cast_from(position[0]));
        let base = (head / group) * capacity * d;
        let mut qs = Shared::<[f32]>::new_slice(comptime![UNITS]);
        let mut red = Shared::<[f32]>::new_slice(comptime![UNITS]);
        let mut e = Shared::<[f32]>::new_slice(comptime![UNITS]);
        if u < d {
            qs[u] = q[(head * t + r) * d + u];
        }
        sync_cube();
        let n = past + r + 1;
        // Below every score (a literal: no infinity constants in the kernel language).
        let mut m = f32::new(-3.0e38);
        let mut l = 0.0f32;
        let mut acc = 0.0f32;
        let mut start = 0usize;
        while start < n {
            let p = start + u;
            let mut score = f32::new(-3.0e38);
            if p < n {
                score = key_dot(&qs, k, base + p * d, d);
            }
            let new_m = chunk_weights(score, p < n, &mut red, &mut e, u, m);
            let alpha = (m - new_m).exp();
            l = l * alpha + red[0];
            if u < d {
                let mut count = n - start;
                if count > units {
                    count = units;
                }
                acc = acc * alpha + weighted_values(&e, v, base + start * d + u, count, d);
            }
            m = new_m;
            sync_cube();
            start += units;
        }
        if u < d {
            out[r * heads * d + head * d + u] = acc / l;
        }
    }

    /// One chunk of the online softmax, shared by both kernels: the chunk's maximum
    /// folded with the running one `m` (returned), each unit's `exp(score - max)` in
    /// `e[u]` (0 where `valid` is false), and their sum folded into `red[0]`. Every unit
    /// of the workgroup calls it (it waits at barriers).
    #[cube]
    pub(crate) fn chunk_weights(
        score: f32,
        valid: bool,
        red: &mut [f32],
        e: &mut [f32],
        u: usize,
        m: f32,
    ) -> f32 {
        red[u] = score;
        sync_cube();
        fold_max_shared(red, u);
        let mut new_m = red[0];
        if m > new_m {
            new_m = m;
        }
        sync_cube();
        let mut e_u = 0.0f32;
        if valid {
            e_u = (score - new_m).exp();
        }
        e[u] = e_u;
        red[u] = e_u;
        sync_cube();
        fold_sum_shared(red, u, u);
        new_m
    }

    /// The score of one cached position: the query (in shared memory) dot the key row
    /// at `at`, summed in element order.
    #[cube]
    fn key_dot(qs: &[f32], k: &[f32], at: usize, d: usize) -> f32 {
        let mut dot = 0.0f32;
        let mut i = 0usize;
        while i < d {
            dot += qs[i] * k[at + i];
            i += 1;
        }
        dot
    }

    /// `Σ_j e[j] · v[at + j d]` over the chunk's `count` positions in order: one element
    /// of the chunk's weighted values (`at` = that element of the chunk's first row).
    #[cube]
    fn weighted_values(e: &[f32], v: &[f32], at: usize, count: usize, d: usize) -> f32 {
        let mut chunk = 0.0f32;
        let mut j = 0usize;
        while j < count {
            chunk += e[j] * v[at + j * d];
            j += 1;
        }
        chunk
    }

    /// Attention of `q` (`[heads, t, d]`, rotated) over the stores `k`, `v`
    /// (`[kv_heads, capacity, d]`, positions `0..past + t` written); `[t, heads * d]`.
    pub(crate) fn attend(
        q: Tensor<3>,
        k: &Tensor<3>,
        v: &Tensor<3>,
        position: &Position,
    ) -> Result<Tensor<2>, ModelError> {
        let past = position.at;
        let [heads, t, d] = q.dims();
        let [kv_heads, capacity, kd] = k.dims();
        if kd != d
            || v.dims() != k.dims()
            || d > UNITS
            || kv_heads == 0
            || heads % kv_heads != 0
            || past + t > capacity
        {
            return Err(ModelError::Execution(format!(
                "GPU attention: queries {:?}, cache {:?} / {:?}, positions {past}..{}",
                q.dims(),
                k.dims(),
                v.dims(),
                past + t
            )));
        }
        let s = AttendShape { heads, kv_heads, head_dim: d, capacity, t, past };
        let what = "GPU attention";
        let q = cube(q, what)?;
        let (k, v) = (cube(k.clone(), what)?, cube(v.clone(), what)?);
        let position = position.cube(what)?;
        let out = empty(&q, &[t, heads * d]);
        // SAFETY: cube (head, row) reads its query row, cache rows < past + t <=
        // capacity of its key/value head, and writes its own head's d outputs of row.
        unsafe {
            attend_rows::launch_unchecked(
                &q.client,
                CubeCount::Static(heads as u32, t as u32, 1),
                CubeDim::new_1d(UNITS as u32),
                arg(&q),
                arg(&k),
                arg(&v),
                arg(&out),
                arg(&position),
                s.heads,
                s.heads / s.kv_heads,
                d,
                s.capacity,
                t,
            )
        };
        Ok(tensor(out))
    }

}

#[cfg(test)]
mod tests {
    use espalier_kernels::{attend, Heads, HostKv, Isa};

    use super::*;

    /// The twin (online softmax in chunks) stays within float rounding of the host
    /// path's attention (`espalier_kernels::attend`) over a cache longer than two chunks,
    /// for a decode row and a prompt's rows, with grouped heads.
    #[test]
    fn the_twin_is_host_attention() {
        let h = Heads { heads: 4, kv_heads: 2, head_dim: 16 };
        let (d, width) = (16usize, 8 * 16);
        for (past, t) in [(300usize, 1usize), (5, 3), (0, 1)] {
            let n = past + t;
            let qkv: Vec<f32> =
                (0..n * width).map(|i| ((i * 37 % 101) as f32 - 50.0) / 40.0).collect();
            let mut kv = HostKv::default();
            kv.append_from_qkv(&qkv, n, h);
            let want = attend(Isa::detect(), &qkv[past * width..], t, past, &kv, h);
            let capacity = n + 3;
            let (mut q, mut k, mut v) =
                (vec![0f32; 4 * t * d], vec![0f32; 2 * capacity * d], vec![0f32; 2 * capacity * d]);
            for p in 0..n {
                for slot in 0..8 {
                    let row = &qkv[p * width + slot * d..][..d];
                    match slot {
                        0..=3 if p >= past => {
                            q[(slot * t + p - past) * d..][..d].copy_from_slice(row)
                        }
                        4 | 5 => k[((slot - 4) * capacity + p) * d..][..d].copy_from_slice(row),
                        6 | 7 => v[((slot - 6) * capacity + p) * d..][..d].copy_from_slice(row),
                        _ => {}
                    }
                }
            }
            let s = AttendShape { heads: 4, kv_heads: 2, head_dim: d, capacity, t, past };
            let got = attend_twin(&q, &k, &v, s);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (g - w).abs() <= 1e-5 * (1.0 + w.abs()),
                    "past {past} t {t} at {i}: {g} vs {w}"
                );
            }
        }
    }
}
