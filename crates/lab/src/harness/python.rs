//! Checking completions with CPython: `ast.parse` says whether prompt + completion is
//! syntactically valid, and the problem's tests run in a subprocess killed after a
//! time limit (generated code can loop forever).

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::subprocess::{last_lines, run_limited};

/// How a test run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum TestOutcome {
    /// Exit status 0.
    Passed,
    /// A non-zero exit; the last lines of stderr.
    Failed {
        /// Tail of stderr.
        error: String,
    },
    /// Killed at the time limit.
    TimedOut,
}

/// Runs CPython on generated code.
#[derive(Clone, Debug)]
pub struct PythonChecker {
    /// The interpreter (`/usr/bin/python3.11` by default).
    pub python: PathBuf,
    /// Time limit per test run.
    pub timeout: Duration,
}

impl Default for PythonChecker {
    fn default() -> Self {
        Self { python: PathBuf::from("/usr/bin/python3.11"), timeout: Duration::from_secs(10) }
    }
}

const SYNTAX_CHECK: &str = "import ast, sys\ntry:\n    ast.parse(sys.stdin.read())\nexcept SyntaxError as e:\n    print(f'{e.msg} (line {e.lineno})')\n    sys.exit(1)\n";

impl PythonChecker {
    /// `Ok(None)` when `code` parses, `Ok(Some(message))` with CPython's message when
    /// not; `Err` when the interpreter cannot run.
    pub fn syntax_error(&self, code: &str) -> Result<Option<String>, String> {
        let out = self.run(&["-c", SYNTAX_CHECK], code, Duration::from_secs(30))?;
        match out {
            (Some(0), _, _) => Ok(None),
            (Some(1), stdout, _) if !stdout.is_empty() => Ok(Some(stdout.trim().to_string())),
            (_, _, stderr) => Ok(Some(format!("ast.parse crashed: {}", tail(&stderr)))),
        }
    }

    /// Runs `program` (tests included) with the time limit.
    pub fn run_tests(&self, program: &str) -> Result<TestOutcome, String> {
        match self.run(&["-"], program, self.timeout)? {
            (Some(0), _, _) => Ok(TestOutcome::Passed),
            (None, _, _) => Ok(TestOutcome::TimedOut),
            (Some(_), _, stderr) => Ok(TestOutcome::Failed { error: tail(&stderr) }),
        }
    }

    /// Runs the interpreter with `args`, `stdin` as input, in the temporary directory;
    /// `(exit code or None when killed at the limit, stdout, stderr)`.
    fn run(
        &self,
        args: &[&str],
        stdin: &str,
        limit: Duration,
    ) -> Result<(Option<i32>, String, String), String> {
        let mut command = Command::new(&self.python);
        command.args(args).current_dir(std::env::temp_dir());
        let done = run_limited(&mut command, stdin.as_bytes(), limit)?;
        Ok((done.code, done.stdout, done.stderr))
    }
}

/// The last three lines of an error output.
fn tail(s: &str) -> String {
    last_lines(s, 3)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checker on the interpreter `scripts/setup.sh` installs; a missing one fails.
    fn checker() -> PythonChecker {
        let c = PythonChecker { timeout: Duration::from_secs(5), ..PythonChecker::default() };
        espalier_testkit::require(&c.python, "the CPython checker (python3.11)", None);
        c
    }

    #[test]
    fn syntax_errors_are_found_and_programs_pass_fail_or_time_out() {
        let c = checker();
        assert_eq!(c.syntax_error("def f(x):\n    return x\n").unwrap(), None);
        let msg = c.syntax_error("def f(x):\nreturn x\n").unwrap().unwrap();
        assert!(msg.contains("line 2"), "{msg}");
        assert_eq!(c.run_tests("assert 1 + 1 == 2\n").unwrap(), TestOutcome::Passed);
        match c.run_tests("assert 1 + 1 == 3\n").unwrap() {
            TestOutcome::Failed { error } => assert!(error.contains("AssertionError"), "{error}"),
            other => panic!("{other:?}"),
        }
        let c = PythonChecker { timeout: Duration::from_secs(2), ..c };
        assert_eq!(c.run_tests("while True:\n    pass\n").unwrap(), TestOutcome::TimedOut);
    }

    /// The harness end to end on real problems: HumanEval's canonical solutions, put
    /// through `Problem::test_program` as a completion would be, parse and pass their
    /// tests; a wrong body fails them.
    #[test]
    fn canonical_humaneval_solutions_pass_and_wrong_ones_fail() {
        use std::io::Read;
        let c = checker();
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/HumanEval.jsonl.gz");
        let path = espalier_testkit::require(
            path,
            "HumanEval (../shared/data)",
            Some("see ../shared/data/README.md"),
        );
        let problems = crate::harness::load_problems(&path).unwrap();
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        let solutions: Vec<String> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["canonical_solution"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!((problems.len(), solutions.len()), (164, 164));
        // Every 20th problem: 9 subprocesses of each kind keep the test quick.
        for (p, solution) in problems.iter().zip(&solutions).step_by(20) {
            assert_eq!(
                c.syntax_error(&format!("{}{solution}", p.prompt)).unwrap(),
                None,
                "{}",
                p.task_id
            );
            assert_eq!(
                c.run_tests(&p.test_program(solution)).unwrap(),
                TestOutcome::Passed,
                "{}",
                p.task_id
            );
            let wrong = c.run_tests(&p.test_program("    raise NotImplementedError\n")).unwrap();
            assert!(
                matches!(wrong, TestOutcome::Failed { .. }),
                "{}: a wrong body gave {wrong:?}",
                p.task_id
            );
        }
    }
}
