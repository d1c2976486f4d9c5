//! The host's CPU time of a GPU decode step: the calling thread plus cubecl's device
//! threads. cubecl 0.11 runs each device's server on a thread of its own, named
//! `DS{U|D}-{type}-{index}` (cubecl-common's `device/handle/channel.rs`): the calling
//! thread enqueues launches and that thread records or replays them and submits. A CPU
//! adapter's threads (lavapipe's workers, its queue) are the "device" and are left out, so
//! on lavapipe this is what a step costs the host however long it waits for a core.
//!
//! Linux only: a thread's CPU clock is read by its thread id (`clock_gettime` on
//! `MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)`, which the kernel allows within the
//! process and keeps exact to the running slice).

/// The CPU clocks of the threads that do a step's host work, found when made.
pub struct HostClock {
    #[cfg(target_os = "linux")]
    threads: Vec<libc::clockid_t>,
}

#[cfg(not(target_os = "linux"))]
impl HostClock {
    /// No thread clocks off Linux.
    pub fn of_this_thread_and_devices() -> Option<Self> {
        None
    }

    /// Never called: there is no clock to ask.
    pub fn threads(&self) -> usize {
        0
    }

    /// Never called: there is no clock to ask.
    pub fn now_ns(&self) -> u64 {
        0
    }
}

#[cfg(target_os = "linux")]
impl HostClock {
    /// The calling thread and every cubecl device thread alive now; `None` when
    /// `/proc/self/task` cannot be read.
    pub fn of_this_thread_and_devices() -> Option<Self> {
        // SAFETY: gettid has no preconditions.
        let me = unsafe { libc::gettid() };
        let mut threads = vec![thread_clock(me)];
        for entry in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
            let Some(tid) = entry.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
                continue;
            };
            let name = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
            if tid != me && is_device_thread(name.trim_end()) {
                threads.push(thread_clock(tid));
            }
        }
        Some(Self { threads })
    }

    /// How many threads it reads (the calling one included).
    pub fn threads(&self) -> usize {
        self.threads.len()
    }

    /// The threads' CPU time so far, in nanoseconds (a thread that has exited adds
    /// nothing).
    pub fn now_ns(&self) -> u64 {
        self.threads.iter().filter_map(|&clock| clock_ns(clock)).sum()
    }
}

/// cubecl's name for a device server thread: `DSU-` or `DSD-` then the device's ids.
fn is_device_thread(name: &str) -> bool {
    name.starts_with("DSU-") || name.starts_with("DSD-")
}

#[cfg(target_os = "linux")]
/// Linux's clock id for thread `tid`'s CPU time (`CPUCLOCK_SCHED` | `CPUCLOCK_PERTHREAD`).
fn thread_clock(tid: libc::pid_t) -> libc::clockid_t {
    (!tid << 3) | 6
}

#[cfg(target_os = "linux")]
fn clock_ns(clock: libc::clockid_t) -> Option<u64> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_threads_are_named_by_cubecl() {
        assert!(is_device_thread("DSD-4-0"));
        assert!(is_device_thread("DSU-1-2"));
        assert!(!is_device_thread("espalier"));
        assert!(!is_device_thread("llvmpipe-0"));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_clock_counts_this_threads_work_and_a_device_threads() {
        let (to_main, from_worker) = std::sync::mpsc::channel();
        let (to_worker, from_main) = std::sync::mpsc::channel::<()>();
        let worker = std::thread::Builder::new()
            .name("DSD-9-0".into())
            .spawn(move || {
                to_main.send(()).unwrap();
                from_main.recv().unwrap();
                spin(20_000_000);
                to_main.send(()).unwrap();
                from_main.recv().unwrap();
            })
            .unwrap();
        from_worker.recv().unwrap();
        let clock = HostClock::of_this_thread_and_devices().expect("Linux");
        assert_eq!(clock.threads(), 2, "this thread and the DSD- one");
        let before = clock.now_ns();
        spin(20_000_000);
        let mine = clock.now_ns() - before;
        to_worker.send(()).unwrap();
        from_worker.recv().unwrap();
        let both = clock.now_ns() - before;
        to_worker.send(()).unwrap();
        worker.join().unwrap();
        assert!(mine > 0, "this thread's work counts");
        assert!(both > mine + mine / 4, "the device thread's work counts too: {both} vs {mine}");
    }

    fn spin(n: u64) -> u64 {
        let mut x = 0u64;
        for i in 0..n {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        x
    }
}
