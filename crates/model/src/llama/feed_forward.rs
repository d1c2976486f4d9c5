//! A block's feed-forward layer, `down(silu(gate(h)) * up(h))` (SwiGLU), on whichever
//! side its weights are: burn tensors for the burn formats, host rows for the CPU
//! kernels. On the host the activation is one fused pass, parallel over a prompt's
//! rows (burn's `silu` on the ndarray backend ran on one thread: a tenth of a prompt's
//! time on two cores). It computes burn's own formula, `x · e^(-ln(1 + e^-x))`, value
//! for value: the simpler `x / (1 + e^-x)` differs in the last bits, and through the
//! 8-bit rounding of the next product's activations that moved SmolLM2's chat logits by
//! up to 0.26 and its greedy ids off llama.cpp's at step 23 of 128 (`model_golden`).

use burn::tensor::{Device, Tensor, TensorData};

use super::linear::{host_rows, Linear};
use super::ModelError;

/// The feed-forward output for `h` (`[t, hidden]`); `gate_up` holds the gate rows then
/// the up rows (`2 * ffn` outputs).
pub(crate) fn feed_forward(
    gate_up: &Linear,
    down: &Linear,
    h: Tensor<2>,
    ffn: usize,
    device: &Device,
) -> Result<Tensor<2>, ModelError> {
    if let (Linear::Host(_), Linear::Host(d)) = (gate_up, down) {
        let t = h.dims()[0];
        let y = feed_forward_rows(gate_up, down, &host_rows(h)?, t, ffn, device)?;
        return Ok(Tensor::from_data(TensorData::new(y, [t, d.rows()]), device));
    }
    let gu = gate_up.forward(h)?;
    let gate = gu.clone().narrow(1, 0, ffn);
    let up = gu.narrow(1, ffn, ffn);
    down.forward(burn::tensor::activation::silu(gate) * up)
}

/// The feed-forward output for host rows `h` (`[t][hidden]`), as host rows.
pub(crate) fn feed_forward_rows(
    gate_up: &Linear,
    down: &Linear,
    h: &[f32],
    t: usize,
    ffn: usize,
    device: &Device,
) -> Result<Vec<f32>, ModelError> {
    let gu = gate_up.forward_host(h, t, device)?;
    down.forward_host(&swiglu_rows(&gu, ffn), t, device)
}

/// `silu(g) * u` for rows `[g (ffn) | u (ffn)]`; returns `[t][ffn]`.
pub(crate) fn swiglu_rows(gu: &[f32], ffn: usize) -> Vec<f32> {
    let mut out = vec![0f32; gu.len() / 2];
    let row = |(o, gu): (&mut [f32], &[f32])| {
        let (g, u) = gu.split_at(ffn);
        for ((o, &g), &u) in o.iter_mut().zip(g).zip(u) {
            *o = silu(g) * u;
        }
    };
    #[cfg(not(target_family = "wasm"))]
    if out.len() > ffn {
        use rayon::prelude::*;
        out.par_chunks_exact_mut(ffn).zip(gu.par_chunks_exact(2 * ffn)).for_each(row);
        return out;
    }
    out.chunks_exact_mut(ffn).zip(gu.chunks_exact(2 * ffn)).for_each(row);
    out
}

/// burn's `silu` on the ndarray backend, value for value: `x · sigmoid(x)` with
/// `sigmoid(x) = e^(-ln(1 + e^-x))`.
#[inline]
fn silu(x: f32) -> f32 {
    x * (-((-x).exp() + 1.0).ln()).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fused rows equal `silu(g) * u` computed value by value in f64, on both the
    /// one-row and the parallel several-row paths, and burn's `silu` bit for bit.
    #[test]
    fn swiglu_rows_equal_silu_times_up() {
        let ffn = 40;
        for t in [1usize, 5] {
            let gu: Vec<f32> =
                (0..t * 2 * ffn).map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0).collect();
            let out = swiglu_rows(&gu, ffn);
            assert_eq!(out.len(), t * ffn);
            for r in 0..t {
                for j in 0..ffn {
                    let (g, u) =
                        (f64::from(gu[r * 2 * ffn + j]), f64::from(gu[r * 2 * ffn + ffn + j]));
                    let want = g / (1.0 + (-g).exp()) * u;
                    let got = f64::from(out[r * ffn + j]);
                    assert!(
                        (got - want).abs() <= 1e-5 * want.abs().max(1.0),
                        "row {r} col {j}: {got} vs {want}"
                    );
                }
            }
        }
        let g: Vec<f32> = (0..64).map(|i| (i as f32 - 32.0) / 3.0).collect();
        let device = super::super::backend::cpu_test_device();
        let burn = burn::tensor::activation::silu(Tensor::<1>::from_floats(g.as_slice(), &device));
        let burn = burn.into_data().try_into_vec::<f32>().unwrap();
        for (x, b) in g.iter().zip(burn) {
            assert_eq!(silu(*x).to_bits(), b.to_bits(), "silu({x})");
        }
    }
}
