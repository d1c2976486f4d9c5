//! The fill-in-the-middle evaluation sets of `espalier eval fim`: the HumanEval
//! infilling files (`singleline`, `randomspan`, or `--data FILE` in their format) and
//! the paper's BOUNDARY / RANDSPAN sets rebuilt from the CPython 3.11 standard library
//! (`stack-boundary`, `stack-randspan`: 1,000 seeded cases each, cut by
//! `fim_stack_sets.py`, which runs in python3.11 because the BOUNDARY cuts follow
//! Python's own tokenizer).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The CPython standard library the grammar tests use (libpython3.11-testsuite).
pub const CORPUS: &str = "/usr/lib/python3.11";
/// Cases per rebuilt set.
pub const STACK_CASES: usize = 1000;
/// The seed of the rebuilt sets (the issue number, fixed: the sets are data).
pub const STACK_SEED: u64 = 13;
const STACK_SCRIPT: &str = include_str!("fim_stack_sets.py");

/// One infilling case: the code left and right of the gap, and tests where the set
/// has them (empty otherwise).
#[derive(Clone, Debug, Deserialize)]
pub struct FimCase {
    pub task_id: String,
    pub prompt: String,
    pub suffix: String,
    /// The true middle (read by the tests).
    #[serde(default)]
    #[cfg_attr(not(test), allow(dead_code))]
    pub canonical_solution: String,
    #[serde(default)]
    pub test: String,
    #[serde(default)]
    pub entry_point: String,
}

impl FimCase {
    /// Whether the case can be judged by running tests.
    pub fn has_tests(&self) -> bool {
        !self.test.trim().is_empty() && !self.entry_point.is_empty()
    }
}

/// The cases of `set` (or of `data` when given).
pub fn load_set(set: &str, data: Option<&Path>, python: &Path) -> Result<Vec<FimCase>, String> {
    match (data, set) {
        (Some(p), _) => read_jsonl(p),
        (None, "singleline") => read_jsonl(Path::new("../shared/data/HumanEval-SingleLineInfilling.jsonl.gz")),
        (None, "randomspan") => read_jsonl(Path::new("../shared/data/HumanEval-RandomSpanInfillingLight.jsonl.gz")),
        (None, "stack-boundary") => stack_set("boundary", python),
        (None, "stack-randspan") => stack_set("randspan", python),
        (None, other) => Err(format!("unknown FIM set {other:?} (singleline, randomspan, stack-boundary, stack-randspan, or --data FILE)")),
    }
}

/// Reads a human-eval-infilling JSON-lines file, gzipped or not.
pub fn read_jsonl(path: &Path) -> Result<Vec<FimCase>, String> {
    let file = std::fs::File::open(path)
        .map_err(|e| format!("{}: {e} (the data sets live in ../shared/data)", path.display()))?;
    let reader: Box<dyn Read> = if path.extension().is_some_and(|x| x == "gz") {
        Box::new(flate2::read::GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    parse_jsonl(BufReader::new(reader), &path.display().to_string())
}

fn parse_jsonl(reader: impl BufRead, name: &str) -> Result<Vec<FimCase>, String> {
    let mut out = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| format!("{name}: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        out.push(serde_json::from_str(&line).map_err(|e| format!("{name}:{}: {e}", i + 1))?);
    }
    Ok(out)
}

/// Builds a rebuilt set (`boundary` or `randspan`) with python3.11.
fn stack_set(which: &str, python: &Path) -> Result<Vec<FimCase>, String> {
    let probe = PathBuf::from(CORPUS).join("test/test_grammar.py");
    if !probe.is_file() {
        return Err(format!("{} missing: the CPython corpus comes from libpython3.11-testsuite (bash scripts/setup.sh)", probe.display()));
    }
    let out = std::process::Command::new(python)
        .args([
            "-c",
            STACK_SCRIPT,
            which,
            &STACK_SEED.to_string(),
            &STACK_CASES.to_string(),
            CORPUS,
        ])
        .output()
        .map_err(|e| format!("{}: {e} (pass --python PATH)", python.display()))?;
    if !out.status.success() {
        return Err(format!(
            "building the {which} set failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let cases = parse_jsonl(&out.stdout[..], &format!("stack-{which}"))?;
    if cases.len() != STACK_CASES {
        return Err(format!("stack-{which}: {} cases, expected {STACK_CASES}", cases.len()));
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rebuilt sets are reproducible, their cuts are real (prefix + true middle +
    /// suffix is the file, the middle is not empty), and a BOUNDARY cut starts at or
    /// inside a token and ends where a token starts.
    #[test]
    fn stack_sets_are_reproducible_cuts_of_corpus_files() {
        let python = Path::new("/usr/bin/python3.11");
        espalier_testkit::require(python, "python3.11", None);
        espalier_testkit::require(
            format!("{CORPUS}/test/test_grammar.py"),
            "the CPython corpus (libpython3.11-testsuite)",
            None,
        );
        for which in ["boundary", "randspan"] {
            let a = stack_set(which, python).unwrap();
            let b = stack_set(which, python).unwrap();
            assert_eq!(a.len(), STACK_CASES);
            let name = |c: &FimCase| {
                c.task_id.splitn(3, '/').nth(2).unwrap().rsplit_once(':').unwrap().0.to_string()
            };
            let files: std::collections::HashSet<String> = a.iter().map(name).collect();
            assert!(files.len() > 200, "{which}: only {} files", files.len());
            for (x, y) in a.iter().zip(&b) {
                assert_eq!((&x.task_id, &x.prompt, &x.suffix), (&y.task_id, &y.prompt, &y.suffix));
                assert!(!x.canonical_solution.is_empty() && !x.has_tests());
                let file = std::fs::read_to_string(Path::new(CORPUS).join(name(x))).unwrap();
                assert_eq!(
                    format!("{}{}{}", x.prompt, x.canonical_solution, x.suffix),
                    file,
                    "{}",
                    x.task_id
                );
                if which == "randspan" {
                    assert!(
                        x.canonical_solution.chars().count()
                            <= 100.min(file.chars().count() / 5).max(1)
                    );
                }
            }
        }
    }
}
