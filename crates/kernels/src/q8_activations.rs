//! Activations rounded to 8 bits once per matrix product, so that the weight rows can
//! be multiplied with integer dot products ([`super::int_dot`]), as ggml does: each
//! block of 32 values (of 256 for the K-quants, ggml's Q8_K, so that a whole
//! super-block sums in integers) gets `d = max |x| / 127` and `q = round(x / d)` (ggml's
//! `quantize_row_q8_0` / `quantize_row_q8_K`, with `d` kept as f32). Each block of 32
//! also keeps the sum of its rounded values (`d · Σ q`, ggml's Q8_1 `s` / Q8_K
//! `bsums`), for the minimum terms of the affine formats (Q4_1, Q4_K, Q5_1, Q5_K).
//!
//! The rounding: every activation moves by at most `d / 2` of its block, so a dot
//! product with weights `w` moves by at most `Σ_blocks d / 2 · Σ_block |w|` (the bound
//! the kernel tests check against an f64 sum of the unrounded values), what ggml's
//! own rounding moves llama.cpp's products by. The minimum terms must take the
//! rounded sums too: with exact sums the error multiplies `w - min` (`d q`, all of
//! one sign) instead of `w`, losing the cancellation; on SmolLM2 that moved logits by
//! 2.2 instead of 0.35 (measured).

use crate::formats::QK;

/// How the CPU kernels take a matrix product's activations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ActivationFormat {
    /// Rounded to 8 bits per block of 32 once per product, then integer dot products
    /// where the weight type has them (Q8_0, Q4_1, Q4_0, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K);
    /// f32 for the other types, and for prompts of several tokens of the types whose
    /// integer prefill is slower than sgemm (`int_dot::prefill_takes_int8`). What
    /// llama.cpp does; the default.
    #[default]
    Int8,
    /// Kept in f32: the only rounding is the weights' own (the exact twin of burn's f32
    /// matmul, which the weight-format tests compare against).
    F32,
}

/// `t` activation rows of `cols` values rounded to 8 bits in blocks of `block` (32 or
/// 256) values.
#[derive(Clone, Debug)]
pub struct Q8Activations {
    cols: usize,
    block: usize,
    scales: Vec<f32>,
    quants: Vec<i8>,
    sums: Vec<f32>,
}

/// One row of [`Q8Activations`]: value `j` is `scales[j / block] * quants[j]`, and
/// `sums[b]` the sum of the rounded values `32 b .. 32 b + 32`.
#[derive(Clone, Copy, Debug)]
pub struct Q8Row<'a> {
    pub scales: &'a [f32],
    pub quants: &'a [i8],
    pub sums: &'a [f32],
    /// `log2(block / 32)`: the scale of 32-block `k` is `scales[k >> shift]`.
    pub shift: u32,
}

/// One activation row to round: its values and quants, then its scales and sums.
type RowTask<'a> = ((&'a [f32], &'a mut [i8]), (&'a mut [f32], &'a mut [f32]));

impl Q8Activations {
    /// Rounds `x` (`[t][cols]`) in blocks of `block` values (32 or 256; `cols` a
    /// multiple of it, checked by the caller).
    pub fn rows(x: &[f32], cols: usize, block: usize) -> Self {
        debug_assert!(block == QK || block == 8 * QK);
        debug_assert_eq!(cols % block, 0);
        let per = block / QK;
        let mut scales = vec![0f32; x.len() / block];
        let mut quants = vec![0i8; x.len()];
        let mut sums = vec![0f32; x.len() / QK];
        // A prompt's rows are rounded in parallel (one task per activation row); the
        // result does not depend on how the rows are split.
        let round_row = |((x, q), (d, s)): RowTask<'_>| {
            for ((b, q), d) in
                x.chunks_exact(block).zip(q.chunks_exact_mut(block)).zip(d.iter_mut())
            {
                // (Not `f32::max`: in wasm that is a call to libm's `fmaxf` per value, 3%
                // of a prompt's time; for the finite values here the result is the same.)
                let amax = b.iter().fold(0f32, |m, &v| if v.abs() > m { v.abs() } else { m });
                *d = amax / 127.0;
                let id = if *d != 0.0 { 1.0 / *d } else { 0.0 };
                // |v * id| <= 127 up to rounding; the clamp keeps -128 out (the AVX2
                // kernels negate activations).
                q.iter_mut()
                    .zip(b)
                    .for_each(|(q, &v)| *q = (v * id).round().clamp(-127.0, 127.0) as i8);
            }
            for (k, (s, q)) in s.iter_mut().zip(q.chunks_exact(QK)).enumerate() {
                *s = d[k / per] * q.iter().map(|&v| i32::from(v)).sum::<i32>() as f32;
            }
        };
        #[cfg(not(target_family = "wasm"))]
        if x.len() > cols {
            use rayon::prelude::*;
            let rows = x.par_chunks_exact(cols).zip(quants.par_chunks_exact_mut(cols));
            let meta =
                scales.par_chunks_exact_mut(cols / block).zip(sums.par_chunks_exact_mut(cols / QK));
            rows.zip(meta).for_each(round_row);
            return Self { cols, block, scales, quants, sums };
        }
        let rows = x.chunks_exact(cols).zip(quants.chunks_exact_mut(cols));
        let meta = scales.chunks_exact_mut(cols / block).zip(sums.chunks_exact_mut(cols / QK));
        rows.zip(meta).for_each(round_row);
        Self { cols, block, scales, quants, sums }
    }

    /// Values per row.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Values per scale (32 or 256).
    pub fn block(&self) -> usize {
        self.block
    }

    /// Rows.
    pub(crate) fn len(&self) -> usize {
        self.quants.len() / self.cols.max(1)
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> Q8Row<'_> {
        let (c, per) = (self.cols, self.cols / self.block);
        Q8Row {
            scales: &self.scales[i * per..(i + 1) * per],
            quants: &self.quants[i * c..(i + 1) * c],
            sums: &self.sums[i * c / QK..(i + 1) * c / QK],
            shift: (self.block / QK).trailing_zeros(),
        }
    }
}

impl Q8Row<'_> {
    /// The scale of the 32 values `32 k .. 32 k + 32`.
    #[inline(always)]
    pub fn scale(&self, k: usize) -> f32 {
        self.scales[k >> self.shift]
    }

    /// The rounded values as f32 (the exact reference of the integer kernels in the
    /// kernel check and the tests).
    pub fn dequantized(&self) -> Vec<f32> {
        self.quants.iter().enumerate().map(|(i, &q)| self.scale(i / QK) * f32::from(q)).collect()
    }

    /// The bound on how far `w · x` moves when `x` is replaced by this row's rounded
    /// values: `Σ_b d_b / 2 · Σ_{j in b} |w_j|` (tests).
    #[cfg(test)]
    pub fn rounding_bound(&self, w: &[f32]) -> f64 {
        w.chunks(QK)
            .enumerate()
            .map(|(k, wb)| {
                f64::from(self.scale(k)) / 2.0 * wb.iter().map(|v| f64::from(v.abs())).sum::<f64>()
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_within_half_a_step_and_sums_are_of_the_rounded_values() {
        let x: Vec<f32> = (0..96).map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0).collect();
        let a = Q8Activations::rows(&x, 96, 32);
        let r = a.row(0);
        assert_eq!(r.scales.len(), 3);
        let back = r.dequantized();
        for (i, (&v, &b)) in x.iter().zip(&back).enumerate() {
            assert!((v - b).abs() <= r.scales[i / QK] / 2.0 * 1.0001, "{i}: {v} vs {b}");
        }
        // The largest value of each block maps to ±127 exactly.
        for b in 0..3 {
            assert_eq!(
                r.quants[b * QK..(b + 1) * QK].iter().map(|q| q.unsigned_abs()).max(),
                Some(127)
            );
            let rounded: f32 = back[b * QK..(b + 1) * QK].iter().sum();
            assert!(
                (r.sums[b] - rounded).abs() <= 1e-5 * (1.0 + rounded.abs()),
                "block {b}: {} vs {rounded}",
                r.sums[b]
            );
        }
        // A block of zeros stays zero (no division by zero).
        let z = Q8Activations::rows(&[0.0; 32], 32, 32);
        assert_eq!((z.row(0).scales[0], z.row(0).quants.iter().all(|&q| q == 0)), (0.0, true));
    }

    #[test]
    fn rows_are_separate() {
        let x: Vec<f32> = (0..128).map(|i| if i < 64 { 1.0 } else { -100.0 }).collect();
        let a = Q8Activations::rows(&x, 64, 32);
        assert_eq!(a.row(0).scales, &[1.0 / 127.0; 2]);
        assert_eq!(a.row(1).scales, &[100.0 / 127.0; 2]);
        assert!(a.row(1).quants.iter().all(|&q| q == -127));
    }

    #[test]
    fn blocks_of_256_share_one_scale() {
        let x: Vec<f32> = (0..512)
            .map(|i| {
                if i == 3 {
                    127.0
                } else if i == 300 {
                    -254.0
                } else {
                    (i % 5) as f32 / 10.0
                }
            })
            .collect();
        let a = Q8Activations::rows(&x, 512, 256);
        let r = a.row(0);
        assert_eq!((r.scales, r.sums.len(), r.shift), (&[1.0, 2.0][..], 16, 3));
        assert_eq!((r.scale(7), r.scale(8)), (1.0, 2.0));
        assert_eq!((r.quants[3], r.quants[300], r.quants[1]), (127, -127, 0));
        assert_eq!(r.sums[9], 2.0 * r.quants[288..320].iter().map(|&q| f32::from(q)).sum::<f32>());
    }
}
