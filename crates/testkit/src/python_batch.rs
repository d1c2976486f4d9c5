//! One Python process answering for many texts: the oracles' plumbing.

use std::io::Write;
use std::process::{Command, Stdio};

/// What every script starts with: `sys` imported and `texts()`, which yields the
/// texts as [`python_batch`] writes them (a 4-byte little-endian length, the bytes).
const READER: &str = r#"
import sys
def texts():
    data = sys.stdin.buffer.read()
    pos = 0
    while pos < len(data):
        n = int.from_bytes(data[pos:pos+4], 'little'); pos += 4
        yield data[pos:pos+n]; pos += n
"#;

/// Runs `python -c script` once (after [`READER`]: the script reads the texts with
/// `texts()`), writes every text to its stdin, and returns its stdout (the script's
/// answers, in its own format). Panics (a test failure) when the interpreter does not
/// run.
pub fn python_batch(python: &str, script: &str, texts: &[Vec<u8>]) -> Vec<u8> {
    let mut child = Command::new(python)
        .args(["-c", &format!("{READER}{script}")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("run {python}: {e}"));
    let mut stdin = child.stdin.take().expect("the child's stdin");
    let payload: Vec<u8> = texts
        .iter()
        .flat_map(|t| (t.len() as u32).to_le_bytes().into_iter().chain(t.iter().copied()))
        .collect();
    let writer = std::thread::spawn(move || stdin.write_all(&payload));
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{python}'s output: {e}"));
    writer.join().expect("the writer thread").expect("write the texts to python");
    out.stdout
}
