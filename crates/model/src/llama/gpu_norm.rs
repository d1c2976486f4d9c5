//! RMSNorm of activation rows in one launch on a cubecl GPU (issue 33 step 4): burn's
//! `rms_norm` (`mod.rs`) is seven element-wise launches without `fusion` (square, mean,
//! add, sqrt, recip, two products); this kernel is one workgroup of [`UNITS`] per row.
//! Unit `u` sums the squares of elements `u, u + UNITS, ...` of its row, the units' sums
//! fold in shared memory (halves added to the lower half), then every unit writes its
//! elements as `x · r · w` with `r = 1 / sqrt(Σ / cols + eps)`. [`rms_norm_twin`] repeats
//! that order on the host.

use super::gpu_fold::fold_sum;

/// Units of a row's workgroup (a power of two: the fold halves it).
pub(crate) const UNITS: usize = 128;

/// The kernel's arithmetic on the host, in its order: `x` `[t][w.len()]`.
pub(crate) fn rms_norm_twin(x: &[f32], w: &[f32], eps: f32) -> Vec<f32> {
    rms_norm_twin_units(x, w, eps, UNITS)
}

/// [`rms_norm_twin`] with `units` units a row (a power of two): unit `u` sums the squares
/// of elements `u, u + units, ...`, then the fold. The block mat-vec's RMSNorm prologue
/// (`gpu_matvec.rs`) sums with its workgroup's units (`RowSplit::units`).
pub(crate) fn rms_norm_twin_units(x: &[f32], w: &[f32], eps: f32, units: usize) -> Vec<f32> {
    let cols = w.len();
    let mut out = vec![0f32; x.len()];
    for (o, row) in out.chunks_exact_mut(cols).zip(x.chunks_exact(cols)) {
        let mut partials = vec![0f32; units];
        for (u, p) in partials.iter_mut().enumerate() {
            *p = row.iter().skip(u).step_by(units).fold(0.0, |acc, &v| acc + v * v);
        }
        let r = 1.0 / (fold_sum(&mut partials) / cols as f32 + eps).sqrt();
        for ((o, &v), &w) in o.iter_mut().zip(row).zip(w) {
            *o = v * r * w;
        }
    }
    out
}

#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
pub(crate) use device::rms_norm;

#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
mod device {
    use burn::tensor::Tensor;
    use cubecl::prelude::*;

    use super::super::gpu_fold::fold_sum_shared;
    use super::super::gpu_tensor::{arg, cube, empty, tensor};
    use super::super::ModelError;
    use super::UNITS;

    /// `out[row] = x[row] · w / sqrt(mean(x[row]²) + eps)`; cube `row` does row `row`.
    #[cube(launch_unchecked)]
    fn rms_norm_rows(x: &[f32], w: &[f32], out: &mut [f32], cols: usize, eps: f32) {
        let unit = usize::cast_from(UNIT_POS_X);
        let units = comptime![UNITS];
        let base = usize::cast_from(CUBE_POS_X) * cols;
        let mut partials = Shared::<[f32]>::new_slice(comptime![UNITS]);
        let mut acc = 0.0f32;
        let mut i = unit;
        while i < cols {
            let v = x[base + i];
            acc += v * v;
            i += units;
        }
        partials[unit] = acc;
        sync_cube();
        fold_sum_shared(&mut partials, unit, unit);
        let r = 1.0f32 / (partials[0] / f32::cast_from(cols) + eps).sqrt();
        let mut j = unit;
        while j < cols {
            out[base + j] = x[base + j] * r * w[j];
            j += units;
        }
    }

    /// RMSNorm of `x` (`[t, cols]`) with weights `w` (`[1, cols]`), in one launch.
    pub(crate) fn rms_norm(x: Tensor<2>, w: &Tensor<2>, eps: f32) -> Result<Tensor<2>, ModelError> {
        let [t, cols] = x.dims();
        if w.dims() != [1, cols] {
            return Err(ModelError::Execution(format!(
                "GPU RMSNorm: weights {:?} for rows of {cols}",
                w.dims()
            )));
        }
        let x = cube(x, "GPU RMSNorm")?;
        let w = cube(w.clone(), "GPU RMSNorm")?;
        let out = empty(&x, &[t, cols]);
        // SAFETY: x and out hold t rows of cols, w one; cube `row` < t touches its row only.
        unsafe {
            rms_norm_rows::launch_unchecked(
                &x.client,
                CubeCount::Static(t as u32, 1, 1),
                CubeDim::new_1d(UNITS as u32),
                arg(&x),
                arg(&w),
                arg(&out),
                cols,
                eps,
            )
        };
        Ok(tensor(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The twin (the kernel's order) stays within float rounding of the burn path's
    /// host norm (ndarray's order), over SmolLM2's width, a tail, and a row narrower
    /// than the workgroup, with the norm kernel's units and the mat-vec's 64.
    #[test]
    fn the_twin_is_rms_norm() {
        for (t, cols, units) in [(1usize, 576usize, UNITS), (3, 100, UNITS), (2, 1000, UNITS), (1, 576, 64), (2, 96, 64)] {
            let x: Vec<f32> = (0..t * cols).map(|i| ((i * 37 % 101) as f32 - 50.0) / 9.0).collect();
            let w: Vec<f32> = (0..cols).map(|i| ((i * 13 % 17) as f32 - 8.0) / 4.0).collect();
            let got = rms_norm_twin_units(&x, &w, 1e-5, units);
            let want = super::super::host_norm::rms_norm_rows(&x, &w, 1e-5);
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (g - w).abs() <= 1e-5 * (1.0 + w.abs()),
                    "t={t} cols={cols} units={units} at {k}: {g} vs {w}"
                );
            }
        }
    }
}
