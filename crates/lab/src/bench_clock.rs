//! The two clocks every benchmark of the lab reads: the wall clock and the thread's
//! CPU clock (`CLOCK_THREAD_CPUTIME_ID` on Linux, none elsewhere), which a loaded
//! machine does not inflate; and the 1-minute load average printed beside the figures.

use std::time::Instant;

use espalier_constraint::timing::thread_cpu_ns;

/// A span being timed on both clocks.
pub(crate) struct Clock {
    wall: Instant,
    cpu_ns: Option<u64>,
}

/// What a [`Clock`] read at the end of its span.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Span {
    /// Wall time, in seconds.
    pub wall_s: f64,
    /// On-CPU time of the thread, in nanoseconds (`None` where the platform has no
    /// thread clock).
    pub cpu_ns: Option<u64>,
}

impl Span {
    /// The on-CPU time in microseconds.
    pub(crate) fn cpu_us(&self) -> Option<f64> {
        self.cpu_ns.map(us)
    }

    /// The on-CPU time in milliseconds.
    pub(crate) fn cpu_ms(&self) -> Option<f64> {
        self.cpu_ns.map(ms)
    }
}

impl Clock {
    /// Starts a span: the CPU clock first, then the wall clock.
    pub(crate) fn start() -> Clock {
        let cpu_ns = thread_cpu_ns();
        Clock { wall: Instant::now(), cpu_ns }
    }

    /// Ends the span: the wall clock first, then the CPU clock.
    pub(crate) fn stop(&self) -> Span {
        let wall_s = self.wall.elapsed().as_secs_f64();
        Span { wall_s, cpu_ns: cpu_since(self.cpu_ns) }
    }
}

/// Runs `f` as one span.
pub(crate) fn timed<T>(f: impl FnOnce() -> T) -> (T, Span) {
    let clock = Clock::start();
    let out = f();
    (out, clock.stop())
}

/// Runs `f` timed on the thread's CPU clock alone (no wall clock read inside the span:
/// for work of a microsecond or less); the nanoseconds, `None` without a thread clock.
pub(crate) fn cpu_timed<T>(f: impl FnOnce() -> T) -> (T, Option<u64>) {
    let before = thread_cpu_ns();
    let out = f();
    (out, cpu_since(before))
}

/// Nanoseconds on the thread's CPU clock since it read `before`.
fn cpu_since(before: Option<u64>) -> Option<u64> {
    Some(thread_cpu_ns()?.saturating_sub(before?))
}

/// Nanoseconds in microseconds.
pub(crate) fn us(ns: u64) -> f64 {
    ns as f64 / 1e3
}

/// Nanoseconds in milliseconds.
pub(crate) fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// The 1-minute load average (Linux), so that a reader can tell a quiet run.
pub(crate) fn load_avg_1m() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}

/// Ascending copy of `samples`, for [`espalier_constraint::timing::percentile`].
pub(crate) fn sorted(samples: &[f64]) -> Vec<f64> {
    let mut out = samples.to_vec();
    out.sort_by(f64::total_cmp);
    out
}

/// `x` rounded to two decimals.
pub(crate) fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// `x` rounded to three decimals.
pub(crate) fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The mean of `samples` (0 for none).
pub(crate) fn mean(samples: &[f64]) -> f64 {
    if samples.is_empty() {
        0.0
    } else {
        samples.iter().sum::<f64>() / samples.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_counts_the_work_inside_it() {
        let (sum, span) = timed(|| (0..200_000u64).map(std::hint::black_box).sum::<u64>());
        assert_eq!(sum, 199_999 * 200_000 / 2);
        assert!(span.wall_s > 0.0);
        if cfg!(target_os = "linux") {
            assert!(span.cpu_us().is_some_and(|c| c > 0.0), "{span:?}");
        }
    }

    #[test]
    fn rounding_means_and_order() {
        assert_eq!(round2(1.23456), 1.23);
        assert_eq!((us(1500), ms(2_500_000)), (1.5, 2.5));
        assert_eq!(round3(1.23456), 1.235);
        assert_eq!(mean(&[]), 0.0);
        assert_eq!(mean(&[1.0, 2.0, 6.0]), 3.0);
        assert_eq!(sorted(&[3.0, 1.0, 2.0]), vec![1.0, 2.0, 3.0]);
    }
}
