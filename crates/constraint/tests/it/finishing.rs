//! The finishing mask of every grammar language ([`common::LANGS`]) against the
//! language's own parser: CPython's `ast.parse` (/usr/bin/python3.11) for Python, Go's
//! `gofmt -e` (/usr/bin/gofmt) for Go; a missing oracle fails the test.
//!
//! From many points of real code (standard library files cut at seeded offsets) and from
//! the ends of masked random walks, tokens are taken at random from the finishing mask
//! until the mask is EOS alone. At every step (`common::finish`): the finishing mask is
//! a non-empty subset of the exact mask, every token in it lowers the remaining cost (no
//! fallback), and the cost strictly falls; the program ends within as many tokens as the
//! first cost said; the oracle accepts every finished program. Python's oracle excuses
//! a `\N{name}` escape naming no character (the grammar checks an escape's form, not
//! Unicode's name list: such programs are counted and listed apart, not failed); a
//! malformed escape (`'\x4'`, `'\u12'`) is a failure. Go's walks take no token with a
//! NUL byte or invalid UTF-8 of its own (gofmt refuses both anywhere in a source; the
//! grammar, like the exact mask, does not look at encodings).
//!
//! CI: Python 40 cuts and 12 walks, Go 30 and 10; `ESPALIER_SLOW=1`: Python 400 cuts
//! and 100 walks, Go 300 and 100 ([`CASES`]).

use std::io::Write;
use std::process::{Command, Stdio};

use crate::common::{self, GrammarLang};
use common::finish::{check_all, cuts, walks, Oracle, Verdict};
use espalier_constraint::{GrammarConstraint, MaskKit, Vocab};

/// One language's finishing runs.
struct Case {
    lang: &'static GrammarLang,
    oracle: fn() -> Oracle<'static>,
    /// The cuts' seed, sample (stride, first, largest file) and count (CI, slow).
    cuts: (u64, (usize, usize, usize), (usize, usize)),
    /// The walks' seed, prelude and count (CI, slow).
    walks: (u64, &'static str, (usize, usize)),
    /// The tokens a walk may take.
    take: fn(&[u8]) -> bool,
}

const CASES: [Case; 2] = [
    Case {
        lang: &common::PYTHON,
        oracle: ast_parse_oracle,
        cuts: (0xF1_0151, (7, 3, 60_000), (40, 400)),
        walks: (0x3A1C, "", (12, 100)),
        take: |_| true,
    },
    Case {
        lang: &common::GO,
        oracle: gofmt_oracle,
        cuts: (0x60_F151, (9, 2, 40_000), (30, 300)),
        walks: (0x60_3A1C, "package p\n\n", (10, 100)),
        // No token with a NUL byte or invalid UTF-8 of its own: gofmt refuses both.
        take: |b| !b.contains(&0) && std::str::from_utf8(b).is_ok(),
    },
];

#[test]
fn finishing_from_cuts_of_the_standard_library() {
    finish_each("cuts", |c| c.cuts.0, |c, _, kit, rng| cuts(c.lang, kit, c.cuts.1, c.cuts.2, rng));
}

#[test]
fn finishing_after_masked_random_walks() {
    finish_each(
        "walks",
        |c| c.walks.0,
        |c, vocab, kit, rng| walks(c.lang, vocab, kit, c.walks.1, c.walks.2, c.take, rng),
    );
}

/// Runs [`check_all`] on each language's starts, made by `starts` with a generator
/// seeded by `seed`.
fn finish_each(
    what: &str,
    seed: fn(&Case) -> u64,
    starts: impl Fn(&Case, &Vocab, &MaskKit, &mut common::Rng) -> Vec<(String, GrammarConstraint)>,
) {
    common::each_lang(
        &CASES,
        |c| c.lang,
        |c| {
            let (_tok, vocab, trie) = common::smollm2();
            let mut rng = common::Rng(seed(c));
            let starts = starts(c, &vocab, &c.lang.kit(&trie), &mut rng);
            check_all(&format!("{} {what}", c.lang.name), starts, &vocab, &mut rng, &(c.oracle)());
        },
    );
}

const PYTHON: &str = "/usr/bin/python3.11";

/// `ast.parse` verdicts for each text.
fn ast_parse(texts: &[Vec<u8>]) -> Vec<Verdict> {
    const SCRIPT: &str = r#"
import ast, sys
out = []
for b in texts():
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
    let stdout = espalier_testkit::python_batch(PYTHON, SCRIPT, texts);
    assert_eq!(
        stdout.len(),
        texts.len(),
        "the oracle answered {} of {} texts",
        stdout.len(),
        texts.len()
    );
    stdout
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
fn ast_parse_oracle() -> Oracle<'static> {
    Oracle {
        name: "ast.parse",
        judge: &ast_parse,
        excused: "finished inside a \\N{name} escape naming no character (grammar gap)",
    }
}

const GOFMT: &str = "/usr/bin/gofmt";

/// `gofmt -e`'s first error for `text`, or `None` when it parses.
fn gofmt_error(text: &[u8]) -> Option<String> {
    espalier_testkit::require(GOFMT, "the Go parser (gofmt)", Some("apt-get install golang-go"));
    let mut child = Command::new(GOFMT)
        .arg("-e")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gofmt");
    let mut stdin = child.stdin.take().unwrap();
    let payload = text.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&payload).unwrap());
    let out = child.wait_with_output().expect("gofmt output");
    writer.join().unwrap();
    (!out.status.success())
        .then(|| String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("").to_string())
}

/// `gofmt -e` verdicts, one file at a time.
fn gofmt_verdicts(texts: &[Vec<u8>]) -> Vec<Verdict> {
    texts.iter().map(|t| gofmt_error(t).map_or(Verdict::Accepted, Verdict::Refused)).collect()
}

/// `gofmt -e` as the oracle (it excuses nothing).
fn gofmt_oracle() -> Oracle<'static> {
    Oracle { name: "gofmt -e", judge: &gofmt_verdicts, excused: "excused" }
}
