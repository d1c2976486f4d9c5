//! What the GPU self-check found ([`GpuKernelCheck`]) and how one case is recorded in it:
//! the largest error of a kernel's output against its host twin, relative to `1 + |host|`.
//! Shared by the block-kernel check (`gpu_kernel_check.rs`) and the checks of the kernels
//! around the products (`gpu_fused_check.rs`), which both add to one report.

/// What the self-check (`gpu_kernel_check.rs`'s `run`) found.
#[derive(Clone, Debug, Default)]
pub struct GpuKernelCheck {
    /// One line per case: its shape and largest error.
    pub lines: Vec<String>,
    /// Largest error relative to `1 + |host|` over all cases.
    pub max_error: f64,
    /// One line per case outside the tolerance (empty when all agree).
    pub failures: Vec<String>,
}

impl GpuKernelCheck {
    /// Adds the case `name`'s line to the report, and a failure where `got` has another
    /// length than `want` or differs by more than `tolerance` relative to `1 + |want|`
    /// (NaN counts as an infinite error).
    pub(crate) fn record(&mut self, name: &str, got: &[f32], want: &[f32], tolerance: f64) {
        let (worst, at) = largest_error(got, want);
        self.max_error = self.max_error.max(worst);
        let (g, w) =
            (got.get(at).copied().unwrap_or(f32::NAN), want.get(at).copied().unwrap_or(f32::NAN));
        self.lines.push(format!("{name}: largest error {worst:.2e} at {at} ({g} vs host {w})"));
        if got.len() != want.len() || worst > tolerance {
            self.failures.push(format!(
                "{name}: {} values for {}, largest error {worst:.2e} at {at}: {g} vs host {w}",
                got.len(),
                want.len()
            ));
        }
    }
}

/// The largest error relative to `1 + |want|` and its index (NaN as infinity).
fn largest_error(got: &[f32], want: &[f32]) -> (f64, usize) {
    let (mut worst, mut at) = (0f64, 0usize);
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let err = (f64::from(g) - f64::from(w)).abs() / (1.0 + f64::from(w).abs());
        let err = if err.is_nan() { f64::INFINITY } else { err };
        if err > worst {
            (worst, at) = (err, i);
        }
    }
    (worst, at)
}
