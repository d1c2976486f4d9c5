//! Dot products of one weight row (f32, f16, Q8_0 or Q4_1 blocks) with one f32
//! activation row: the inner loop of [`crate::HostMatrix`].
//!
//! Written by hand because no crate does this one thing: `gemm` / `matrixmultiply`
//! (behind burn's CPU backends) multiply f32 / f16 matrices only and pack the weight
//! matrix on each call; burn's quantized matmul dequantizes the whole matrix to float
//! before multiplying; the GGUF crates that carry ggml's quantized dot products pull in
//! a framework (candle) or C code (llama.cpp). What is needed here is ~100 lines: the
//! weight row is streamed once from memory and multiplied with the activations in
//! registers.
//!
//! Each kernel exists at least twice: a portable version (the reference, and what CPUs
//! without AVX2 run; written with eight independent lanes so LLVM vectorises it) and an
//! x86-64 AVX2 + FMA (+ F16C) version chosen at run time; in wasm built with
//! `simd128` (the playground), f32 / Q8_0 / Q4_1 and attention's weighted sum have a
//! third version (`super::wasm_simd`; f16 stays portable there). Tests check that they
//! agree (`super::kernel_check`, natively and under node). These take f32
//! activations; decode steps use the integer kernels of `super::int_dot` on 8-bit
//! activations where the CPU has them (`ActivationFormat::Int8`, as llama.cpp).

use half::f16;

use crate::formats::QK;
use crate::{Isa, Q4_1Rows};

/// `a · b` over f32 rows of equal length.
#[inline]
pub fn dot_f32(isa: Isa, a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    match isa {
        Isa::Portable => portable::dot_f32(a, b),
        // SAFETY: `Isa::Avx2` is only constructed after run-time detection of the features.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::dot_f32(a, b) },
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Isa::Simd128 => super::wasm_simd::dot_f32(a, b),
    }
}

/// `o += p * v` (attention's weighted sum of values); `v.len() == o.len()`.
#[inline]
pub fn axpy(isa: Isa, p: f32, v: &[f32], o: &mut [f32]) {
    debug_assert_eq!(v.len(), o.len());
    match isa {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Isa::Simd128 => super::wasm_simd::axpy(p, v, o),
        // LLVM vectorises this loop well for AVX2; the portable version elsewhere.
        _ => o.iter_mut().zip(v).for_each(|(o, &v)| *o += p * v),
    }
}

/// `w · x` with `w` in f16.
#[inline]
pub fn dot_f16(isa: Isa, w: &[f16], x: &[f32]) -> f32 {
    debug_assert_eq!(w.len(), x.len());
    match isa {
        Isa::Portable => portable::dot_f16(w, x),
        // SAFETY: as in `dot_f32`.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::dot_f16(w, x) },
        // simd128 has no f16 conversion; the f16 format is not the playground's.
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Isa::Simd128 => portable::dot_f16(w, x),
    }
}

/// `w · x` with `w` as Q8_0 blocks: `scales[i] * quants[32 i .. 32 i + 32]`;
/// `x.len() == quants.len() == 32 * scales.len()`.
#[inline]
pub fn dot_q8(isa: Isa, scales: &[f32], quants: &[i8], x: &[f32]) -> f32 {
    debug_assert_eq!(quants.len(), x.len());
    debug_assert_eq!(quants.len(), scales.len() * QK);
    match isa {
        Isa::Portable => portable::dot_q8(scales, quants, x),
        // SAFETY: as in `dot_f32`.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::dot_q8(scales, quants, x) },
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Isa::Simd128 => super::wasm_simd::dot_q8(scales, quants, x),
    }
}

/// `w · x` with `w` as Q4_1 blocks, ggml's layout: block `i` has scale `d[i]`, minimum
/// `m[i]` and 16 bytes `nibbles[16 i ..]`, byte `j` holding value `j` in its low nibble
/// and value `j + 16` in its high one; `w = d * q + m`. `xsum[i]` is the sum of `x`'s
/// block `i` (computed once per activation row by the caller: the `m` term is
/// `m[i] * xsum[i]`).
#[inline]
pub fn dot_q4_1(isa: Isa, d: &[f32], m: &[f32], nibbles: &[u8], x: &[f32], xsum: &[f32]) -> f32 {
    debug_assert_eq!(nibbles.len() * 2, x.len());
    debug_assert_eq!(d.len() * QK, x.len());
    match isa {
        Isa::Portable => portable::dot_q4_1(d, nibbles, x) + portable::dot_f32(m, xsum),
        // SAFETY: as in `dot_f32`.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::dot_q4_1(d, nibbles, x) + avx2::dot_f32(m, xsum) },
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Isa::Simd128 => {
            super::wasm_simd::dot_q4_1(d, nibbles, x) + super::wasm_simd::dot_f32(m, xsum)
        }
    }
}

/// Per-block sums of `x` (blocks of 32), the `xsum` of [`dot_q4_1`].
pub fn block_sums(x: &[f32]) -> Vec<f32> {
    x.chunks_exact(QK).map(|b| b.iter().sum()).collect()
}

/// Whether [`gemm_q4_1`] has a fast kernel for `isa` (otherwise the caller decodes
/// the weights to f32 and multiplies them with sgemm).
pub fn has_gemm_q4_1(isa: Isa) -> bool {
    cfg!(target_arch = "x86_64") && !matches!(isa, Isa::Portable)
}

/// Prefill's `x · Wᵀ` for `W` in Q4_1 blocks (layout of [`dot_q4_1`]): `rows`
/// consecutive weight rows of `cols` (`d`, `m` hold `rows * cols / 32` entries,
/// `nibbles` `rows * cols / 2` bytes) times `t` activation rows `x` (`[t][cols]`),
/// written `out[row * t + token]`. `xsum` is `[t][cols / 32]`, the block sums of
/// each activation row. Each weight block is decoded once per tile of up to 8
/// activation rows, in registers, and multiplied with all of them (no f32 copy of
/// the weights, no packing). On 64 activation rows this took 0.96-1.01x the CPU time
/// of decoding to f32 + sgemm for the FFN's matrices and 0.74-0.77x for the 576 x 576
/// ones (one thread, AVX2); callers use it where [`has_gemm_q4_1`] holds.
pub fn gemm_q4_1(isa: Isa, w: Q4_1Rows, x: &[f32], xsum: &[f32], t: usize, out: &mut [f32]) {
    let cols = x.len() / t.max(1);
    assert!(w.holds(cols));
    assert!(x.len() == t * cols && xsum.len() == t * cols / QK && out.len() == w.rows * t);
    match isa {
        // Correct but slower than decoding to f32 for sgemm (what callers do instead).
        Isa::Portable => {
            let nb = cols / QK;
            for r in 0..w.rows {
                let row = w.rows(r, 1, cols);
                for i in 0..t {
                    out[r * t + i] =
                        portable::dot_q4_1(row.d, row.nibbles, &x[i * cols..(i + 1) * cols])
                            + portable::dot_f32(row.m, &xsum[i * nb..(i + 1) * nb]);
                }
            }
        }
        // SAFETY: `Isa::Avx2` is only constructed after run-time detection; the
        // lengths are checked above.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::gemm_q4_1(w, x, xsum, t, cols, out) },
        // No simd128 tile kernel: the portable one (callers ask `has_gemm_q4_1` first).
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Isa::Simd128 => gemm_q4_1(Isa::Portable, w, x, xsum, t, out),
    }
}

mod portable {
    use half::f16;

    use super::QK;

    const LANES: usize = 8;

    pub(super) fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
        let mut acc = [0f32; LANES];
        let mut ca = a.chunks_exact(LANES);
        let mut cb = b.chunks_exact(LANES);
        for (x, y) in (&mut ca).zip(&mut cb) {
            for j in 0..LANES {
                acc[j] += x[j] * y[j];
            }
        }
        let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
        acc.iter().sum::<f32>() + tail
    }

    pub(super) fn dot_f16(w: &[f16], x: &[f32]) -> f32 {
        let mut acc = [0f32; LANES];
        let mut cw = w.chunks_exact(LANES);
        let mut cx = x.chunks_exact(LANES);
        for (a, b) in (&mut cw).zip(&mut cx) {
            for j in 0..LANES {
                acc[j] += a[j].to_f32() * b[j];
            }
        }
        let tail: f32 =
            cw.remainder().iter().zip(cx.remainder()).map(|(a, b)| a.to_f32() * b).sum();
        acc.iter().sum::<f32>() + tail
    }

    pub(super) fn dot_q8(scales: &[f32], quants: &[i8], x: &[f32]) -> f32 {
        let mut acc = [0f32; LANES];
        for ((&d, q), xb) in scales.iter().zip(quants.chunks_exact(QK)).zip(x.chunks_exact(QK)) {
            let mut s = [0f32; LANES];
            for (qc, xc) in q.chunks_exact(LANES).zip(xb.chunks_exact(LANES)) {
                for j in 0..LANES {
                    s[j] += f32::from(qc[j]) * xc[j];
                }
            }
            for j in 0..LANES {
                acc[j] += d * s[j];
            }
        }
        acc.iter().sum()
    }

    /// `Σ d[i] * Σ_j q_ij x_ij` (the scale part of a Q4_1 dot product).
    pub(super) fn dot_q4_1(d: &[f32], nibbles: &[u8], x: &[f32]) -> f32 {
        let mut acc = [0f32; LANES];
        for ((&d, q), xb) in d.iter().zip(nibbles.chunks_exact(QK / 2)).zip(x.chunks_exact(QK)) {
            let (lo, hi) = xb.split_at(QK / 2);
            let mut s = [0f32; LANES];
            for (q, (l, h)) in
                q.chunks_exact(LANES).zip(lo.chunks_exact(LANES).zip(hi.chunks_exact(LANES)))
            {
                for j in 0..LANES {
                    s[j] += f32::from(q[j] & 0x0f) * l[j] + f32::from(q[j] >> 4) * h[j];
                }
            }
            for j in 0..LANES {
                acc[j] += d * s[j];
            }
        }
        acc.iter().sum()
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use half::f16;

    use super::{Q4_1Rows, QK};
    use crate::avx2::{hsum, nibble_halves, store_sums};
    use crate::tile_width::by_tile_width;

    /// # Safety
    /// The CPU must support AVX2 and FMA; `a.len() == b.len()`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
        let n = a.len().min(b.len());
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut acc = [_mm256_setzero_ps(); 4];
        let mut i = 0;
        while i + 32 <= n {
            for (k, acc) in acc.iter_mut().enumerate() {
                let off = i + 8 * k;
                *acc = _mm256_fmadd_ps(
                    _mm256_loadu_ps(pa.add(off)),
                    _mm256_loadu_ps(pb.add(off)),
                    *acc,
                );
            }
            i += 32;
        }
        while i + 8 <= n {
            acc[0] =
                _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(i)), _mm256_loadu_ps(pb.add(i)), acc[0]);
            i += 8;
        }
        let v = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
        let mut sum = hsum(v);
        while i < n {
            sum += *pa.add(i) * *pb.add(i);
            i += 1;
        }
        sum
    }

    /// # Safety
    /// The CPU must support AVX2, FMA and F16C; `w.len() == x.len()`.
    #[target_feature(enable = "avx2,fma,f16c")]
    pub(super) unsafe fn dot_f16(w: &[f16], x: &[f32]) -> f32 {
        let n = w.len().min(x.len());
        let (pw, px) = (w.as_ptr() as *const u16, x.as_ptr());
        let mut acc = [_mm256_setzero_ps(); 4];
        let mut i = 0;
        while i + 32 <= n {
            for (k, acc) in acc.iter_mut().enumerate() {
                let off = i + 8 * k;
                let wv = _mm256_cvtph_ps(_mm_loadu_si128(pw.add(off) as *const __m128i));
                *acc = _mm256_fmadd_ps(wv, _mm256_loadu_ps(px.add(off)), *acc);
            }
            i += 32;
        }
        while i + 8 <= n {
            let wv = _mm256_cvtph_ps(_mm_loadu_si128(pw.add(i) as *const __m128i));
            acc[0] = _mm256_fmadd_ps(wv, _mm256_loadu_ps(px.add(i)), acc[0]);
            i += 8;
        }
        let v = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
        let mut sum = hsum(v);
        while i < n {
            sum += w[i].to_f32() * *px.add(i);
            i += 1;
        }
        sum
    }

    /// # Safety
    /// The CPU must support AVX2 and FMA; `quants.len() == x.len() == 32 * scales.len()`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dot_q8(scales: &[f32], quants: &[i8], x: &[f32]) -> f32 {
        let blocks = scales.len().min(quants.len() / QK).min(x.len() / QK);
        let (pq, px) = (quants.as_ptr(), x.as_ptr());
        let mut acc0 = _mm256_setzero_ps();
        let mut acc1 = _mm256_setzero_ps();
        for b in 0..blocks {
            let q = pq.add(b * QK);
            let xb = px.add(b * QK);
            // (A macro, not a closure: closures do not inherit `target_feature`.)
            macro_rules! q8 {
                ($k:expr) => {
                    _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(
                        q.add(8 * $k) as *const __m128i
                    )))
                };
            }
            let mut s = _mm256_mul_ps(q8!(0), _mm256_loadu_ps(xb));
            let mut t = _mm256_mul_ps(q8!(1), _mm256_loadu_ps(xb.add(8)));
            s = _mm256_fmadd_ps(q8!(2), _mm256_loadu_ps(xb.add(16)), s);
            t = _mm256_fmadd_ps(q8!(3), _mm256_loadu_ps(xb.add(24)), t);
            let d = _mm256_set1_ps(*scales.get_unchecked(b));
            // Two accumulators alternate so consecutive blocks do not wait on each other.
            if b % 2 == 0 {
                acc0 = _mm256_fmadd_ps(_mm256_add_ps(s, t), d, acc0);
            } else {
                acc1 = _mm256_fmadd_ps(_mm256_add_ps(s, t), d, acc1);
            }
        }
        hsum(_mm256_add_ps(acc0, acc1))
    }

    /// # Safety
    /// The CPU must support AVX2 and FMA; `x.len() == 2 * nibbles.len() == 32 * d.len()`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dot_q4_1(d: &[f32], nibbles: &[u8], x: &[f32]) -> f32 {
        let blocks = d.len().min(nibbles.len() / (QK / 2)).min(x.len() / QK);
        let (pq, px) = (nibbles.as_ptr(), x.as_ptr());
        let mut acc0 = _mm256_setzero_ps();
        let mut acc1 = _mm256_setzero_ps();
        for b in 0..blocks {
            let (lo, hi) = nibble_halves(pq.add(b * QK / 2)); // values 0..16, 16..32
            let xb = px.add(b * QK);
            // (A macro, not a closure: closures do not inherit `target_feature`.)
            macro_rules! q4 {
                ($v:expr) => {
                    _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32($v))
                };
            }
            let mut s = _mm256_mul_ps(q4!(lo), _mm256_loadu_ps(xb));
            let mut t = _mm256_mul_ps(q4!(_mm_srli_si128(lo, 8)), _mm256_loadu_ps(xb.add(8)));
            s = _mm256_fmadd_ps(q4!(hi), _mm256_loadu_ps(xb.add(16)), s);
            t = _mm256_fmadd_ps(q4!(_mm_srli_si128(hi, 8)), _mm256_loadu_ps(xb.add(24)), t);
            let scale = _mm256_set1_ps(*d.get_unchecked(b));
            if b % 2 == 0 {
                acc0 = _mm256_fmadd_ps(_mm256_add_ps(s, t), scale, acc0);
            } else {
                acc1 = _mm256_fmadd_ps(_mm256_add_ps(s, t), scale, acc1);
            }
        }
        hsum(_mm256_add_ps(acc0, acc1))
    }

    /// [`super::gemm_q4_1`]: tiles of one weight row by up to 8 activation rows.
    ///
    /// # Safety
    /// The CPU must support AVX2 and FMA; the lengths are as `super::gemm_q4_1` checks.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn gemm_q4_1(
        w: Q4_1Rows,
        x: &[f32],
        xsum: &[f32],
        t: usize,
        cols: usize,
        out: &mut [f32],
    ) {
        let Q4_1Rows { d, m, nibbles, rows } = w;
        let nb = cols / QK;
        // Activation rows per tile: up to 8, as many as keep the tile's rows within
        // 24 KB (L1) while every weight row of the stretch passes over them.
        let most = (6144 / cols).clamp(1, 8);
        let mut t0 = 0;
        while t0 < t {
            let n = (t - t0).min(most);
            for r in 0..rows {
                let (dr, nr) = (d.as_ptr().add(r * nb), nibbles.as_ptr().add(r * nb * QK / 2));
                let xs = x.as_ptr().add(t0 * cols);
                let o = out.as_mut_ptr().add(r * t + t0);
                // (Const generics: the accumulators stay in registers.)
                by_tile_width!(n, [8, 7, 6, 5, 4, 3, 2], tile(dr, nr, nb, xs, cols, o));
                // The minimum term: Σ_b m[b] * xsum[b] for each activation row.
                let mr = &m[r * nb..(r + 1) * nb];
                for i in 0..n {
                    *o.add(i) += dot_f32(mr, &xsum[(t0 + i) * nb..(t0 + i + 1) * nb]);
                }
            }
            t0 += n;
        }
    }

    /// `o[i] = Σ_b d[b] * Σ_j q_bj * x_i[32 b + j]` for `N` activation rows `x_i` (stride
    /// `cols`): each block's 32 weights are widened to f32 and scaled, 8 at a time,
    /// then used by the `N` rows.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn tile<const N: usize>(
        d: *const f32,
        nib: *const u8,
        nb: usize,
        x: *const f32,
        cols: usize,
        o: *mut f32,
    ) {
        let mut acc = [_mm256_setzero_ps(); N];
        for b in 0..nb {
            let (lo, hi) = nibble_halves(nib.add(b * QK / 2)); // values 0..16, 16..32
            let scale = _mm256_set1_ps(*d.add(b));
            let parts = [lo, _mm_srli_si128(lo, 8), hi, _mm_srli_si128(hi, 8)];
            for (k, part) in parts.into_iter().enumerate() {
                let w = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(part)), scale);
                let xb = x.add(b * QK + 8 * k);
                for (i, acc) in acc.iter_mut().enumerate() {
                    *acc = _mm256_fmadd_ps(w, _mm256_loadu_ps(xb.add(i * cols)), *acc);
                }
            }
        }
        store_sums(acc, o);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_data::{values, Q4_1Fields};

    fn exact(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(&x, &y)| f64::from(x) * f64::from(y)).sum::<f64>() as f32
    }

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() <= 1e-4 * (1.0 + b.abs())
    }

    #[test]
    fn every_isa_agrees_with_exact_sums() {
        // Lengths with and without tails (f32 / f16 kernels take any length).
        for &n in &[1usize, 7, 8, 33, 576, 1536] {
            let a = values(n, n as u64);
            let b = values(n, 7 * n as u64);
            let h: Vec<f16> = a.iter().map(|&v| f16::from_f32(v)).collect();
            let hf: Vec<f32> = h.iter().map(|v| v.to_f32()).collect();
            for isa in [Isa::Portable, Isa::detect()] {
                assert!(close(dot_f32(isa, &a, &b), exact(&a, &b)), "f32 n={n} {isa:?}");
                assert!(close(dot_f16(isa, &h, &b), exact(&hf, &b)), "f16 n={n} {isa:?}");
            }
        }
    }

    #[test]
    fn q8_kernels_agree_with_dequantized_rows() {
        for &blocks in &[1usize, 3, 18, 48] {
            let n = blocks * QK;
            let x = values(n, blocks as u64);
            let scales: Vec<f32> =
                values(blocks, 99).iter().map(|v| v.abs() / 64.0 + 1e-3).collect();
            let quants: Vec<i8> = values(n, 5).iter().map(|v| (v * 127.0) as i8).collect();
            let deq: Vec<f32> =
                quants.iter().enumerate().map(|(i, &q)| scales[i / QK] * f32::from(q)).collect();
            let want = exact(&deq, &x);
            for isa in [Isa::Portable, Isa::detect()] {
                let got = dot_q8(isa, &scales, &quants, &x);
                assert!(close(got, want), "blocks={blocks} {isa:?}: {got} vs {want}");
            }
        }
    }

    #[test]
    fn q4_1_kernels_agree_with_ggml_dequantization() {
        use crate::GgmlType;
        for &blocks in &[1usize, 2, 18, 48] {
            let n = blocks * QK;
            let x = values(n, 11 + blocks as u64);
            let Q4_1Fields { d, m, nibbles } = Q4_1Fields::new(blocks, 12);
            // The reference: the GGUF reader's own Q4_1 dequantization.
            let mut bytes = Vec::new();
            for b in 0..blocks {
                bytes.extend_from_slice(&f16::from_f32(d[b]).to_le_bytes());
                bytes.extend_from_slice(&f16::from_f32(m[b]).to_le_bytes());
                bytes.extend_from_slice(&nibbles[b * 16..(b + 1) * 16]);
            }
            let (d16, m16): (Vec<f32>, Vec<f32>) = d
                .iter()
                .zip(&m)
                .map(|(d, m)| (f16::from_f32(*d).to_f32(), f16::from_f32(*m).to_f32()))
                .unzip();
            let mut deq = vec![0f32; n];
            GgmlType::Q4_1.dequantize(&bytes, &mut deq);
            let want = exact(&deq, &x);
            let xsum = block_sums(&x);
            for isa in [Isa::Portable, Isa::detect()] {
                let got = dot_q4_1(isa, &d16, &m16, &nibbles, &x, &xsum);
                assert!(close(got, want), "blocks={blocks} {isa:?}: {got} vs {want}");
            }
        }
    }

    #[test]
    fn q4_1_gemm_agrees_with_one_dot_product_per_pair() {
        // 3 weight rows of 2 blocks times 1..=11 activation rows: every tile width.
        let (rows, cols) = (3, 2 * QK);
        let q4 = Q4_1Fields::new(rows * 2, 31);
        for t in 1..12 {
            let x = values(t * cols, 34 + t as u64);
            let xsum = block_sums(&x);
            for isa in [Isa::Portable, Isa::detect()] {
                let mut out = vec![0f32; rows * t];
                gemm_q4_1(isa, q4.as_rows(rows), &x, &xsum, t, &mut out);
                for r in 0..rows {
                    for i in 0..t {
                        let w = q4.as_rows(rows).rows(r, 1, cols);
                        let (xi, si) = (&x[i * cols..(i + 1) * cols], &xsum[2 * i..2 * i + 2]);
                        let want = dot_q4_1(Isa::Portable, w.d, w.m, w.nibbles, xi, si);
                        assert!(close(out[r * t + i], want), "t={t} row {r} token {i} {isa:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn kernels_see_every_element() {
        // A single non-zero at each position must show up: catches skipped tails/blocks.
        let n = 2 * QK + 8;
        for pos in 0..n {
            let mut a = vec![0f32; n];
            a[pos] = 2.0;
            let b = vec![1.5f32; n];
            for isa in [Isa::Portable, Isa::detect()] {
                assert_eq!(dot_f32(isa, &a, &b), 3.0, "pos {pos} {isa:?}");
            }
        }
    }
}
