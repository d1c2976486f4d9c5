//! Judging Go completions (HumanEval-X Go): `gofmt -e` says whether the file (prompt +
//! completion, after a `package main` clause when the prompt has none) parses, and
//! `go test` runs the problem's tests in a temporary module, offline.
//!
//! The tests import `github.com/stretchr/testify/assert`, which cannot be fetched
//! here (no module proxy), so the module `replace`s it with a local directory holding
//! `testify/assert.go`: the functions the 164 problems use (`New`, `Equal`), written
//! after testify v1.8's semantics. The test file is laid out as CodeGeeX's harness
//! does: the problem's `test_setup` (package clause, `testing`, `assert`), imports of
//! the usual packages the code or the test uses outside comments and the setup lacks (Go refuses unused
//! imports, so the prompt's own import block is dropped; CodeGeeX looks at the
//! completion only, which fails problems whose test alone uses `math`), the prompt
//! without that block, the completion, the test. The test binary is compiled first (`go test -c`, with a
//! generous limit of its own), then run with the time limit.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::harness::subprocess::{last_lines, run_limited};
use crate::harness::{Oracle, Problem, TestOutcome};

/// The stand-in for testify's `assert` package.
const ASSERT_GO: &str = include_str!("testify/assert.go");

/// The packages CodeGeeX's harness imports when the code uses them and the test
/// setup does not (`codegeex/benchmark/utils.py`, `IMPORT_HELPER["go"]`).
const IMPORT_HELPER: &[&str] = &[
    "math",
    "strings",
    "fmt",
    "strconv",
    "time",
    "bytes",
    "regexp",
    "sort",
    "math/rand",
    "crypto/md5",
];

/// The setup of a problem that has none (HumanEval-X's most common one).
const DEFAULT_SETUP: &str =
    "package main\n\nimport (\n    \"testing\"\n    \"github.com/stretchr/testify/assert\"\n)\n";

/// How long compiling one test binary may take (a loaded machine is slow).
const COMPILE_LIMIT: Duration = Duration::from_secs(300);

/// Runs Go's tools on generated code.
#[derive(Debug)]
pub struct GoChecker {
    /// The `go` command (`/usr/bin/go` by default).
    pub go: PathBuf,
    /// The `gofmt` command (beside `go` by default).
    pub gofmt: PathBuf,
    /// Time limit per test run (compiling excluded).
    pub timeout: Duration,
    /// The scratch directory (removed on drop): the testify stand-in and one module
    /// per test run.
    work: PathBuf,
    runs: AtomicU64,
}

impl GoChecker {
    /// A checker running `go` (and the `gofmt` beside it) with `timeout` per test run.
    pub fn new(go: &Path, timeout: Duration) -> GoChecker {
        static SERIAL: AtomicU64 = AtomicU64::new(0);
        let gofmt = go.with_file_name("gofmt");
        let work = std::env::temp_dir().join(format!(
            "espalier-go-eval-{}-{}",
            std::process::id(),
            SERIAL.fetch_add(1, Ordering::Relaxed)
        ));
        GoChecker { go: go.to_path_buf(), gofmt, timeout, work, runs: AtomicU64::new(0) }
    }

    /// `Ok(None)` when `code` parses, `Ok(Some(message))` with gofmt's first errors
    /// when not; `Err` when gofmt cannot run.
    pub fn syntax_error(&self, code: &str) -> Result<Option<String>, String> {
        let done = run_limited(
            Command::new(&self.gofmt).arg("-e"),
            code.as_bytes(),
            Duration::from_secs(60),
        )?;
        match done.code {
            Some(0) => Ok(None),
            Some(_) if !done.stderr.trim().is_empty() => Ok(Some(first_lines(&done.stderr, 3))),
            Some(c) => Err(format!("{} -e exited with {c} and no message", self.gofmt.display())),
            None => Err(format!("{} -e did not answer within 60 s", self.gofmt.display())),
        }
    }

    /// Compiles and runs the test file `source` (package main, `_test.go`).
    pub fn run_test_file(&self, source: &str) -> Result<TestOutcome, String> {
        let testify = self.testify()?;
        let n = self.runs.fetch_add(1, Ordering::Relaxed);
        let dir = self.work.join(format!("run{n}"));
        let io = |e: std::io::Error| format!("{}: {e}", dir.display());
        std::fs::create_dir_all(&dir).map_err(io)?;
        let go_mod = format!(
            "module humaneval\n\ngo 1.19\n\nrequire github.com/stretchr/testify v1.8.0\n\nreplace github.com/stretchr/testify => {}\n",
            testify.display()
        );
        std::fs::write(dir.join("go.mod"), go_mod).map_err(io)?;
        std::fs::write(dir.join("main_test.go"), source).map_err(io)?;
        let outcome = self.compile_and_run(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        outcome
    }

    fn compile_and_run(&self, dir: &Path) -> Result<TestOutcome, String> {
        let mut compile = Command::new(&self.go);
        compile.args(["test", "-c", "-o", "problem.test", "."]).current_dir(dir);
        offline(&mut compile);
        let built = run_limited(&mut compile, b"", COMPILE_LIMIT)?;
        match built.code {
            Some(0) => {}
            Some(_) => {
                return Ok(TestOutcome::Failed {
                    error: last_lines(&format!("{}{}", built.stdout, built.stderr), 3),
                })
            }
            None => {
                return Ok(TestOutcome::Failed {
                    error: format!(
                        "go test -c did not finish within {} s",
                        COMPILE_LIMIT.as_secs()
                    ),
                })
            }
        }
        let mut test = Command::new(dir.join("problem.test"));
        test.current_dir(dir);
        let ran = run_limited(&mut test, b"", self.timeout)?;
        Ok(match ran.code {
            Some(0) => TestOutcome::Passed,
            None => TestOutcome::TimedOut,
            Some(_) => TestOutcome::Failed {
                error: last_lines(&format!("{}{}", ran.stdout, ran.stderr), 3),
            },
        })
    }

    /// The testify stand-in's module directory, written on first use.
    fn testify(&self) -> Result<PathBuf, String> {
        let root = self.work.join("testify");
        let assert = root.join("assert");
        if !assert.join("assert.go").is_file() {
            let io = |e: std::io::Error| format!("{}: {e}", root.display());
            std::fs::create_dir_all(&assert).map_err(io)?;
            std::fs::write(root.join("go.mod"), "module github.com/stretchr/testify\n\ngo 1.19\n")
                .map_err(io)?;
            std::fs::write(assert.join("assert.go"), ASSERT_GO).map_err(io)?;
        }
        Ok(root)
    }
}

impl Drop for GoChecker {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.work);
    }
}

/// The go command offline: modules on, no proxy, go.mod updated as needed.
fn offline(cmd: &mut Command) {
    cmd.env("GO111MODULE", "on")
        .env("GOPROXY", "off")
        .env("GOFLAGS", "-mod=mod")
        .env("GOSUMDB", "off")
        .env("GOTOOLCHAIN", "local");
}

fn first_lines(s: &str, n: usize) -> String {
    s.trim().lines().take(n).collect::<Vec<_>>().join("\n")
}

/// The prompt as a whole Go file starts: with a package clause (`package main`) when
/// the problem's prompt has none (HumanEval-X's prompts start at their imports).
pub fn go_prompt(problem: &Problem) -> String {
    if problem.prompt.trim_start().starts_with("package ") {
        problem.prompt.clone()
    } else {
        format!("package main\n\n{}", problem.prompt)
    }
}

/// The string field `name` of a problem, empty when absent.
fn field<'a>(problem: &'a Problem, name: &str) -> &'a str {
    problem.extra.get(name).and_then(|v| v.as_str()).unwrap_or("")
}

/// The import paths quoted in a Go source (`"math/rand"` -> `math/rand`).
fn quoted_paths(source: &str) -> Vec<&str> {
    source.split('"').skip(1).step_by(2).collect()
}

/// Whether `code` refers to package `name` as `name.` (not as the end of a longer
/// identifier), line comments left out (Go/158's prompt says "a list of strings.").
fn uses_package(code: &str, name: &str) -> bool {
    let pattern = format!("{name}.");
    code.lines().map(|l| l.split_once("//").map_or(l, |x| x.0)).any(|line| {
        line.match_indices(&pattern).any(|(i, _)| {
            line[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'))
        })
    })
}

/// The test file for `completion` of `problem` (see the module doc). `Err` when the
/// problem has no Go test.
pub fn go_test_file(problem: &Problem, completion: &str) -> Result<String, String> {
    if problem.test.trim().is_empty() {
        return Err(format!("{} has no test", problem.task_id));
    }
    let import = field(problem, "import");
    let mut prompt = problem.prompt.as_str();
    if let Some(rest) = prompt.trim_start().strip_prefix("package ") {
        // A prompt with its own package clause: the setup brings it.
        prompt = rest.split_once('\n').map_or("", |x| x.1);
    }
    let body = if !import.trim().is_empty() && prompt.contains(import) {
        prompt.replacen(import, "", 1)
    } else {
        prompt.to_string()
    };
    let code = format!("{body}{completion}");
    let setup = match field(problem, "test_setup") {
        "" => DEFAULT_SETUP,
        s => s,
    };
    let have = quoted_paths(setup);
    let extra: Vec<String> = IMPORT_HELPER
        .iter()
        .filter(|p| {
            !have.contains(p)
                && [&code, &problem.test]
                    .iter()
                    .any(|c| uses_package(c, p.rsplit('/').next().unwrap_or(p)))
        })
        .map(|p| format!("    \"{p}\"\n"))
        .collect();
    let imports =
        if extra.is_empty() { String::new() } else { format!("import (\n{})\n", extra.concat()) };
    Ok(format!("{setup}\n{imports}\n{code}\n\n{}\n", problem.test))
}

impl Oracle for GoChecker {
    fn prompt(&self, problem: &Problem) -> String {
        go_prompt(problem)
    }

    fn syntax_error(&self, code: &str) -> Result<Option<String>, String> {
        GoChecker::syntax_error(self, code)
    }

    fn run_tests(&self, problem: &Problem, completion: &str) -> Result<TestOutcome, String> {
        self.run_test_file(&go_test_file(problem, completion)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Canonical solutions of HumanEval-X Go whose outcome depends on chance: Go/95
    /// (`CheckDictCase`) ranges over a map and stops after its second key, so it
    /// passes or fails with Go's random map order (3 failures in 8 runs here).
    const FLAKY_SOLUTIONS: &[&str] = &["Go/95"];

    fn checker(timeout: Duration) -> GoChecker {
        let go = espalier_testkit::require(
            "/usr/bin/go",
            "the Go toolchain (go, gofmt)",
            Some("apt-get install golang-go"),
        );
        GoChecker::new(&go, timeout)
    }

    fn problems() -> Vec<(Problem, String)> {
        let path =
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/humanevalx_go.jsonl.gz");
        let path = espalier_testkit::require(
            path,
            "HumanEval-X Go (../shared/data)",
            Some("see ../shared/data/README.md"),
        );
        let problems = crate::harness::load_problems(&path).unwrap();
        problems
            .into_iter()
            .map(|p| {
                let solution = field(&p, "canonical_solution").to_string();
                (p, solution)
            })
            .collect()
    }

    #[test]
    fn helpers_find_packages_and_paths() {
        assert!(uses_package("x := strings.Split(s)", "strings"));
        assert!(!uses_package("x := mystrings.Split(s)", "strings"));
        assert!(!uses_package("x := a.strings.Split(s)", "strings"));
        assert!(uses_package("rand.Intn(3)", "rand"));
        assert!(!uses_package("// a list of strings.\nfunc F() {}", "strings"));
        assert!(uses_package("// a list\n\tx := strings.Fields(s) // of strings.", "strings"));
        assert_eq!(quoted_paths(DEFAULT_SETUP), ["testing", "github.com/stretchr/testify/assert"]);
    }

    /// The harness on real problems: the canonical solutions parse under gofmt and
    /// pass their tests (through the testify stand-in), a wrong body fails them, a
    /// loop times out, and the file of a completion is laid out with the imports it
    /// needs.
    #[test]
    fn canonical_humaneval_x_solutions_pass_and_wrong_ones_fail() {
        let c = checker(Duration::from_secs(20));
        let all = problems();
        assert_eq!(all.len(), 164);
        // Every 40th problem plus Go/65 (whose prompt has no import block but whose
        // solution needs strconv), each one compilation; all 164 with ESPALIER_SLOW=1.
        let step = if espalier_testkit::slow() { 1 } else { 40 };
        let mut failed = Vec::new();
        for (p, solution) in
            all.iter().step_by(step).chain(all.iter().filter(|(p, _)| p.task_id == "Go/65"))
        {
            let file = format!("{}{solution}", go_prompt(p));
            assert_eq!(c.syntax_error(&file).unwrap(), None, "{}", p.task_id);
            let outcome = c.run_tests(p, solution).unwrap();
            if outcome != TestOutcome::Passed && !FLAKY_SOLUTIONS.contains(&p.task_id.as_str()) {
                failed.push(format!("{}: {outcome:?}", p.task_id));
            }
        }
        assert!(failed.is_empty(), "canonical solutions failed:\n{}", failed.join("\n"));
        let (p0, _) = &all[0];
        let wrong = c.run_tests(p0, "    return false\n}\n").unwrap();
        match wrong {
            TestOutcome::Failed { error } => assert!(error.contains("FAIL"), "{error}"),
            other => panic!("a wrong body gave {other:?}"),
        }
        let unused = c.run_tests(p0, "    x := 1\n    return true\n}\n").unwrap();
        assert!(
            matches!(unused, TestOutcome::Failed { ref error } if error.contains("declared but not used")),
            "{unused:?}"
        );
        let c = checker(Duration::from_secs(2));
        assert_eq!(c.run_tests(p0, "    for {\n    }\n}\n").unwrap(), TestOutcome::TimedOut);
        let msg = c.syntax_error("package main\n\nfunc f() {\n").unwrap().unwrap();
        assert!(msg.contains("<standard input>:3"), "{msg}");
        let (p65, _) = all.iter().find(|(p, _)| p.task_id == "Go/65").unwrap();
        let file = go_test_file(p65, "    return strconv.Itoa(x)\n}\n").unwrap();
        assert!(
            file.starts_with(field(p65, "test_setup"))
                && file.contains("import (\n    \"strconv\"\n)\n"),
            "{file}"
        );
        assert!(go_prompt(&all[0].0).starts_with("package main\n\nimport (\n"));
    }
}
