//! [`Oracle`]: what judges a problem benchmark's completions for a language — the
//! language's own parser for syntax, its toolchain for the tests (CPython for Python,
//! `gofmt -e` and `go test` for Go).
//! [`oracle_of`] is the lab's evaluation facet of the language registry: the oracle of
//! each language that has benchmarks (the registry's [`espalier_decode::Evaluation`] facet knows
//! no oracle, so the product links no evaluation code).

use std::path::Path;
use std::time::Duration;

use espalier_decode::Lang;

use crate::harness::{GoChecker, Problem, PythonChecker, TestOutcome};

/// The oracle that judges generated programs of `lang`'s problem benchmarks (syntax and
/// tests), running `program` (its interpreter or tool; the language's default when
/// `None`) with `timeout` per test run; `None` when the language has none.
pub fn oracle_of(lang: Lang, program: Option<&Path>, timeout: Duration) -> Option<Box<dyn Oracle>> {
    match lang.name() {
        "python" => {
            let mut checker = PythonChecker { timeout, ..PythonChecker::default() };
            if let Some(p) = program {
                checker.python = p.to_path_buf();
            }
            Some(Box::new(checker))
        }
        // `program`: the `go` command (default `/usr/bin/go`; `gofmt` is taken from
        // beside it).
        "go" => {
            let go = program.unwrap_or(Path::new("/usr/bin/go"));
            Some(Box::new(GoChecker::new(go, timeout)))
        }
        _ => None,
    }
}

/// Judges generated programs.
pub trait Oracle {
    /// The text a completion of `problem` continues: the prompt, made a whole file's
    /// start where the language needs it (Go: a package clause before HumanEval-X's
    /// imports). The constraint is primed with it and the syntax check reads it.
    fn prompt(&self, problem: &Problem) -> String {
        problem.prompt.clone()
    }

    /// `Ok(None)` when `code` (prompt + completion) is syntactically valid,
    /// `Ok(Some(message))` with the oracle's message when not; `Err` when the oracle
    /// cannot run.
    fn syntax_error(&self, code: &str) -> Result<Option<String>, String>;

    /// Runs `problem`'s tests on `completion` (with a time limit).
    fn run_tests(&self, problem: &Problem, completion: &str) -> Result<TestOutcome, String>;
}

impl Oracle for PythonChecker {
    fn syntax_error(&self, code: &str) -> Result<Option<String>, String> {
        PythonChecker::syntax_error(self, code)
    }

    fn run_tests(&self, problem: &Problem, completion: &str) -> Result<TestOutcome, String> {
        PythonChecker::run_tests(self, &problem.test_program(completion))
    }
}
