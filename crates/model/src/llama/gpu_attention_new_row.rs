//! A decode step's attention straight from the QKV product's row, in one launch on a
//! GPU (issue 33): `gpu_rope.rs`' launch is skipped. Each head's workgroup makes its query
//! and its key/value head's new key and value from the row (bias, RoPE), the group's
//! first head writes them into the cache's stores, and every head takes the new row from
//! its own copy (so no workgroup reads a row another writes in the same launch); the
//! online softmax over the stores is `gpu_attention.rs`' (the same chunks, the same
//! order). Over a long cache the rows are split into parts, a workgroup each, and
//! `gpu_attention_split.rs` combines them. Its twin is `rope_split_twin` then
//! `attend_twin` (or `attend_split_twin` when split).

#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
pub(crate) use device::attend_new_row;

#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
mod device {
    use burn::tensor::Tensor;
    use cubecl::prelude::*;

    use espalier_kernels::Heads;

    use super::super::gpu_attention::{chunk_weights, UNITS};
    use super::super::gpu_attention_split::combine;
    use super::super::gpu_replay::Held;
    use super::super::gpu_rope::writable;
    use super::super::gpu_tensor::{arg, cube, empty, tensor, Position};
    use super::super::ModelError;

    /// `gpu_attention.rs`' `attend_rows` for a decode step's one row, from the QKV product's row
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
    fn weighted_values_writable(
        e: &[f32],
        v: &mut [f32],
        at: usize,
        count: usize,
        d: usize,
    ) -> f32 {
        let mut chunk = 0.0f32;
        let mut j = 0usize;
        while j < count {
            chunk += e[j] * v[at + j * d];
            j += 1;
        }
        chunk
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
    /// `attend_twin`, or `attend_split_twin` when split.
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
