//! The workgroup folds of the GPU kernels (issue 33 step 4) and their host twins: the
//! units' values in shared memory are folded halves onto lower halves (`p[u] op= p[u +
//! half]` for `half` = n/2, n/4, ..., 1, a barrier after each step), so the result lands
//! in the first slot. RMSNorm (`gpu_norm.rs`) and the block mat-vec (`gpu_quantized.rs`)
//! sum, attention (`gpu_attention.rs`) sums and takes maxima, the masked argmax and the
//! top lists (`gpu_argmax.rs`, `gpu_top.rs`) keep the best (value, id) and sum; the twins
//! repeat the order of the additions, which the kernel checks compare to the last bit's
//! neighbourhood (the best candidate is exact).

/// The sum fold on the host: `p[u] += p[u + half]`; returns `p[0]`.
pub(crate) fn fold_sum(p: &mut [f32]) -> f32 {
    let mut half = p.len() / 2;
    while half > 0 {
        for u in 0..half {
            p[u] += p[u + half];
        }
        half /= 2;
    }
    p[0]
}

/// The maximum fold on the host: `p[u] = max(p[u], p[u + half])`; returns `p[0]`.
pub(crate) fn fold_max(p: &mut [f32]) -> f32 {
    let mut half = p.len() / 2;
    while half > 0 {
        for u in 0..half {
            if p[u + half] > p[u] {
                p[u] = p[u + half];
            }
        }
        half /= 2;
    }
    p[0]
}

#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
pub(crate) use device::{fold_best_shared, fold_max_shared};
#[cfg(any(feature = "wgpu", feature = "cuda"))]
pub(crate) use device::{fold_sum_all_shared, fold_sum_shared};

#[cfg(any(feature = "wgpu", feature = "cuda"))]
mod device {
    use cubecl::prelude::*;

    /// The sum fold over the workgroup's x units: unit `lane` adds `p[at + half]` into
    /// `p[at]` while `lane < half`; the sum of `p[at - lane..][..CUBE_DIM_X]` lands in
    /// `p[at - lane]`. Every unit of the workgroup calls it (it waits at barriers).
    #[cube]
    pub(crate) fn fold_sum_shared(p: &mut [f32], at: usize, lane: usize) {
        // A runtime bound (the workgroup's x size): a comptime one would make the loop's
        // counter a compile-time value.
        let mut half = usize::cast_from(CUBE_DIM_X) / 2;
        while half > 0 {
            if lane < half {
                p[at] += p[at + half];
            }
            sync_cube();
            half /= 2;
        }
    }

    /// The sum fold over all the workgroup's units (unit `u` of `CUBE_DIM` owns `p[u]`):
    /// the sum lands in `p[0]`. Every unit of the workgroup calls it (it waits at
    /// barriers). The block mat-vec's RMSNorm prologue (`gpu_matvec.rs`).
    #[cube]
    pub(crate) fn fold_sum_all_shared(p: &mut [f32], u: usize) {
        let mut half = usize::cast_from(CUBE_DIM) / 2;
        while half > 0 {
            if u < half {
                p[u] += p[u + half];
            }
            sync_cube();
            half /= 2;
        }
    }

    /// The maximum fold over the workgroup's x units (unit `u` owns `p[u]`): the largest
    /// lands in `p[0]`. Every unit of the workgroup calls it (it waits at barriers).
    /// Attention's softmax uses it, outside the fused build.
    #[cfg(not(feature = "fusion"))]
    #[cube]
    pub(crate) fn fold_max_shared(p: &mut [f32], u: usize) {
        let mut half = usize::cast_from(CUBE_DIM_X) / 2;
        while half > 0 {
            // Nested, not `&&`: cubecl evaluates both sides, and `p[u + half]` is past
            // the slice for the upper half's units.
            #[allow(clippy::collapsible_if)]
            if u < half {
                if p[u + half] > p[u] {
                    p[u] = p[u + half];
                }
            }
            sync_cube();
            half /= 2;
        }
    }

    /// The best-candidate fold over the workgroup's x units (unit `u` owns `values[u]`
    /// and `ids[u]`, `u32::MAX` for none): a candidate beats another with a higher
    /// value, or an equal one and a lower id, and any beats none; the best lands in
    /// slot 0 (the masked argmax and the top lists: the CPU sampler's order). Every unit
    /// of the workgroup calls it (it waits at barriers).
    #[cfg(not(feature = "fusion"))]
    #[cube]
    pub(crate) fn fold_best_shared(values: &mut [f32], ids: &mut [u32], u: usize) {
        let mut half = usize::cast_from(CUBE_DIM_X) / 2;
        while half > 0 {
            if u < half {
                let (a, b) = (ids[u], ids[u + half]);
                let (va, vb) = (values[u], values[u + half]);
                let beats = b != 4294967295u32
                    && (a == 4294967295u32 || vb > va || (vb == va && b < a));
                if beats {
                    values[u] = vb;
                    ids[u] = b;
                }
            }
            sync_cube();
            half /= 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_sum_adds_halves() {
        let mut p: Vec<f32> = (1..=8).map(|i| i as f32).collect();
        assert_eq!(fold_sum(&mut p), 36.0);
    }

    #[test]
    fn fold_max_keeps_the_largest() {
        let mut p = [3.0, -1.0, 7.5, 2.0, f32::NEG_INFINITY, 7.0, 0.0, 1.0];
        assert_eq!(fold_max(&mut p), 7.5);
    }
}
