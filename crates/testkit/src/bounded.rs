//! A child process run under bounds: a wall-clock timeout (killed past it) and its own
//! peak memory measured (`wait4`'s `ru_maxrss`, the child's alone, not its siblings'),
//! with its stdout and stderr kept in anonymous temporary files (nothing is written
//! where the child's working directory could see it). What the hostile-input suites
//! assert on: a verdict, in bounded time and memory, without a panic.

use std::io::{Read, Seek};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a bounded child ended.
#[derive(Debug)]
pub struct Bounded {
    /// The exit code (`None` when a signal ended it).
    pub code: Option<i32>,
    /// The signal that ended it, if any (a stack overflow aborts with SIGABRT).
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Wall-clock time to its end.
    pub elapsed: Duration,
    /// Its peak resident memory, in KiB.
    pub max_rss_kib: u64,
}

impl Bounded {
    /// Whether it ended by itself without a panic (exit code 101 or a "panicked"
    /// message) or a signal (an abort, a stack overflow, a segfault).
    pub fn ended_cleanly(&self) -> bool {
        self.signal.is_none()
            && self.code.is_some_and(|c| c != 101)
            && !self.stderr.contains("panicked")
            && !self.stderr.contains("overflowed its stack")
    }
}

/// Runs `cmd` (stdin closed) until it exits or `timeout` passes; `Err` names the
/// command and the timeout when it had to be killed.
pub fn run_bounded(cmd: &mut Command, timeout: Duration) -> Result<Bounded, String> {
    let mut out = tempfile()?;
    let mut err = tempfile()?;
    let child = cmd
        .stdin(Stdio::null())
        .stdout(out.try_clone().map_err(|e| e.to_string())?)
        .stderr(err.try_clone().map_err(|e| e.to_string())?)
        .spawn()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    let pid = child.id() as libc::pid_t;
    let start = Instant::now();
    let (status, usage) = loop {
        let mut status = 0;
        // SAFETY: a plain syscall on our own child's pid, with valid out-pointers.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let done = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if done == pid {
            break (status, usage);
        }
        if done < 0 {
            return Err(format!("wait4 on {cmd:?}: {}", std::io::Error::last_os_error()));
        }
        if start.elapsed() > timeout {
            // SAFETY: as above; the child is not reaped yet, so the pid is still ours.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            return Err(format!("{cmd:?} still ran after {timeout:?}: killed"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = start.elapsed();
    let (code, signal) = if libc::WIFEXITED(status) {
        (Some(libc::WEXITSTATUS(status)), None)
    } else {
        (None, libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)))
    };
    Ok(Bounded {
        code,
        signal,
        stdout: read_all(&mut out)?,
        stderr: read_all(&mut err)?,
        elapsed,
        // Linux reports ru_maxrss in KiB.
        max_rss_kib: usage.ru_maxrss.max(0) as u64,
    })
}

/// An anonymous temporary file (unlinked at once: nothing stays on disk).
fn tempfile() -> Result<std::fs::File, String> {
    tempfile::tempfile().map_err(|e| format!("temporary file: {e}"))
}

fn read_all(f: &mut std::fs::File) -> Result<String, String> {
    let mut s = Vec::new();
    f.rewind().and_then(|_| f.read_to_end(&mut s)).map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&s).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_output_and_memory_are_reported() {
        let r = run_bounded(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!((r.code, r.signal), (Some(3), None));
        assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("out\n", "err\n"));
        assert!(r.max_rss_kib > 0 && r.ended_cleanly());
    }

    #[test]
    fn a_child_past_its_timeout_is_killed_and_a_signal_is_not_clean() {
        let e =
            run_bounded(Command::new("sleep").arg("30"), Duration::from_millis(200)).unwrap_err();
        assert!(e.contains("killed"), "{e}");
        let r =
            run_bounded(Command::new("sh").args(["-c", "kill -ABRT $$"]), Duration::from_secs(10))
                .unwrap();
        assert_eq!(r.signal, Some(libc::SIGABRT));
        assert!(!r.ended_cleanly());
    }
}
