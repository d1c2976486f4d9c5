//! Running a tool on generated code: a child process fed on stdin, its output kept
//! (capped), killed at a time limit (generated code can loop forever). Used by both oracles:
//! CPython (`ast.parse`, the tests) and Go (`gofmt -e`, `go test`).

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a child process ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finished {
    /// The exit code; `None` when it was killed at the time limit.
    pub code: Option<i32>,
    /// Its standard output (the first 64 KiB).
    pub stdout: String,
    /// Its standard error (the first 64 KiB).
    pub stderr: String,
}

/// Runs `command` with `stdin` as its input, killing it after `limit`. `Err` when it
/// cannot be started.
pub fn run_limited(
    command: &mut Command,
    stdin: &[u8],
    limit: Duration,
) -> Result<Finished, String> {
    let name = command.get_program().to_string_lossy().into_owned();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {name}: {e}"))?;
    let mut input = child.stdin.take().ok_or("no stdin pipe")?;
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let mut stdout_pipe = child.stdout.take().ok_or("no stdout pipe")?;
    let mut stderr_pipe = child.stderr.take().ok_or("no stderr pipe")?;
    let out_reader = std::thread::spawn(move || read_capped(&mut stdout_pipe));
    let err_reader = std::thread::spawn(move || read_capped(&mut stderr_pipe));
    let start = Instant::now();
    let code = loop {
        match child.try_wait().map_err(|e| format!("{name}: {e}"))? {
            Some(status) => break Some(status.code().unwrap_or(-1)),
            None if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    let _ = writer.join();
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    Ok(Finished { code, stdout, stderr })
}

/// Reads a pipe to its end, keeping the first 64 KiB (a looping print could fill memory).
fn read_capped(r: &mut impl Read) -> String {
    let mut kept = Vec::new();
    let mut buf = [0u8; 8192];
    while let Ok(n) = r.read(&mut buf) {
        if n == 0 {
            break;
        }
        if kept.len() < 65536 {
            kept.extend_from_slice(&buf[..n]);
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

/// The last `n` lines of a tool's output.
pub fn last_lines(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.trim_end().lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_exit_codes_and_the_time_limit() {
        let done = run_limited(
            Command::new("sh").args(["-c", "cat; echo err >&2; exit 3"]),
            b"hi",
            Duration::from_secs(20),
        )
        .unwrap();
        assert_eq!(done, Finished { code: Some(3), stdout: "hi".into(), stderr: "err\n".into() });
        let t = Instant::now();
        let killed =
            run_limited(Command::new("sleep").arg("30"), b"", Duration::from_millis(300)).unwrap();
        assert_eq!(killed.code, None);
        assert!(t.elapsed() < Duration::from_secs(10));
        assert!(run_limited(&mut Command::new("/nonexistent/tool"), b"", Duration::from_secs(1))
            .unwrap_err()
            .contains("cannot run"));
        assert_eq!(last_lines("a\nb\nc\n", 2), "b\nc");
    }
}
