//! Shared helpers of the corpus tests: the CPython corpus, the `ast.parse` oracle
//! (run once per test over all files in one python3.11 process), a tiny PRNG.

#![allow(dead_code)]

pub mod checks;

use espalier_grammar::{GrammarError, Language};

use std::path::PathBuf;
use std::sync::Arc;

/// The CPython interpreter whose version matches the corpus.
pub const PYTHON: &str = "/usr/bin/python3.11";
/// The corpus root.
pub const CORPUS: &str = "/usr/lib/python3.11";

/// Whether the slow, full-corpus variants should run (`ESPALIER_SLOW=1`; the one
/// gate shared by every crate).
#[allow(unused_imports)] // not every test binary has a slow variant
pub use espalier_testkit::slow;

/// Every .py file under the corpus, sorted (empty when the corpus is missing).
pub fn corpus_files() -> Vec<PathBuf> {
    espalier_testkit::files_under(CORPUS, "py", &["site-packages", "dist-packages"])
}

/// A fixed sample of `n` corpus files (every k-th file, deterministic).
pub fn corpus_sample(n: usize) -> Vec<PathBuf> {
    let all = corpus_files();
    if all.len() <= n {
        return all;
    }
    let step = all.len() as f64 / n as f64;
    (0..n).map(|i| all[(i as f64 * step) as usize].clone()).collect()
}

/// Fails the test unless the oracle (python3.11) and the corpus (with CPython's own
/// test suite) are installed: `scripts/setup.sh` installs them.
pub fn require_oracle() {
    espalier_testkit::require(PYTHON, "the ast.parse oracle (python3.11)", None);
    espalier_testkit::require(
        format!("{CORPUS}/test/test_grammar.py"),
        "the CPython corpus (libpython3.11-testsuite)",
        None,
    );
}

/// `ast.parse` verdicts for texts: Some(true) accepted, Some(false) SyntaxError (or
/// another parse-time error), None when the text is not UTF-8.
pub fn oracle(texts: &[Vec<u8>]) -> Vec<Option<bool>> {
    const SCRIPT: &str = r#"
import ast, sys
out = []
for b in texts():
    try:
        s = b.decode('utf-8')
    except UnicodeDecodeError:
        out.append('u'); continue
    try:
        ast.parse(s); out.append('1')
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        out.append('0')
sys.stdout.write(''.join(out))
"#;
    let stdout = espalier_testkit::python_batch(PYTHON, SCRIPT, texts);
    let s = String::from_utf8(stdout).unwrap();
    assert_eq!(s.len(), texts.len(), "oracle answered {} of {} texts", s.len(), texts.len());
    s.bytes()
        .map(|c| match c {
            b'1' => Some(true),
            b'0' => Some(false),
            _ => None,
        })
        .collect()
}

/// xorshift64*: deterministic randomness without a dependency.
pub struct Rng(pub u64);

impl Rng {
    /// Next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A grammar crate's constructor of a compiled language (`espalier_grammar::python`).
pub type Compile = fn() -> Result<Arc<Language>, GrammarError>;

/// The grammar crate's languages, by name: the suites with a per-language table cover
/// each ([`each_grammar`]).
pub const GRAMMARS: [(&str, Compile); 2] =
    [("python", espalier_grammar::python), ("go", espalier_grammar::go)];

/// The compiled grammar called `name` (one of [`GRAMMARS`]).
pub fn grammar(name: &str) -> Arc<Language> {
    let (_, build) = GRAMMARS.iter().find(|(n, _)| *n == name).expect("a grammar of GRAMMARS");
    build().unwrap_or_else(|e| panic!("the {name} grammar does not compile: {e}"))
}

/// Runs `check` on each case of a suite's per-language table with its compiled
/// grammar, one case for each of [`GRAMMARS`] ([`espalier_testkit::each_language`]:
/// every language runs, the failed ones are named, a language without a case fails).
pub fn each_grammar<C>(cases: &[C], name: impl Fn(&C) -> &str, check: impl Fn(&C, &Arc<Language>)) {
    let registered: Vec<&str> = GRAMMARS.iter().map(|(n, _)| *n).collect();
    espalier_testkit::each_language(&registered, cases, &name, |c| check(c, &grammar(name(c))));
}
