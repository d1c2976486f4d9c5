//! The finishing mask of the Python constraint, against CPython's `ast.parse`
//! (/usr/bin/python3.11; a missing oracle fails the test).
//!
//! From many points of real Python (CPython standard library files cut at seeded
//! offsets) and from the ends of masked random walks, tokens are taken at random from
//! the finishing mask until the mask is EOS alone. At every step: the finishing mask
//! is a non-empty subset of the exact mask, every token in it lowers the remaining
//! cost (no fallback), and the cost strictly falls; the program ends within as many
//! tokens as the first cost said; `ast.parse` accepts every finished program, except
//! those it refuses for a `\N{name}` escape naming no character (the grammar checks an
//! escape's form, not Unicode's name list: such programs are counted and listed apart,
//! not failed). A malformed escape (`'\x4'`, `'\u12'`) is a failure.
//!
//! CI: 40 cuts and 12 walks; `ESPALIER_SLOW=1`: 400 cuts and 100 walks.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::finish::{check_all, cuts, walks, Oracle, Verdict};

const PYTHON: &str = "/usr/bin/python3.11";

/// `ast.parse` verdicts for each text.
fn ast_parse(texts: &[Vec<u8>]) -> Vec<Verdict> {
    const SCRIPT: &str = r#"
import ast, sys
data = sys.stdin.buffer.read()
out = []
pos = 0
while pos < len(data):
    n = int.from_bytes(data[pos:pos+4], 'little'); pos += 4
    b = data[pos:pos+n]; pos += n
    try:
        ast.parse(b.decode('utf-8')); out.append('1')
    except SyntaxError as e:
        out.append('e' if 'unknown Unicode character name' in str(e.msg) else '0')
    except (ValueError, UnicodeDecodeError, MemoryError, RecursionError):
        out.append('0')
sys.stdout.write(''.join(out))
"#;
    assert!(
        std::path::Path::new(PYTHON).exists(),
        "{PYTHON} missing: the oracle is required (apt install python3.11)"
    );
    let mut child = Command::new(PYTHON)
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run python3.11");
    let mut stdin = child.stdin.take().unwrap();
    let payload: Vec<u8> = texts
        .iter()
        .flat_map(|t| (t.len() as u32).to_le_bytes().into_iter().chain(t.iter().copied()))
        .collect();
    let writer = std::thread::spawn(move || stdin.write_all(&payload).unwrap());
    let out = child.wait_with_output().expect("python3.11 output");
    writer.join().unwrap();
    assert_eq!(
        out.stdout.len(),
        texts.len(),
        "the oracle answered {} of {} texts",
        out.stdout.len(),
        texts.len()
    );
    out.stdout
        .iter()
        .map(|&c| match c {
            b'1' => Verdict::Accepted,
            // Refused for a `\N{name}` escape naming no character: the grammar (and so
            // the exact mask) checks an escape's form only, a known gap counted apart.
            b'e' => Verdict::Excused,
            _ => Verdict::Refused("SyntaxError (or ValueError)".into()),
        })
        .collect()
}

/// CPython's `ast.parse` as the oracle.
fn oracle() -> Oracle<'static> {
    Oracle {
        name: "ast.parse",
        judge: &ast_parse,
        excused: "finished inside a \\N{name} escape naming no character (grammar gap)",
    }
}

#[test]
fn finishing_from_cuts_of_the_standard_library() {
    let (_tok, vocab, trie) = common::smollm2();
    let mut rng = common::Rng(0xF1_0151);
    let starts =
        cuts(&common::PYTHON, &common::PYTHON.kit(&trie), (7, 3, 60_000), (40, 400), &mut rng);
    check_all("cuts", starts, &vocab, &mut rng, &oracle());
}

#[test]
fn finishing_after_masked_random_walks() {
    let (_tok, vocab, trie) = common::smollm2();
    let mut rng = common::Rng(0x3A1C);
    let starts = walks(
        &common::PYTHON,
        &vocab,
        &common::PYTHON.kit(&trie),
        "",
        (12, 100),
        |_| true,
        &mut rng,
    );
    check_all("walks", starts, &vocab, &mut rng, &oracle());
}
