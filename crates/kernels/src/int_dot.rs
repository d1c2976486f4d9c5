//! Integer dot products of one weight row with one row of 8-bit activations
//! ([`super::q8_activations`]): the decode step's inner loop for the weight types that
//! have them (Q8_0, Q4_1 and the raw GGUF blocks of Q4_0, Q5_0, Q5_1, Q4_K, Q5_K,
//! Q6_K), as ggml's `ggml_vec_dot_*_q8_*` do.
//!
//! Each weight sub-block of 32 values is `scale · q + min` with small integers `q`
//! (Q6_K has one scale per 16 values), and each activation block `d_x · a`; so a
//! sub-block's product is `scale · d_x · Σ q a + min · Σ x`: one integer sum of 32
//! byte products (AVX2: `_mm256_maddubs_epi16` + `_mm256_madd_epi16`, 32 products in
//! two instructions) and one float multiply-add. `Σ x` is the sum of the rounded
//! activations, kept by [`Q8Activations`](super::q8_activations::Q8Activations).
//!
//! Hand-written for the reasons of `host_kernels` (no crate multiplies ggml blocks).
//! Every kernel has a portable twin built on one per-type sub-block decoder
//! ([`sub_block`], integers straight from the format's layout as `formats/`
//! describes it), an AVX2 version (`int_dot_avx2.rs`: every type) and a simd128 one
//! (`wasm_simd.rs`: Q8_0, Q4_1, Q4_K); the tests (and `kernel_check`, which also runs under node) compare
//! them with exact f64 sums. Where a type has no kernel for the CPU ([`has_kernel`])
//! the caller keeps f32 activations (`block_kernels`).

use crate::formats::{f16_at, q4_0, q4_k, q5_0, q5_1, q5_k, q6_k, QK, QK_K};
use crate::{GgmlType, Isa, Q4KRows, Q4_1Rows, Q8_0Rows};

use super::q8_activations::{Q8Activations, Q8Row};

/// Whether weights of type `ty` have an integer kernel for `isa` (Q8_0 and Q4_1 in
/// their host layouts, the others as raw blocks).
pub fn has_kernel(isa: Isa, ty: GgmlType) -> bool {
    match isa {
        Isa::Portable => !matches!(ty, GgmlType::F32 | GgmlType::F16),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => !matches!(ty, GgmlType::F32 | GgmlType::F16),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Isa::Simd128 => matches!(ty, GgmlType::Q8_0 | GgmlType::Q4_1 | GgmlType::Q4_K),
    }
}

/// Whether a prompt of several tokens should take `ty`'s integer kernels on `isa`
/// too. On AVX2 only where a prefill tile exists (Q4_1, Q8_0, Q4_K) or was measured
/// before the others had kernels (Q6_K): one integer dot product per (row, token)
/// prefilled Q4_0 / Q5_0 / Q5_1 / Q5_K at 0.23-0.46x llama.cpp's on-CPU rate against
/// 0.35-1.05x for f32 activations through sgemm (the bench model, same runs).
/// Elsewhere as before: every type with a kernel.
pub fn prefill_takes_int8(isa: Isa, ty: GgmlType) -> bool {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => {
            matches!(ty, GgmlType::Q8_0 | GgmlType::Q4_1 | GgmlType::Q4_K | GgmlType::Q6_K)
        }
        _ => has_kernel(isa, ty),
    }
}

/// The activation block (values per 8-bit scale, [`Q8Activations`]) the kernels of
/// `ty` take: 256 for the K-quants (a super-block sums in integers, as ggml's Q8_K),
/// 32 for the others.
///
/// [`Q8Activations`]: super::q8_activations::Q8Activations
pub fn activation_block(ty: GgmlType) -> usize {
    match ty {
        GgmlType::Q4_K | GgmlType::Q5_K | GgmlType::Q6_K => QK_K,
        _ => QK,
    }
}

/// `w · x` for `w` as Q8_0 blocks (`scales[b] * quants[32 b ..]`).
#[inline]
pub fn dot_q8_0(isa: Isa, scales: &[f32], quants: &[i8], x: Q8Row) -> f32 {
    debug_assert_eq!(quants.len(), x.quants.len());
    match isa {
        // SAFETY: `Isa::Avx2` is only constructed after run-time detection of AVX2 + FMA.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { super::int_dot_avx2::dot_q8_0(scales, quants, x) },
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Isa::Simd128 => super::wasm_simd::int_dot_q8_0(scales, quants, x),
        Isa::Portable => portable_q8_0(scales, quants, x),
    }
}

/// `w · x` for `w` as Q4_1 blocks in `host_kernels::dot_q4_1`'s layout (`d`, `m` per
/// block, 16 bytes of nibbles: value `j` low, `j + 16` high).
#[inline]
pub fn dot_q4_1(isa: Isa, d: &[f32], m: &[f32], nibbles: &[u8], x: Q8Row) -> f32 {
    debug_assert_eq!(nibbles.len() * 2, x.quants.len());
    match isa {
        // SAFETY: as in `dot_q8_0`.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { super::int_dot_avx2::dot_q4_1(d, m, nibbles, x) },
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Isa::Simd128 => super::wasm_simd::int_dot_q4_1(d, m, nibbles, x),
        Isa::Portable => portable_q4_1(d, m, nibbles, x),
    }
}

/// The lengths the prefill products check before their `unsafe` bodies: the weight
/// rows (`rows` of them) hold rows of `x`'s width (`holds`), `out` has one entry per
/// (row, token) and `x` at least `t` rows, rounded in blocks of `block`.
fn check_gemm(holds: bool, rows: usize, x: &Q8Activations, t: usize, out: &[f32], block: usize) {
    assert!(holds, "the weight rows do not hold rows of {} values", x.cols());
    assert!(out.len() == rows * t && x.len() >= t && x.block() == block);
}

/// The prefill products without a tiled kernel: `out[r * t + i] = dot(r, i)`, one dot
/// product per (weight row, token).
fn each_pair(out: &mut [f32], t: usize, dot: impl Fn(usize, usize) -> f32) {
    for (k, o) in out.iter_mut().enumerate() {
        *o = dot(k / t, k % t);
    }
}

/// Prefill's `x · Wᵀ` for `rows` consecutive Q4_1 weight rows (layout of
/// [`dot_q4_1`]: `d`, `m` hold `rows * cols / 32` entries, `nibbles` `rows * cols / 2`
/// bytes) times the `t` rows of `x`, written `out[row * t + token]`. AVX2 and simd128
/// unpack each weight block once per tile of up to 8 activation rows; the portable
/// version takes one [`dot_q4_1`] per (row, token).
pub fn gemm_q4_1(isa: Isa, w: Q4_1Rows, x: &Q8Activations, t: usize, out: &mut [f32]) {
    check_gemm(w.holds(x.cols()), w.rows, x, t, out, QK);
    match isa {
        // SAFETY: `Isa::Avx2` is only constructed after run-time detection; the
        // lengths are checked above.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { super::int_dot_avx2::gemm_q4_1(w, x, t, out) },
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Isa::Simd128 => super::wasm_simd::gemm_q4_1(w, x, t, out),
        _ => each_pair(out, t, |r, i| {
            let row = w.rows(r, 1, x.cols());
            dot_q4_1(isa, row.d, row.m, row.nibbles, x.row(i))
        }),
    }
}

/// Prefill's `x · Wᵀ` for `rows` Q8_0 weight rows (layout of [`dot_q8_0`]) times the
/// `t` rows of `x`, written `out[row * t + token]`. AVX2 takes each weight block's
/// signs once per tile of up to 8 activation rows; elsewhere one [`dot_q8_0`] per
/// (row, token).
pub fn gemm_q8_0(isa: Isa, w: Q8_0Rows, x: &Q8Activations, t: usize, out: &mut [f32]) {
    check_gemm(w.holds(x.cols()), w.rows, x, t, out, QK);
    match isa {
        // SAFETY: `Isa::Avx2` is only constructed after run-time detection; the
        // lengths are checked above.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { super::int_dot_avx2::gemm_q8_0(w, x, t, out) },
        _ => each_pair(out, t, |r, i| {
            let row = w.rows(r, 1, x.cols());
            dot_q8_0(isa, row.scales, row.quants, x.row(i))
        }),
    }
}

/// Prefill's `x · Wᵀ` for the Q4_K weight rows `w` times the `t` rows of `x`, written
/// `out[row * t + token]`. AVX2 unpacks each super-block once per tile of up to 4
/// activation rows; elsewhere one [`dot_blocks`] per (row, token).
pub fn gemm_q4_k(isa: Isa, w: Q4KRows, x: &Q8Activations, t: usize, out: &mut [f32]) {
    check_gemm(w.holds(x.cols()), w.rows, x, t, out, QK_K);
    match isa {
        // SAFETY: as in `gemm_q8_0`.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe {
            super::int_dot_avx2::gemm_q4_k(w.bytes, w.row_bytes, w.rows, x, t, out)
        },
        _ => each_pair(out, t, |r, i| dot_blocks(isa, GgmlType::Q4_K, w.row(r), x.row(i))),
    }
}

/// `w · x` for `row`, whole blocks of `ty` (a type [`has_kernel`] accepts for `isa`).
#[inline]
pub fn dot_blocks(isa: Isa, ty: GgmlType, row: &[u8], x: Q8Row) -> f32 {
    match (isa, ty) {
        // SAFETY: as in `dot_q8_0`.
        #[cfg(target_arch = "x86_64")]
        (Isa::Avx2, GgmlType::Q4_K) => unsafe { super::int_dot_avx2::dot_q4_k(row, x) },
        #[cfg(target_arch = "x86_64")]
        (Isa::Avx2, GgmlType::Q6_K) => unsafe { super::int_dot_avx2::dot_q6_k(row, x) },
        #[cfg(target_arch = "x86_64")]
        (Isa::Avx2, GgmlType::Q5_K) => unsafe { super::int_dot_avx2::dot_q5_k(row, x) },
        #[cfg(target_arch = "x86_64")]
        (Isa::Avx2, GgmlType::Q4_0) => unsafe { super::int_dot_avx2::dot_q32::<0>(row, x) },
        #[cfg(target_arch = "x86_64")]
        (Isa::Avx2, GgmlType::Q5_0) => unsafe { super::int_dot_avx2::dot_q32::<1>(row, x) },
        #[cfg(target_arch = "x86_64")]
        (Isa::Avx2, GgmlType::Q5_1) => unsafe { super::int_dot_avx2::dot_q32::<2>(row, x) },
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        (Isa::Simd128, GgmlType::Q4_K) => super::wasm_simd::int_dot_q4_k(row, x),
        _ => portable_blocks(ty, row, x),
    }
}

/// One sub-block of 32 weights: `scale[0] * q[j] + min` for `j < 16`, `scale[1] * q[j]
/// + min` for the others.
pub struct SubBlock {
    pub q: [i32; QK],
    pub scale: [f32; 2],
    pub min: f32,
}

/// Sub-block `s` of the block `b` of `ty` (a raw-block type), as the format's layout
/// defines it (ggml's `dequantize_row_*`, `formats/`).
pub fn sub_block(ty: GgmlType, b: &[u8], s: usize) -> SubBlock {
    let mut q = [0i32; QK];
    let (scale, min) = match ty {
        GgmlType::Q4_0 | GgmlType::Q5_0 | GgmlType::Q5_1 => {
            let (nib, qh, d, min, offset) = match ty {
                GgmlType::Q4_0 => (&b[2..18], 0u32, f16_at(b, 0), 0.0, 8),
                GgmlType::Q5_0 => {
                    (&b[6..22], u32::from_le_bytes([b[2], b[3], b[4], b[5]]), f16_at(b, 0), 0.0, 16)
                }
                _ => (
                    &b[8..24],
                    u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
                    f16_at(b, 0),
                    f16_at(b, 2),
                    0,
                ),
            };
            for (j, &byte) in nib.iter().enumerate() {
                let (h0, h1) = (((qh >> j) << 4) & 0x10, (qh >> (j + 12)) & 0x10);
                q[j] = (u32::from(byte & 0x0f) | h0) as i32 - offset;
                q[j + 16] = (u32::from(byte >> 4) | h1) as i32 - offset;
            }
            ([d; 2], min)
        }
        GgmlType::Q4_K | GgmlType::Q5_K => {
            let (d, dmin) = (f16_at(b, 0), f16_at(b, 2));
            let (sc, m) = q4_k::scale_min(s, &b[4..16]);
            let (qh, qs) = if ty == GgmlType::Q4_K {
                (None, &b[16..144])
            } else {
                (Some(&b[16..48]), &b[48..176])
            };
            let bytes = &qs[32 * (s / 2)..32 * (s / 2) + 32];
            for l in 0..32 {
                let v = if s.is_multiple_of(2) { bytes[l] & 0x0f } else { bytes[l] >> 4 };
                let high = qh.map_or(0, |qh| if qh[l] & (1 << s) != 0 { 16 } else { 0 });
                q[l] = i32::from(v) + high;
            }
            ([d * f32::from(sc); 2], -dmin * f32::from(m))
        }
        GgmlType::Q6_K => {
            let d = f16_at(b, 208);
            let (half, c) = (s / 4, s % 4);
            let ql = &b[64 * half..64 * half + 64];
            let qh = &b[128 + 32 * half..128 + 32 * half + 32];
            let sc = &b[192 + 8 * half..192 + 8 * half + 8];
            for l in 0..32 {
                q[l] = i32::from(q6_low(ql, l, c) | (((qh[l] >> (2 * c)) & 3) << 4)) - 32;
            }
            ([d * f32::from(sc[2 * c] as i8), d * f32::from(sc[2 * c + 1] as i8)], 0.0)
        }
        GgmlType::F32 | GgmlType::F16 | GgmlType::Q8_0 | GgmlType::Q4_1 => {
            unreachable!("{ty:?} is not held as raw blocks")
        }
    };
    SubBlock { q, scale, min }
}

/// The low four bits of Q6_K value `l` of quarter `c` in a half's 64 `ql` bytes:
/// quarters 0 and 1 take the low nibbles of bytes `l` and `l + 32`, quarters 2 and 3
/// their high nibbles.
fn q6_low(ql: &[u8], l: usize, c: usize) -> u8 {
    let byte = ql[l + 32 * (c % 2)];
    if c < 2 {
        byte & 0x0f
    } else {
        byte >> 4
    }
}

/// Bytes and values per block of a raw-block type.
fn layout(ty: GgmlType) -> (usize, usize) {
    match ty {
        GgmlType::Q4_0 => (q4_0::BLOCK_BYTES, QK),
        GgmlType::Q5_0 => (q5_0::BLOCK_BYTES, QK),
        GgmlType::Q5_1 => (q5_1::BLOCK_BYTES, QK),
        GgmlType::Q4_K => (q4_k::BLOCK_BYTES, QK_K),
        GgmlType::Q5_K => (q5_k::BLOCK_BYTES, QK_K),
        GgmlType::Q6_K => (q6_k::BLOCK_BYTES, QK_K),
        _ => (ty.block_bytes(), ty.block_len()),
    }
}

fn portable_blocks(ty: GgmlType, row: &[u8], x: Q8Row) -> f32 {
    let (bytes, len) = layout(ty);
    let subs = len / QK;
    let mut acc = 0f32;
    for (bi, b) in row.chunks_exact(bytes).enumerate() {
        for s in 0..subs {
            let k = bi * subs + s;
            let sb = sub_block(ty, b, s);
            let a = &x.quants[k * QK..(k + 1) * QK];
            let lo: i32 = (0..16).map(|j| sb.q[j] * i32::from(a[j])).sum();
            let hi: i32 = (16..32).map(|j| sb.q[j] * i32::from(a[j])).sum();
            acc += x.scale(k) * (sb.scale[0] * lo as f32 + sb.scale[1] * hi as f32)
                + sb.min * x.sums[k];
        }
    }
    acc
}

fn portable_q8_0(scales: &[f32], quants: &[i8], x: Q8Row) -> f32 {
    let mut acc = 0f32;
    for (k, (&d, w)) in scales.iter().zip(quants.chunks_exact(QK)).enumerate() {
        let a = &x.quants[k * QK..(k + 1) * QK];
        let s: i32 = w.iter().zip(a).map(|(&w, &a)| i32::from(w) * i32::from(a)).sum();
        acc += d * x.scale(k) * s as f32;
    }
    acc
}

fn portable_q4_1(d: &[f32], m: &[f32], nibbles: &[u8], x: Q8Row) -> f32 {
    let mut acc = 0f32;
    for (k, q) in nibbles.chunks_exact(QK / 2).enumerate() {
        let a = &x.quants[k * QK..(k + 1) * QK];
        let s: i32 = q
            .iter()
            .enumerate()
            .map(|(j, &b)| {
                i32::from(b & 0x0f) * i32::from(a[j]) + i32::from(b >> 4) * i32::from(a[j + 16])
            })
            .sum();
        acc += d[k] * x.scale(k) * s as f32 + m[k] * x.sums[k];
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_data::{quant_blocks as blocks, values, varied, Q4_1Fields, BLOCK_TYPES};

    /// `got` within `tol` of `want`, relative to `1 + |want|`.
    fn assert_close(got: f32, want: f32, tol: f32, what: String) {
        assert!((got - want).abs() <= tol * (1.0 + want.abs()), "{what}: {got} vs {want}");
    }

    fn f64_dot(w: &[f32], x: &[f32]) -> f64 {
        w.iter().zip(x).map(|(&a, &b)| f64::from(a) * f64::from(b)).sum()
    }

    /// The kernel against the two references: the f64 sum with the rounded activations
    /// (equal up to float rounding, the integer sums being exact) and the f64 sum with
    /// the original activations (within the activations' rounding bound; the minimum
    /// terms take the rounded sums too).
    fn check(what: &str, got: f32, w: &[f32], x: &[f32], a: Q8Row) {
        let rounded = a.dequantized();
        let exact = f64_dot(w, &rounded);
        let scale: f64 =
            w.iter().zip(a.dequantized()).map(|(&p, q)| f64::from((p * q).abs())).sum();
        assert!(
            (f64::from(got) - exact).abs() <= 1e-5 * (1.0 + scale),
            "{what}: {got} vs rounded-activation sum {exact}"
        );
        let unrounded = f64_dot(w, x);
        let bound = a.rounding_bound(w) + 1e-5 * (1.0 + scale);
        assert!(
            (f64::from(got) - unrounded).abs() <= bound,
            "{what}: {got} vs f32-activation sum {unrounded}, bound {bound}"
        );
    }

    /// [`dot_blocks`] of `row` (`w` dequantized) with `x` rounded to 8 bits, on every
    /// ISA with a kernel for `ty`, against the references of [`check`].
    fn check_blocks(what: &str, ty: GgmlType, row: &[u8], w: &[f32], x: &[f32]) {
        let q = Q8Activations::rows(x, w.len(), activation_block(ty));
        for isa in [Isa::Portable, Isa::detect()] {
            if has_kernel(isa, ty) {
                let got = dot_blocks(isa, ty, row, q.row(0));
                check(&format!("{what} {isa:?}"), got, w, x, q.row(0));
            }
        }
    }

    #[test]
    fn block_kernels_agree_with_exact_sums() {
        for ty in BLOCK_TYPES {
            for n in [1usize, 2, 6] {
                let row = blocks(ty, n, 3 + n as u64);
                let cols = n * ty.block_len();
                let mut w = vec![0f32; cols];
                ty.dequantize(&row, &mut w);
                // Activations with a wide range, so that the scales differ per block.
                let x = varied(cols, 40 + n as u64, 7);
                check_blocks(&format!("{ty:?} x{n}"), ty, &row, &w, &x);
            }
        }
    }

    #[test]
    fn sub_blocks_equal_the_format_decoders() {
        // The portable kernels' decoder against the formats' own (tested against gguf-py).
        for ty in BLOCK_TYPES {
            let b = blocks(ty, 1, 77);
            let mut want = vec![0f32; ty.block_len()];
            ty.dequantize(&b, &mut want);
            for s in 0..ty.block_len() / QK {
                let sb = sub_block(ty, &b, s);
                for j in 0..QK {
                    let got = sb.scale[j / 16] * sb.q[j] as f32 + sb.min;
                    let what = format!("{ty:?} sub-block {s} value {j}");
                    assert_close(got, want[s * QK + j], 1e-6, what);
                }
            }
        }
    }

    #[test]
    fn q8_0_and_q4_1_kernels_agree_with_exact_sums() {
        for n in [1usize, 3, 18, 48] {
            let cols = n * QK;
            let x = varied(cols, 50 + n as u64, 5);
            let q = Q8Activations::rows(&x, cols, QK);
            let scales: Vec<f32> = values(n, 51).iter().map(|v| v.abs() / 64.0 + 1e-3).collect();
            let quants: Vec<i8> = values(cols, 52).iter().map(|v| (v * 127.0) as i8).collect();
            let w8: Vec<f32> =
                quants.iter().enumerate().map(|(i, &v)| scales[i / QK] * f32::from(v)).collect();
            let q4 = Q4_1Fields::new(n, 53);
            let w4 = q4.dequantized();
            for isa in [Isa::Portable, Isa::detect()] {
                check(
                    &format!("Q8_0 x{n} {isa:?}"),
                    dot_q8_0(isa, &scales, &quants, q.row(0)),
                    &w8,
                    &x,
                    q.row(0),
                );
                check(
                    &format!("Q4_1 x{n} {isa:?}"),
                    dot_q4_1(isa, &q4.d, &q4.m, &q4.nibbles, q.row(0)),
                    &w4,
                    &x,
                    q.row(0),
                );
            }
        }
    }

    #[test]
    fn q4_1_gemm_agrees_with_one_dot_product_per_pair() {
        // 3 weight rows of 2 blocks times 1..=17 activation rows: every tile width.
        let (rows, cols) = (3, 2 * QK);
        let q4 = Q4_1Fields::new(rows * 2, 61);
        for t in 1..18 {
            let x = varied(t * cols, 64 + t as u64, 3);
            let q = Q8Activations::rows(&x, cols, QK);
            for isa in [Isa::Portable, Isa::detect()] {
                let mut out = vec![0f32; rows * t];
                gemm_q4_1(isa, q4.as_rows(rows), &q, t, &mut out);
                for r in 0..rows {
                    for i in 0..t {
                        let w = q4.as_rows(rows).rows(r, 1, cols);
                        let want = dot_q4_1(Isa::Portable, w.d, w.m, w.nibbles, q.row(i));
                        let what = format!("t={t} row {r} token {i} {isa:?}");
                        assert_close(out[r * t + i], want, 1e-5, what);
                    }
                }
            }
        }
    }

    #[test]
    fn q8_0_and_q4_k_gemms_agree_with_one_dot_product_per_pair() {
        // 3 weight rows of 2 super-blocks (16 blocks of 32) times 1..=17 activation rows.
        let (rows, cols) = (3, 2 * QK_K);
        let scales: Vec<f32> =
            values(rows * cols / QK, 71).iter().map(|v| v.abs() / 64.0 + 1e-3).collect();
        let quants: Vec<i8> = values(rows * cols, 72).iter().map(|v| (v * 127.0) as i8).collect();
        let q8_rows = Q8_0Rows { scales: &scales, quants: &quants, rows };
        let k_bytes = blocks(GgmlType::Q4_K, rows * 2, 73);
        let row_bytes = 2 * q4_k::BLOCK_BYTES;
        let k_rows = Q4KRows { bytes: &k_bytes, row_bytes, rows };
        for t in 1..18 {
            let x = varied(t * cols, 74 + t as u64, 3);
            let (q32, q256) =
                (Q8Activations::rows(&x, cols, QK), Q8Activations::rows(&x, cols, QK_K));
            for isa in [Isa::Portable, Isa::detect()] {
                let (mut o8, mut ok) = (vec![0f32; rows * t], vec![0f32; rows * t]);
                gemm_q8_0(isa, q8_rows, &q32, t, &mut o8);
                gemm_q4_k(isa, k_rows, &q256, t, &mut ok);
                for r in 0..rows {
                    for i in 0..t {
                        let row = q8_rows.rows(r, 1, cols);
                        let w8 = dot_q8_0(Isa::Portable, row.scales, row.quants, q32.row(i));
                        let wk = portable_blocks(
                            GgmlType::Q4_K,
                            &k_bytes[r * row_bytes..(r + 1) * row_bytes],
                            q256.row(i),
                        );
                        for (what, got, want) in
                            [("Q8_0", o8[r * t + i], w8), ("Q4_K", ok[r * t + i], wk)]
                        {
                            let what = format!("{what} t={t} row {r} token {i} {isa:?}");
                            assert_close(got, want, 1e-4, what);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn kernels_see_every_sub_block_and_extreme_values() {
        // One non-zero activation block at a time: a kernel that skips or swaps a
        // sub-block (or a Q6_K quarter / half) gets that block's product wrong.
        for ty in BLOCK_TYPES {
            let row = blocks(ty, 2, 9);
            let cols = 2 * ty.block_len();
            let mut w = vec![0f32; cols];
            ty.dequantize(&row, &mut w);
            for k in 0..cols / QK {
                let x: Vec<f32> = (0..cols)
                    .map(|i| {
                        if i / QK == k {
                            if i % 3 == 0 {
                                -1.0
                            } else {
                                0.75
                            }
                        } else {
                            0.0
                        }
                    })
                    .collect();
                check_blocks(&format!("{ty:?} block {k}"), ty, &row, &w, &x);
            }
        }
        // Q8_0 weights of -128 and activations of ±127 (the AVX2 sign trick's limits).
        let quants = vec![-128i8; 64];
        let x: Vec<f32> = (0..64).map(|i| if i % 2 == 0 { 1.0 } else { -1.0 }).collect();
        let q = Q8Activations::rows(&x, 64, QK);
        let w = vec![-128f32 * 0.5; 64];
        for isa in [Isa::Portable, Isa::detect()] {
            check(
                &format!("Q8_0 extremes {isa:?}"),
                dot_q8_0(isa, &[0.5, 0.5], &quants, q.row(0)),
                &w,
                &x,
                q.row(0),
            );
        }
    }
}
