//! The QKV product's rows split into heads, the QKV bias added (Qwen2), RoPE applied to
//! the queries and keys, and the keys and values written into the KV cache's stores, in
//! one launch on a cubecl GPU (issue 33 step 4). The burn path (`mod.rs`: three `narrow`,
//! `reshape` and `swap_dims`, the bias add, `rope`'s two halves, four products, a
//! subtraction, an addition and a `cat`, for queries and keys, then two `slice_assign`s
//! into the cache) is ~22 launches per layer without `fusion`.
//!
//! Cube (slot, row) handles head slot `slot` (queries `0..heads`, keys, then values) of
//! activation row `row`; unit `i < d / 2` the pair `(i, i + d / 2)` of the half-split
//! layout (see `weights`): `x1 · cos - x2 · sin`, `x2 · cos + x1 · sin` at position
//! `past + row`, as `rope` computes. Values are copied. The queries go to `[heads, t,
//! d]` (the layout `gpu_attention.rs` reads), keys and values to row `past + row` of the
//! stores `[kv_heads, capacity, d]` (`KvCache::take_device_stores`), in place.
//! [`rope_split_twin`] is the same on the host.

use espalier_kernels::Heads;

/// The stores [`rope_split_twin`] writes keys and values into: `[kv_heads][capacity][d]`.
pub(crate) struct Stores<'a> {
    pub k: &'a mut [f32],
    pub v: &'a mut [f32],
    pub capacity: usize,
}

/// `qkv` (`[t][(heads + 2 kv_heads) d]`) plus `bias`, rotated at positions `past..`:
/// returns the queries `[heads][t][d]` and writes keys and values at rows `past..` of
/// `stores`, as the kernel computes.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rope_split_twin(
    qkv: &[f32],
    bias: Option<&[f32]>,
    cos: &[f32],
    sin: &[f32],
    t: usize,
    past: usize,
    h: Heads,
    stores: Stores,
) -> Vec<f32> {
    let (d, half) = (h.head_dim, h.head_dim / 2);
    let width = (h.heads + 2 * h.kv_heads) * d;
    let mut q = vec![0f32; h.heads * t * d];
    let out: [&mut [f32]; 3] = [&mut q, stores.k, stores.v];
    for r in 0..t {
        let (c, s) = (&cos[(past + r) * half..], &sin[(past + r) * half..]);
        for slot in 0..h.heads + 2 * h.kv_heads {
            let (which, head) = if slot < h.heads {
                (0, slot)
            } else if slot < h.heads + h.kv_heads {
                (1, slot - h.heads)
            } else {
                (2, slot - h.heads - h.kv_heads)
            };
            let at = if which == 0 {
                (head * t + r) * d
            } else {
                (head * stores.capacity + past + r) * d
            };
            for i in 0..half {
                let src = r * width + slot * d + i;
                let (mut a, mut b) = (qkv[src], qkv[src + half]);
                if let Some(bias) = bias {
                    a += bias[slot * d + i];
                    b += bias[slot * d + i + half];
                }
                let (x1, x2) =
                    if which == 2 { (a, b) } else { (a * c[i] - b * s[i], b * c[i] + a * s[i]) };
                out[which][at + i] = x1;
                out[which][at + i + half] = x2;
            }
        }
    }
    q
}

#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
pub(crate) use device::{rope_split, writable};

#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
mod device {
    use burn::backend::Cube;
    use burn::tensor::Tensor;
    use burn_cubecl::tensor::CubeTensor;
    use cubecl::prelude::*;
    use espalier_kernels::Heads;

    use super::super::gpu_tensor::{arg, cube, empty, tensor, Position};
    use super::super::ModelError;

    /// See the module: cube (slot, row), unit `i` of `d / 2` (= the workgroup's size).
    #[allow(clippy::too_many_arguments)]
    #[cube(launch_unchecked)]
    fn rope_split_rows(
        qkv: &[f32],
        bias: &[f32],
        cos: &[f32],
        sin: &[f32],
        q: &mut [f32],
        k: &mut [f32],
        v: &mut [f32],
        position: &[f32],
        t: usize,
        heads: usize,
        kv_heads: usize,
        capacity: usize,
        #[comptime] biased: bool,
    ) {
        let i = usize::cast_from(UNIT_POS_X);
        let half = usize::cast_from(CUBE_DIM_X);
        let d = 2 * half;
        let slot = usize::cast_from(CUBE_POS_X);
        let r = usize::cast_from(CUBE_POS_Y);
        let past = usize::cast_from(u32::cast_from(position[0]));
        let src = r * (heads + 2 * kv_heads) * d + slot * d + i;
        let mut a = qkv[src];
        let mut b = qkv[src + half];
        if comptime![biased] {
            a += bias[slot * d + i];
            b += bias[slot * d + i + half];
        }
        let c = cos[(past + r) * half + i];
        let s = sin[(past + r) * half + i];
        if slot < heads {
            let at = (slot * t + r) * d + i;
            q[at] = a * c - b * s;
            q[at + half] = b * c + a * s;
        } else if slot < heads + kv_heads {
            let at = ((slot - heads) * capacity + past + r) * d + i;
            k[at] = a * c - b * s;
            k[at + half] = b * c + a * s;
        } else {
            let at = ((slot - heads - kv_heads) * capacity + past + r) * d + i;
            v[at] = a;
            v[at + half] = b;
        }
    }

    /// Splits `qkv` (`[t, (heads + 2 kv_heads) d]`) into rotated queries
    /// `[heads, t, d]` and rotated keys and values written at rows `past..past + t` of
    /// the stores `k`, `v` (`[kv_heads, capacity, d]`: in place when nothing else holds
    /// them, else into copies), adding `bias` (`[1, width]`) first; `cos` / `sin` are the
    /// `[context, d / 2]` tables. Returns the queries and the stores. On an error the
    /// stores are gone (the cache then refuses its next step: `take_device_stores`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn rope_split(
        qkv: Tensor<2>,
        bias: Option<&Tensor<2>>,
        cos: &Tensor<2>,
        sin: &Tensor<2>,
        position: &Position,
        h: Heads,
        k: Tensor<3>,
        v: Tensor<3>,
    ) -> Result<[Tensor<3>; 3], ModelError> {
        let [t, width] = qkv.dims();
        let past = position.at;
        let (d, half) = (h.head_dim, h.head_dim / 2);
        let slots = h.heads + 2 * h.kv_heads;
        let [context, table] = cos.dims();
        let [kvh, capacity, kd] = k.dims();
        if width != slots * d
            || table != half
            || past + t > context.min(capacity)
            || d % 2 != 0
            || kvh != h.kv_heads
            || kd != d
            || v.dims() != k.dims()
        {
            return Err(ModelError::Execution(format!(
                "GPU RoPE: rows of {width} for {slots} heads of {d}, a [{context}, {table}] table, positions {past}..{}",
                past + t
            )));
        }
        let what = "GPU RoPE";
        let qkv = cube(qkv, what)?;
        let (cos, sin) = (cube(cos.clone(), what)?, cube(sin.clone(), what)?);
        // Without a bias the kernel never reads its argument: the table stands in.
        let biased = bias.is_some();
        let bias = match bias {
            Some(b) => cube(b.clone(), what)?,
            None => cos.clone(),
        };
        let (k, v) = (writable(k)?, writable(v)?);
        let position = position.cube(what)?;
        let q = empty(&qkv, &[h.heads, t, d]);
        // SAFETY: cube (slot, row) reads row `row` of qkv (width checked), its slot's
        // bias, table row past + row (< context, checked) and writes its own head's row
        // of q or row past + row (< capacity, checked) of its store.
        unsafe {
            rope_split_rows::launch_unchecked(
                &qkv.client,
                CubeCount::Static(slots as u32, t as u32, 1),
                CubeDim::new_1d(half as u32),
                arg(&qkv),
                arg(&bias),
                arg(&cos),
                arg(&sin),
                arg(&q),
                arg(&k),
                arg(&v),
                arg(&position),
                t,
                h.heads,
                h.kv_heads,
                capacity,
                biased,
            )
        };
        Ok([tensor(q), tensor(k), tensor(v)])
    }

    /// A store as a cube tensor the kernel may write: itself when nothing else holds
    /// its buffer, else a copy (one launch; a cache its user cloned).
    pub(crate) fn writable(x: Tensor<3>) -> Result<CubeTensor, ModelError> {
        let x = x.try_into_primitive::<Cube>().map_err(|e| {
            ModelError::Execution(format!("GPU RoPE: the cache is not on a cubecl device: {e:?}"))
        })?;
        Ok(if x.can_mut() && x.is_contiguous() {
            x
        } else {
            burn_cubecl::kernel::into_contiguous(x.copy())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use espalier_kernels::RopeTable;

    /// The twin's queries and keys equal the host path's rotation (`RopeTable::rotate_qk`
    /// on the fused rows) and its values the rows' values, bit for bit, queries in the
    /// head-major layout, keys and values at their positions' rows of the stores; the
    /// bias is added before.
    #[test]
    fn the_twin_is_the_host_rotation() {
        let h = Heads { heads: 3, kv_heads: 1, head_dim: 8 };
        let (t, past) = (2usize, 5usize);
        let rope = RopeTable::new(16, 8, 10_000.0, 1.0);
        let width = 5 * 8;
        let qkv: Vec<f32> = (0..t * width).map(|i| ((i * 29 % 31) as f32 - 15.0) / 7.0).collect();
        let bias: Vec<f32> = (0..width).map(|i| i as f32 / 64.0).collect();
        let capacity = past + t + 1;
        let (mut k, mut v) = (vec![0f32; capacity * 8], vec![0f32; capacity * 8]);
        let stores = Stores { k: &mut k, v: &mut v, capacity };
        let q = rope_split_twin(&qkv, Some(&bias), &rope.cos, &rope.sin, t, past, h, stores);
        let mut host: Vec<f32> = qkv.iter().enumerate().map(|(i, x)| x + bias[i % width]).collect();
        rope.rotate_qk(&mut host, t, past, h);
        for r in 0..t {
            for slot in 0..5 {
                let got = match slot {
                    0..=2 => &q[(slot * t + r) * 8..][..8],
                    3 => &k[(past + r) * 8..][..8],
                    _ => &v[(past + r) * 8..][..8],
                };
                assert_eq!(got, &host[r * width + slot * 8..][..8], "row {r} slot {slot}");
            }
        }
    }
}
