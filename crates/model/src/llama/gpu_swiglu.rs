//! The feed-forward's gate, `silu(gate) · up`, in one launch on a cubecl GPU (issue 33
//! step 4): the burn path (`feed_forward.rs`: two `narrow`s, `silu`, a product, and the
//! copy the down projection's kernel makes of the non-contiguous result) is ~5 launches
//! per layer without `fusion`. Cube (c, row), unit `u` computes element
//! `c · UNITS + u` of row `row` from the gate/up product's row `[gate (ffn) | up (ffn)]`,
//! with the host path's formula `g · e^(-ln(1 + e^-g)) · u` (`feed_forward::swiglu_rows`,
//! the twin: the GPU's `exp` / `ln` round differently in the last bits).

#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
pub(crate) use device::swiglu;

#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
mod device {
    use burn::tensor::Tensor;
    use cubecl::prelude::*;

    use super::super::gpu_tensor::{arg, cube, empty, tensor};
    use super::super::ModelError;

    /// Units of a workgroup.
    const UNITS: usize = 256;

    /// See the module.
    #[cube(launch_unchecked)]
    fn swiglu_rows(gu: &[f32], out: &mut [f32], ffn: usize) {
        let j = usize::cast_from(CUBE_POS_X) * comptime![UNITS] + usize::cast_from(UNIT_POS_X);
        let r = usize::cast_from(CUBE_POS_Y);
        if j < ffn {
            let g = gu[r * 2 * ffn + j];
            let up = gu[r * 2 * ffn + ffn + j];
            out[r * ffn + j] = g * (-((-g).exp() + 1.0f32).ln()).exp() * up;
        }
    }

    /// `silu(gate) · up` of `gu` (`[t, 2 ffn]`: gate then up); `[t, ffn]`.
    pub(crate) fn swiglu(gu: Tensor<2>, ffn: usize) -> Result<Tensor<2>, ModelError> {
        let [t, width] = gu.dims();
        if width != 2 * ffn {
            return Err(ModelError::Execution(format!(
                "GPU SwiGLU: rows of {width} for a feed-forward of {ffn}"
            )));
        }
        let gu = cube(gu, "GPU SwiGLU")?;
        let out = empty(&gu, &[t, ffn]);
        // SAFETY: unit (j, row) reads row `row`'s j and ffn + j (j < ffn checked in the
        // kernel) and writes out[row][j]; row < t.
        unsafe {
            swiglu_rows::launch_unchecked(
                &gu.client,
                CubeCount::Static(ffn.div_ceil(UNITS) as u32, t as u32, 1),
                CubeDim::new_1d(UNITS as u32),
                arg(&gu),
                arg(&out),
                ffn,
            )
        };
        Ok(tensor(out))
    }
}
