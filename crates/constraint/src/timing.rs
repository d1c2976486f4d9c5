//! Timing helpers shared by the benchmarks that measure what a constraint costs
//! (`espalier bench mask` / `bench decode` and the wasm harness's native twin): the
//! thread's on-CPU clock and percentiles of sorted samples.

/// On-CPU time of the calling thread in nanoseconds (Linux `CLOCK_THREAD_CPUTIME_ID`:
/// the kernel adds the slice running now, so it is exact per step, unlike
/// `/proc/thread-self/schedstat`, which moves at scheduler ticks). Benchmarks use it so
/// that waiting for a core on a loaded machine does not count as work. `None` on other
/// systems or when the call fails.
#[cfg(target_os = "linux")]
pub fn thread_cpu_ns() -> Option<u64> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// On-CPU time of the calling thread: not available off Linux.
#[cfg(not(target_os = "linux"))]
pub fn thread_cpu_ns() -> Option<u64> {
    None
}

/// The `p`-th percentile (0-100, nearest rank) of ascending `sorted` samples; 0 for
/// no samples.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// The median of unsorted samples (0 for none), for per-round figures.
pub fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    percentile(&sorted, 50.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_pick_the_nearest_rank() {
        let s = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(percentile(&s, 0.0), 1.0);
        assert_eq!(percentile(&s, 50.0), 3.0);
        assert_eq!(percentile(&s, 100.0), 5.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
        assert_eq!(median(&[9.0, 1.0, 5.0]), 5.0);
    }

    #[test]
    fn the_thread_clock_advances_with_work() {
        let Some(a) = thread_cpu_ns() else { return };
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let b = thread_cpu_ns().unwrap();
        assert!(b > a, "{a} -> {b}");
    }
}
