//! The CPU kernels of [`super::host_kernels`] written with wasm's 128-bit SIMD
//! (`core::arch::wasm32`, the `simd128` target feature): what the playground's CPU
//! fallback runs in the browser (wasm has no run-time feature detection, so this is
//! chosen at compile time: `.cargo/config.toml` builds wasm32 with `+simd128`).
//!
//! Hand-written for the reason the x86 twins are (see `host_kernels`): no crate
//! multiplies Q4_1 / Q8_0 blocks by f32 activations. LLVM does vectorise the portable
//! versions for simd128, but it keeps their eight-lane shape (two vectors per lane
//! group, partial sums carried through memory-shaped code, each nibble converted one
//! lane group at a time); here each 32-weight block is widened and converted in four
//! vectors and multiplied with four independent accumulators.
//!
//! simd128 has no fused multiply-add (that is relaxed-simd), so products are rounded
//! before they are added, as in the portable versions; the order of the additions
//! differs, so results agree with the portable twins within float rounding (checked by
//! [`super::kernel_check`] under node, see `crates/model/wasm-bench`).
//!
//! Every function is safe to call with the documented slice lengths: loads go through
//! `v128_load` on pointers inside the slices (checked by the `min` of the lengths).

use core::arch::wasm32::*;

use super::host_kernels::QK8;

#[inline(always)]
fn hsum(v: v128) -> f32 {
    f32x4_extract_lane::<0>(v) + f32x4_extract_lane::<1>(v) + f32x4_extract_lane::<2>(v) + f32x4_extract_lane::<3>(v)
}

/// Loads four f32 from `p`.
///
/// # Safety
/// `p .. p + 4` must be inside one slice.
#[inline(always)]
unsafe fn load4(p: *const f32) -> v128 {
    v128_load(p as *const v128)
}

/// `a · b` over the common length of `a` and `b`.
pub(super) fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let mut acc = [f32x4_splat(0.0); 4];
    let mut i = 0;
    // SAFETY: every load reads `i .. i + 4 <= n` of both slices.
    unsafe {
        while i + 16 <= n {
            for (k, acc) in acc.iter_mut().enumerate() {
                let off = i + 4 * k;
                *acc = f32x4_add(*acc, f32x4_mul(load4(pa.add(off)), load4(pb.add(off))));
            }
            i += 16;
        }
        while i + 4 <= n {
            acc[0] = f32x4_add(acc[0], f32x4_mul(load4(pa.add(i)), load4(pb.add(i))));
            i += 4;
        }
    }
    let mut sum = hsum(f32x4_add(f32x4_add(acc[0], acc[1]), f32x4_add(acc[2], acc[3])));
    for j in i..n {
        sum += a[j] * b[j];
    }
    sum
}

/// `o += p * v` over the common length (attention's weighted sum of values).
pub(super) fn axpy(p: f32, v: &[f32], o: &mut [f32]) {
    let n = v.len().min(o.len());
    let (pv, po) = (v.as_ptr(), o.as_mut_ptr());
    let s = f32x4_splat(p);
    let mut i = 0;
    // SAFETY: every load and store touches `i .. i + 4 <= n` of both slices.
    unsafe {
        while i + 4 <= n {
            let y = f32x4_add(load4(po.add(i)), f32x4_mul(s, load4(pv.add(i))));
            v128_store(po.add(i) as *mut v128, y);
            i += 4;
        }
    }
    for j in i..n {
        o[j] += p * v[j];
    }
}

/// Sixteen signed bytes as four f32x4 (lanes 0-3, 4-7, 8-11, 12-15).
#[inline(always)]
fn i8x16_to_f32(q: v128) -> [v128; 4] {
    let lo = i16x8_extend_low_i8x16(q);
    let hi = i16x8_extend_high_i8x16(q);
    [
        f32x4_convert_i32x4(i32x4_extend_low_i16x8(lo)),
        f32x4_convert_i32x4(i32x4_extend_high_i16x8(lo)),
        f32x4_convert_i32x4(i32x4_extend_low_i16x8(hi)),
        f32x4_convert_i32x4(i32x4_extend_high_i16x8(hi)),
    ]
}

/// Sixteen unsigned bytes (values below 16 here) as four f32x4. The widened values are
/// below 256, so the signed conversion is exact; it is one instruction on x86 hosts,
/// where the unsigned one (`f32x4.convert_i32x4_u`) is emulated by a sequence.
#[inline(always)]
fn u8x16_to_f32(q: v128) -> [v128; 4] {
    let lo = u16x8_extend_low_u8x16(q);
    let hi = u16x8_extend_high_u8x16(q);
    [
        f32x4_convert_i32x4(u32x4_extend_low_u16x8(lo)),
        f32x4_convert_i32x4(u32x4_extend_high_u16x8(lo)),
        f32x4_convert_i32x4(u32x4_extend_low_u16x8(hi)),
        f32x4_convert_i32x4(u32x4_extend_high_u16x8(hi)),
    ]
}

/// `Σ_k q[k] * x[k]` over sixteen weights `q` (as four f32x4) and `x[0..16]`, as a
/// vector of partial sums.
///
/// # Safety
/// `x .. x + 16` must be inside one slice.
#[inline(always)]
unsafe fn mul16(q: [v128; 4], x: *const f32) -> v128 {
    let a = f32x4_add(f32x4_mul(q[0], load4(x)), f32x4_mul(q[1], load4(x.add(4))));
    let b = f32x4_add(f32x4_mul(q[2], load4(x.add(8))), f32x4_mul(q[3], load4(x.add(12))));
    f32x4_add(a, b)
}

/// `w · x` with `w` as Q8_0 blocks (`scales[i]`, `quants[32 i ..]`).
pub(super) fn dot_q8(scales: &[f32], quants: &[i8], x: &[f32]) -> f32 {
    let blocks = scales.len().min(quants.len() / QK8).min(x.len() / QK8);
    let (pq, px) = (quants.as_ptr(), x.as_ptr());
    let mut acc0 = f32x4_splat(0.0);
    let mut acc1 = f32x4_splat(0.0);
    for b in 0..blocks {
        // SAFETY: block `b < blocks` spans `32 b .. 32 b + 32` of `quants` and `x`.
        let s = unsafe {
            let q = pq.add(b * QK8) as *const v128;
            let xb = px.add(b * QK8);
            f32x4_add(mul16(i8x16_to_f32(v128_load(q)), xb), mul16(i8x16_to_f32(v128_load(q.add(1))), xb.add(16)))
        };
        let d = f32x4_splat(scales[b]);
        // Two accumulators alternate so consecutive blocks do not wait on each other.
        if b % 2 == 0 {
            acc0 = f32x4_add(acc0, f32x4_mul(s, d));
        } else {
            acc1 = f32x4_add(acc1, f32x4_mul(s, d));
        }
    }
    hsum(f32x4_add(acc0, acc1))
}

/// `Σ d[i] * Σ_j q_ij x_ij`, the scale part of a Q4_1 dot product (ggml's layout: byte
/// `j` of a block holds value `j` in its low nibble and value `j + 16` in its high one).
pub(super) fn dot_q4_1(d: &[f32], nibbles: &[u8], x: &[f32]) -> f32 {
    let blocks = d.len().min(nibbles.len() / (QK8 / 2)).min(x.len() / QK8);
    let (pq, px) = (nibbles.as_ptr(), x.as_ptr());
    let mask = u8x16_splat(0x0f);
    let mut acc0 = f32x4_splat(0.0);
    let mut acc1 = f32x4_splat(0.0);
    for b in 0..blocks {
        // SAFETY: block `b < blocks` spans 16 bytes of `nibbles` and 32 floats of `x`.
        let s = unsafe {
            let bytes = v128_load(pq.add(b * QK8 / 2) as *const v128);
            let xb = px.add(b * QK8);
            let lo = u8x16_to_f32(v128_and(bytes, mask));
            let hi = u8x16_to_f32(u8x16_shr(bytes, 4));
            f32x4_add(mul16(lo, xb), mul16(hi, xb.add(16)))
        };
        let scale = f32x4_splat(d[b]);
        if b % 2 == 0 {
            acc0 = f32x4_add(acc0, f32x4_mul(s, scale));
        } else {
            acc1 = f32x4_add(acc1, f32x4_mul(s, scale));
        }
    }
    hsum(f32x4_add(acc0, acc1))
}
