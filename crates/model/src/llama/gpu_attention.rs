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
//! A decode step on a GPU skips `gpu_rope.rs`' launch (`attend_new_row`): each head's
//! workgroup makes its query and its key/value head's new key and value from the QKV
//! product's row (bias, RoPE), the group's first head writes them into the stores, and
//! every head takes the new row from its own copy (so no workgroup reads a row another
//! writes in the same launch). Its twin is `rope_split_twin` then [`attend_twin`].

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
pub(crate) use device::{attend, attend_new_row};

#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
mod device {
    use burn::tensor::Tensor;
    use cubecl::prelude::*;

    use espalier_kernels::Heads;

    use super::super::gpu_attention_split::combine;
    use super::super::gpu_fold::{fold_max_shared, fold_sum_shared};
    use super::super::gpu_replay::Held;
    use super::super::gpu_rope::writable;
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
    fn chunk_weights(
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

    /// [`attend_rows`] for a decode step's one row, from the QKV product's row
    /// ([`attend_new_row`]): cube `head` first makes its query, and its key/value head's
    /// new key and value, from `qkv` (plus `bias` when `biased`; the query and key rotated
    /// at the position: `gpu_rope.rs`' arithmetic), the group's first head writes that key
    /// and value into row `past` of the stores, and every head reads the new row from its
    /// own copy, never from the stores. The online softmax is `attend_rows`' (the same
    /// order); a kernel of its own because the stores are writable here, so that
    /// `attend_rows` (every prompt, and a CPU adapter's decode steps) keeps read-only
    /// stores.
    #[allow(clippy::too_many_arguments)]
    #[cube(launch_unchecked)]
    fn attend_new_row_rows(
        qkv: &[f32],
        bias: &[f32],
        cos: &[f32],
        sin: &[f32],
        k: &mut [f32],
        v: &mut [f32],
        out: &mut [f32],
        position: &[f32],
        heads: usize,
        group: usize,
        d: usize,
        capacity: usize,
        span: usize,
        #[comptime] biased: bool,
        #[comptime] split: bool,
    ) {
        let u = usize::cast_from(UNIT_POS_X);
        let units = comptime![UNITS];
        let head = usize::cast_from(CUBE_POS_X);
        let part = usize::cast_from(CUBE_POS_Y);
        let parts = usize::cast_from(CUBE_COUNT_Y);
        let past = usize::cast_from(u32::cast_from(position[0]));
        let base = (head / group) * capacity * d;
        let mut qs = Shared::<[f32]>::new_slice(comptime![UNITS]);
        let mut red = Shared::<[f32]>::new_slice(comptime![UNITS]);
        let mut e = Shared::<[f32]>::new_slice(comptime![UNITS]);
        let mut kn = Shared::<[f32]>::new_slice(comptime![UNITS]);
        let mut vn = Shared::<[f32]>::new_slice(comptime![UNITS]);
        {
            if u < d {
                let kv = head / group;
                let kv_heads = heads / group;
                let c = cos[past * (d / 2) + u % (d / 2)];
                let s = sin[past * (d / 2) + u % (d / 2)];
                qs[u] = rotated(qkv, bias, head * d, u, d, c, s, biased);
                kn[u] = rotated(qkv, bias, (heads + kv) * d, u, d, c, s, biased);
                let vat = (heads + kv_heads + kv) * d + u;
                let mut value = qkv[vat];
                if comptime![biased] {
                    value += bias[vat];
                }
                vn[u] = value;
                if head % group == 0 && part == 0 {
                    k[base + past * d + u] = kn[u];
                    v[base + past * d + u] = vn[u];
                }
            }
        }
        sync_cube();
        let n = past + 1;
        // This part's positions `start..end` (all of them when not split).
        let mut start = part * span;
        let mut end = start + span;
        if end > n {
            end = n;
        }
        // Below every score (a literal: no infinity constants in the kernel language).
        let mut m = f32::new(-3.0e38);
        let mut l = 0.0f32;
        let mut acc = 0.0f32;
        while start < end {
            let p = start + u;
            let mut score = f32::new(-3.0e38);
            if p < past && p < end {
                score = key_dot_writable(&qs, k, base + p * d, d);
            } else if p == past {
                score = key_dot_writable(&qs, &mut kn, 0, d);
            }
            let new_m = chunk_weights(score, p < end, &mut red, &mut e, u, m);
            let alpha = (m - new_m).exp();
            l = l * alpha + red[0];
            if u < d {
                let mut count = end - start;
                if count > units {
                    count = units;
                }
                // The chunk that holds the new row (the last) takes its value from the
                // workgroup's copy, in position order.
                let at = base + start * d + u;
                if start + count == n {
                    let cached = weighted_values_writable(&e, v, at, count - 1, d);
                    acc = acc * alpha + (cached + e[count - 1] * vn[u]);
                } else {
                    acc = acc * alpha + weighted_values_writable(&e, v, at, count, d);
                }
            }
            m = new_m;
            sync_cube();
            start += units;
        }
        if comptime![split] {
            // The part's running state for `gpu_attention_split`'s combine: the
            // unnormalised output, then the maximum and the sum.
            let at = (head * parts + part) * (d + 2);
            if u < d {
                out[at + u] = acc;
            }
            if u == 0 {
                out[at + d] = m;
                out[at + d + 1] = l;
            }
        } else if u < d {
            out[head * d + u] = acc / l;
        }
    }

    /// Element `u` of the head at `at` of the QKV row (plus its bias), rotated as
    /// `gpu_rope.rs` rotates: the pair `(i, i + d / 2)` of `u`, `x1 · c - x2 · s` for the
    /// first half, `x2 · c + x1 · s` for the second.
    #[allow(clippy::too_many_arguments)]
    #[cube]
    fn rotated(
        qkv: &[f32],
        bias: &[f32],
        at: usize,
        u: usize,
        d: usize,
        c: f32,
        s: f32,
        #[comptime] biased: bool,
    ) -> f32 {
        let half = d / 2;
        let i = u % half;
        let mut a = qkv[at + i];
        let mut b = qkv[at + i + half];
        if comptime![biased] {
            a += bias[at + i];
            b += bias[at + i + half];
        }
        let mut x = a * c - b * s;
        if u >= half {
            x = b * c + a * s;
        }
        x
    }

    /// `key_dot` over a writable store (cubecl passes one only as `&mut`).
    #[cube]
    fn key_dot_writable(qs: &[f32], k: &mut [f32], at: usize, d: usize) -> f32 {
        let mut dot = 0.0f32;
        let mut i = 0usize;
        while i < d {
            dot += qs[i] * k[at + i];
            i += 1;
        }
        dot
    }

    /// `weighted_values` over a writable store.
    #[cube]
    fn weighted_values_writable(e: &[f32], v: &mut [f32], at: usize, count: usize, d: usize) -> f32 {
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

    /// A decode step's attention straight from the QKV product's row (`[1, (heads + 2
    /// kv_heads) d]`, plus `bias` `[1, width]`): the split, the bias, RoPE at the position
    /// (`cos` / `sin` the `[context, d / 2]` tables), the new key and value written into
    /// row `past` of the stores (in place when nothing else holds them), and attention
    /// over the stores, in one launch (`rope_split` then [`attend`] are two). With more
    /// than one of `parts` the stores' rows are split into them, a workgroup each, and a
    /// second launch combines them (`gpu_attention_split.rs`; its partials are kept by `held`).
    /// Returns `[1, heads * d]` and the stores. On an error the stores are gone (as
    /// `rope_split`). The host twin: `rope_split_twin` then
    /// [`attend_twin`](super::attend_twin), or `attend_split_twin` when split.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn attend_new_row(
        qkv: Tensor<2>,
        bias: Option<&Tensor<2>>,
        cos: &Tensor<2>,
        sin: &Tensor<2>,
        position: &Position,
        h: Heads,
        (k, v): (Tensor<3>, Tensor<3>),
        parts: usize,
        held: &mut Held,
    ) -> Result<(Tensor<2>, Tensor<3>, Tensor<3>), ModelError> {
        let [t, width] = qkv.dims();
        let past = position.at;
        let d = h.head_dim;
        let [context, table] = cos.dims();
        let [kv_heads, capacity, kd] = k.dims();
        if t != 1
            || width != (h.heads + 2 * h.kv_heads) * d
            || !d.is_multiple_of(2)
            || d > UNITS
            || table != d / 2
            || past + 1 > context.min(capacity)
            || kv_heads != h.kv_heads
            || kv_heads == 0
            || !h.heads.is_multiple_of(kv_heads)
            || kd != d
            || v.dims() != k.dims()
            || parts == 0
            || parts > capacity
        {
            return Err(ModelError::Execution(format!(
                "GPU attention of a new row: QKV {:?} for {h:?}, a [{context}, {table}] table, cache {:?}, position {past}, {parts} parts",
                [t, width],
                k.dims()
            )));
        }
        let what = "GPU attention of a new row";
        let qkv = cube(qkv, what)?;
        let (cos, sin) = (cube(cos.clone(), what)?, cube(sin.clone(), what)?);
        let biased = bias.is_some();
        let bias = match bias {
            Some(b) => cube(b.clone(), what)?,
            None => cos.clone(),
        };
        let (k, v) = (writable(k)?, writable(v)?);
        let position = position.cube(what)?;
        let split = parts > 1;
        let out = match split {
            true => empty(&qkv, &[h.heads * parts * (d + 2)]),
            false => empty(&qkv, &[1, h.heads * d]),
        };
        // SAFETY: cube (head, part) reads the QKV row (width checked), its bias, table row
        // past (< context) and rows < past of its key/value head's stores (past <
        // capacity), writes row past of them (the group's first head's part 0 only) and
        // its own d outputs (split: its part's d + 2 values).
        unsafe {
            attend_new_row_rows::launch_unchecked(
                &qkv.client,
                CubeCount::Static(h.heads as u32, parts as u32, 1),
                CubeDim::new_1d(UNITS as u32),
                arg(&qkv),
                arg(&bias),
                arg(&cos),
                arg(&sin),
                arg(&k),
                arg(&v),
                arg(&out),
                arg(&position),
                h.heads,
                h.heads / kv_heads,
                d,
                capacity,
                capacity.div_ceil(parts),
                biased,
                split,
            )
        };
        let out = match split {
            true => {
                let partials = tensor::<1>(out);
                held.hold(&partials);
                combine(&partials, h.heads, parts, d)?
            }
            false => tensor(out),
        };
        Ok((out, tensor(k), tensor(v)))
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
