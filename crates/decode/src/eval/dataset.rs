//! The Python problem sets: HumanEval (gzipped JSON lines) and MXEval's MBPP (JSON
//! lines), both with `task_id`, `prompt`, `test`, `entry_point`.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::BenchmarkFormat;

/// One problem: complete `prompt`, then `test` + `check(entry_point)` must pass.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Problem {
    /// E.g. `HumanEval/0`.
    pub task_id: String,
    /// The code left of the cursor: imports, signature and docstring.
    pub prompt: String,
    /// Test code defining `check(candidate)`.
    pub test: String,
    /// The function under test.
    pub entry_point: String,
}

impl Problem {
    /// The program the tests run: prompt, completion, tests, and the call of `check`.
    pub fn test_program(&self, completion: &str) -> String {
        format!("{}{}\n\n{}\n\ncheck({})\n", self.prompt, completion, self.test, self.entry_point)
    }
}

/// A problem file that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// The file could not be opened or read.
    #[error("{path}: {source} (the data sets live in ../shared/data; see its README)")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line was not a problem.
    #[error("{path}:{line}: not a problem record: {message}")]
    Record {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The JSON error.
        message: String,
    },
}

/// Reads HumanEval (`HumanEval.jsonl.gz`).
pub fn load_humaneval(path: &Path) -> Result<Vec<Problem>, DatasetError> {
    let file = std::fs::File::open(path).map_err(|source| DatasetError::Io { path: path.into(), source })?;
    read_lines(path, flate2::read::GzDecoder::new(file))
}

/// Reads MBPP (`mxeval-mbpp_release_v1.jsonl`).
pub fn load_mbpp(path: &Path) -> Result<Vec<Problem>, DatasetError> {
    let file = std::fs::File::open(path).map_err(|source| DatasetError::Io { path: path.into(), source })?;
    read_lines(path, file)
}

/// Reads a problem benchmark's file in `format` ([`BenchmarkFormat::SluaCategories`]
/// has no file: an empty list).
pub fn load_problems(format: BenchmarkFormat, path: &Path) -> Result<Vec<Problem>, DatasetError> {
    match format {
        BenchmarkFormat::HumanEval => load_humaneval(path),
        BenchmarkFormat::Mxeval => load_mbpp(path),
        BenchmarkFormat::SluaCategories => Ok(Vec::new()),
    }
}

fn read_lines(path: &Path, input: impl Read) -> Result<Vec<Problem>, DatasetError> {
    let mut out = Vec::new();
    for (i, line) in BufReader::new(input).lines().enumerate() {
        let line = line.map_err(|source| DatasetError::Io { path: path.into(), source })?;
        if line.trim().is_empty() {
            continue;
        }
        let p: Problem = serde_json::from_str(&line).map_err(|e| DatasetError::Record {
            path: path.into(),
            line: i + 1,
            message: e.to_string(),
        })?;
        out.push(p);
    }
    Ok(out)
}
