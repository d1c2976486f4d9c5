//! [`Oracle`]: what judges a problem benchmark's completions for a language — the
//! language's own parser for syntax, its toolchain for the tests (CPython for Python,
//! `gofmt -e` and `go test` for Go).
//! A language hands one out through [`crate::LangSpec::oracle`].

use crate::eval::{Problem, PythonChecker, TestOutcome};

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
