//! The CPU kernels' self-check: every kernel of the best implementation compiled in
//! (AVX2 natively, simd128 in wasm) against its portable twin and against exact (f64)
//! sums of the dequantized weights, on deterministic pseudo-random data.
//!
//! Public so that it runs where `cargo test` cannot: the wasm builds under node
//! (`bench/model-wasm-kernels`, the wasm kernel check of `scripts/test.sh`, built with
//! debug assertions; `bench/model-wasm`, `node run.mjs --check`) call [`run`] and fail
//! on any disagreement; natively a unit test calls it too.

use half::f16;

use super::host_attention::{attend, Heads, HostKv};
use super::host_kernels::{axpy, block_sums, dot_f32, dot_q4_1, dot_q8};
use super::int_dot;
use super::q8_activations::{Q8Activations, Q8Row};
use crate::formats::QK;
use crate::test_data::{quant_blocks, values, varied, Q4_1Fields, BLOCK_TYPES};
use crate::{GgmlType, Isa};

/// What [`run`] found.
#[derive(Clone, Debug)]
pub struct KernelCheck {
    /// The implementation checked against the portable one (`avx2`, `simd128`, or
    /// `portable` where there is no other).
    pub isa: &'static str,
    /// Comparisons made.
    pub cases: usize,
    /// Largest error relative to `1 + |exact|` over all cases and implementations.
    pub max_error: f64,
    /// One line per case outside the tolerance (empty when all agree).
    pub failures: Vec<String>,
}

/// Tolerance relative to `1 + |exact|` (f32 sums of up to 1,536 products).
const TOLERANCE: f64 = 1e-4;

/// Runs every kernel on data of several lengths (with and without tails, one block to
/// a full SmolLM2 row) and compares.
pub fn run() -> KernelCheck {
    let best = Isa::best();
    let mut check =
        KernelCheck { isa: best.name(), cases: 0, max_error: 0.0, failures: Vec::new() };
    for isa in [Isa::Portable, best] {
        check_f32(&mut check, isa);
        check_q8(&mut check, isa);
        check_q4_1(&mut check, isa);
        check_int8(&mut check, isa);
        check_gemm_q4_1(&mut check, isa);
    }
    check_attention(&mut check, best);
    check
}

impl KernelCheck {
    fn compare(&mut self, what: String, got: f32, want: f64) {
        self.cases += 1;
        let err = (f64::from(got) - want).abs() / (1.0 + want.abs());
        self.max_error = self.max_error.max(if err.is_nan() { f64::INFINITY } else { err });
        if err.is_nan() || err > TOLERANCE {
            self.failures.push(format!("{what}: got {got}, exact {want}"));
        }
    }
}

fn exact(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(&x, &y)| f64::from(x) * f64::from(y)).sum()
}

fn check_f32(check: &mut KernelCheck, isa: Isa) {
    for n in [1usize, 3, 4, 15, 16, 33, 64, 576, 1536] {
        let (a, b) = (values(n, n as u64), values(n, 7 * n as u64 + 1));
        check.compare(format!("dot_f32 {} n={n}", isa.name()), dot_f32(isa, &a, &b), exact(&a, &b));
        // A single non-zero element at every position must show up (skipped tails).
        for pos in 0..n.min(40) {
            let mut e = vec![0f32; n];
            e[pos] = 2.0;
            check.compare(
                format!("dot_f32 {} n={n} unit {pos}", isa.name()),
                dot_f32(isa, &e, &b),
                2.0 * f64::from(b[pos]),
            );
        }
        let mut o = a.clone();
        axpy(isa, 0.37, &b, &mut o);
        for (k, (&o, (&a, &b))) in o.iter().zip(a.iter().zip(&b)).enumerate() {
            check.compare(
                format!("axpy {} n={n} at {k}", isa.name()),
                o,
                f64::from(a) + 0.37 * f64::from(b),
            );
        }
    }
}

fn check_q8(check: &mut KernelCheck, isa: Isa) {
    for blocks in [1usize, 2, 3, 18, 48] {
        let n = blocks * QK;
        let x = values(n, blocks as u64 + 3);
        let scales: Vec<f32> = values(blocks, 99).iter().map(|v| v.abs() / 64.0 + 1e-3).collect();
        let mut quants: Vec<i8> = values(n, 5).iter().map(|v| (v * 127.0) as i8).collect();
        // The extremes of the range must convert exactly.
        quants[0] = -128;
        quants[n - 1] = 127;
        let deq: Vec<f32> =
            quants.iter().enumerate().map(|(i, &q)| scales[i / QK] * f32::from(q)).collect();
        check.compare(
            format!("dot_q8 {} blocks={blocks}", isa.name()),
            dot_q8(isa, &scales, &quants, &x),
            exact(&deq, &x),
        );
    }
}

fn check_q4_1(check: &mut KernelCheck, isa: Isa) {
    for blocks in [1usize, 2, 3, 18, 48] {
        let n = blocks * QK;
        let x = values(n, 11 + blocks as u64);
        let mut q = Q4_1Fields::new(blocks, 12);
        q.nibbles[0] = 0xff;
        q.nibbles[n / 2 - 1] = 0x0f;
        let deq = q.dequantized();
        let got = dot_q4_1(isa, &q.d, &q.m, &q.nibbles, &x, &block_sums(&x));
        check.compare(format!("dot_q4_1 {} blocks={blocks}", isa.name()), got, exact(&deq, &x));
    }
}

/// The integer dot product of `ty`'s blocks with one row of 8-bit activations, through
/// the entry point the model calls for that type (Q8_0 and Q4_1 take split fields).
fn int8_dot(isa: Isa, ty: GgmlType, bytes: &[u8], row: Q8Row<'_>) -> f32 {
    let f16_at = |b: &[u8], i: usize| f16::from_le_bytes([b[i], b[i + 1]]).to_f32();
    match ty {
        GgmlType::Q8_0 => {
            let scales: Vec<f32> = bytes.chunks_exact(34).map(|b| f16_at(b, 0)).collect();
            let quants: Vec<i8> =
                bytes.chunks_exact(34).flat_map(|b| b[2..].iter().map(|&v| v as i8)).collect();
            int_dot::dot_q8_0(isa, &scales, &quants, row)
        }
        GgmlType::Q4_1 => {
            let d: Vec<f32> = bytes.chunks_exact(20).map(|b| f16_at(b, 0)).collect();
            let m: Vec<f32> = bytes.chunks_exact(20).map(|b| f16_at(b, 2)).collect();
            let nibbles: Vec<u8> =
                bytes.chunks_exact(20).flat_map(|b| b[4..].iter().copied()).collect();
            int_dot::dot_q4_1(isa, &d, &m, &nibbles, row)
        }
        _ => int_dot::dot_blocks(isa, ty, bytes, row),
    }
}

/// The integer kernels (8-bit activations) of every type `isa` has them for, against
/// the exact sum of the dequantized weights times the rounded activations (the integer
/// sums are exact, so only the float combination rounds).
fn check_int8(check: &mut KernelCheck, isa: Isa) {
    let types = [GgmlType::Q8_0, GgmlType::Q4_1].into_iter().chain(BLOCK_TYPES);
    for ty in types.filter(|&ty| int_dot::has_kernel(isa, ty)) {
        // 19 blocks: the AVX2 kernels' eight-block stretches and a tail.
        for blocks in [1usize, 2, 6, 19] {
            let n = blocks * ty.block_len();
            let bytes = quant_blocks(ty, blocks, 40 + blocks as u64);
            let mut w = vec![0f32; n];
            ty.dequantize(&bytes, &mut w);
            let x = varied(n, 41 + blocks as u64, 7);
            let q = Q8Activations::rows(&x, n, int_dot::activation_block(ty));
            let row = q.row(0);
            let rounded = row.dequantized();
            let got = int8_dot(isa, ty, &bytes, row);
            check.compare(
                format!("int8 {} {} blocks={blocks}", ty.name(), isa.name()),
                got,
                exact(&w, &rounded),
            );
        }
    }
}

/// Prefill's Q4_1 product (`int_dot::gemm_q4_1`: tiles of up to 8 tokens on AVX2 and
/// simd128) for 1 to 19 tokens (every tile width, and a second and third tile) against
/// the exact sums of the dequantized weights times each token's rounded activations:
/// a skipped block, row, token or minimum term fails.
fn check_gemm_q4_1(check: &mut KernelCheck, isa: Isa) {
    let (rows, cols) = (5usize, 576usize);
    let nb = cols / QK;
    let q4 = Q4_1Fields::new(rows * nb, 61);
    let w = q4.dequantized();
    for t in [1usize, 2, 3, 4, 5, 6, 7, 8, 9, 16, 19] {
        // Rows of different magnitudes, so a token read with another's scale is far off.
        let x: Vec<f32> = values(t * cols, 64 + t as u64)
            .iter()
            .enumerate()
            .map(|(k, v)| v * (1 + (k / cols) % 5) as f32)
            .collect();
        let q = Q8Activations::rows(&x, cols, QK);
        let mut out = vec![f32::NAN; rows * t];
        int_dot::gemm_q4_1(isa, q4.as_rows(rows), &q, t, &mut out);
        for i in 0..t {
            let rounded = q.row(i).dequantized();
            for r in 0..rows {
                let want = exact(&w[r * cols..(r + 1) * cols], &rounded);
                check.compare(
                    format!("gemm_q4_1 {} t={t} row={r} token={i}", isa.name()),
                    out[r * t + i],
                    want,
                );
            }
        }
    }
}

/// Decode-shaped attention (one to five new rows; the row kernel, which takes the isa)
/// of the best implementation against the portable one.
fn check_attention(check: &mut KernelCheck, best: Isa) {
    let h = Heads { heads: 9, kv_heads: 3, head_dim: 64 };
    for (past, t) in [(0usize, 1usize), (7, 1), (70, 3), (300, 5)] {
        let mut kv = HostKv::default();
        let old = values(past * h.qkv_width(), 21 + past as u64);
        let new = values(t * h.qkv_width(), 22 + t as u64);
        kv.append_from_qkv(&old, past, h);
        kv.append_from_qkv(&new, t, h);
        let want = attend(Isa::Portable, &new, t, past, &kv, h);
        let got = attend(best, &new, t, past, &kv, h);
        for (k, (&g, &w)) in got.iter().zip(&want).enumerate() {
            check.compare(
                format!("attention {} past={past} t={t} at {k}", best.name()),
                g,
                f64::from(w),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn best_kernels_agree_with_portable_and_exact_sums() {
        let check = super::run();
        assert!(check.cases > 1000, "only {} cases", check.cases);
        assert!(
            check.failures.is_empty(),
            "{} ({}): {:#?}",
            check.isa,
            check.cases,
            check.failures
        );
    }
}
