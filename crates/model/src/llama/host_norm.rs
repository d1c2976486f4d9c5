//! RMSNorm of host rows, for the host path of the transformer blocks (CPU weight
//! formats), where the residual stream stays in host memory between the kernels.
//!
//! Why by hand: burn's `rms_norm` on the ndarray backend (`mod.rs`) was a fifth of a
//! prompt's time in wasm (node's profile of the wasm bench: 1.2 s in ndarray's
//! element-wise `mul`, against 3.0 s in every Q4_1 product), and each block also copied
//! its rows out of and back into tensors. It computes burn's result value for value
//! (the test below compares bits): `mean(x²)` summed in ndarray's order
//! (`ArrayBase::sum` -> `numeric_util::unrolled_fold`: eight running sums, combined as
//! `((((0 + (p0 + p4)) + (p1 + p5)) + (p2 + p6)) + (p3 + p7))`, then the tail) divided
//! by the width, `1 / sqrt(mean + eps)`, then `(x · r) · w`. Any other summation order
//! moves the last bits, which the next product's 8-bit rounding can turn into a
//! different greedy token (as a simpler SiLU did: `feed_forward.rs`).

/// `x · w / sqrt(mean(x²) + eps)` for each row of `x` (`[t][w.len()]`).
pub(crate) fn rms_norm_rows(x: &[f32], w: &[f32], eps: f32) -> Vec<f32> {
    let cols = w.len();
    let mut out = vec![0f32; x.len()];
    for (o, row) in out.chunks_exact_mut(cols).zip(x.chunks_exact(cols)) {
        let mean = sum_of_squares(row) / cols as f32;
        let r = 1.0 / (mean + eps).sqrt();
        for ((o, &v), &w) in o.iter_mut().zip(row).zip(w) {
            *o = v * r * w;
        }
    }
    out
}

/// `Σ v²` in the order of ndarray's `unrolled_fold` (see the module).
fn sum_of_squares(row: &[f32]) -> f32 {
    let mut p = [0f32; 8];
    let mut chunks = row.chunks_exact(8);
    for c in &mut chunks {
        for (p, &v) in p.iter_mut().zip(c) {
            *p += v * v;
        }
    }
    let mut acc = 0f32;
    for k in 0..4 {
        acc += p[k] + p[k + 4];
    }
    for &v in chunks.remainder() {
        acc += v * v;
    }
    acc
}

/// `x += y`, element by element (burn's `x + y` on same-shape tensors).
pub(crate) fn add_rows(x: &mut [f32], y: &[f32]) {
    x.iter_mut().zip(y).for_each(|(x, y)| *x += y);
}

#[cfg(test)]
mod tests {
    use burn::tensor::{Tensor, TensorData};

    use super::*;

    /// Equal bit for bit to `mod.rs`'s burn `rms_norm` on the default (ndarray)
    /// device, for SmolLM2's width and widths with a tail, one row and a prompt's rows,
    /// values over several magnitudes.
    #[test]
    fn rms_norm_rows_equal_burn_bit_for_bit() {
        let device = super::super::backend::cpu_test_device();
        for (t, cols) in [(1usize, 576usize), (7, 576), (60, 576), (3, 100), (2, 13), (4, 5)] {
            let mut s = 0x9e37_79b9_7f4a_7c15u64 ^ (t * cols) as u64;
            let mut next = || {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
            };
            let x: Vec<f32> =
                (0..t * cols).map(|i| next() * 10f32.powi((i % 7) as i32 - 3)).collect();
            let w: Vec<f32> = (0..cols).map(|_| next() * 3.0).collect();
            let want = super::super::rms_norm(
                Tensor::<2>::from_data(TensorData::new(x.clone(), [t, cols]), &device),
                &Tensor::<2>::from_data(TensorData::new(w.clone(), [1, cols]), &device),
                1e-5,
            );
            let want = want.into_data().try_into_vec::<f32>().unwrap();
            let got = rms_norm_rows(&x, &w, 1e-5);
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g.to_bits(), w.to_bits(), "t={t} cols={cols} at {k}: {g} vs burn {w}");
            }
        }
    }
}
