//! Problem sets: JSON lines, gzipped or not, one problem per line with at least
//! `task_id` and `prompt` — HumanEval and MXEval's MBPP (`test`, `entry_point`),
//! HumanEval-X (`test`, `test_setup`, `import`, ...). Fields a language's oracle needs
//! beyond the common ones are kept in [`Problem::extra`].

use std::io::{BufRead, BufReader, Read, Seek};
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One problem: complete `prompt`, then the tests must pass (Python: `test` +
/// `check(entry_point)`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Problem {
    /// E.g. `HumanEval/0`.
    pub task_id: String,
    /// The code left of the cursor: imports, signature and docstring.
    pub prompt: String,
    /// Test code (Python: defining `check(candidate)`).
    #[serde(default)]
    pub test: String,
    /// The function under test (empty when the set has none).
    #[serde(default)]
    pub entry_point: String,
    /// Every other field of the record, for the language's oracle.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
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

/// Reads a problem file: JSON lines, gunzipped first when the file starts with the
/// gzip magic bytes.
pub fn load_problems(path: &Path) -> Result<Vec<Problem>, DatasetError> {
    let io = |source| DatasetError::Io { path: path.into(), source };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut magic = [0u8; 2];
    let gzipped = file.read(&mut magic).map_err(io)? == 2 && magic == [0x1f, 0x8b];
    file.rewind().map_err(io)?;
    if gzipped {
        read_lines(path, flate2::read::GzDecoder::new(file))
    } else {
        read_lines(path, file)
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

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn plain_and_gzipped_lines_read_alike_and_keep_extra_fields() {
        let dir = std::env::temp_dir().join(format!("espalier-dataset-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let lines = "{\"task_id\": \"Go/0\", \"prompt\": \"func F() {\", \"test\": \"func TestF(t *testing.T) {}\", \"import\": \"import \\\"math\\\"\"}\n\n{\"task_id\": \"X/1\", \"prompt\": \"p\", \"test\": \"t\", \"entry_point\": \"f\"}\n";
        let plain = dir.join("p.jsonl");
        std::fs::write(&plain, lines).unwrap();
        let gz = dir.join("p.jsonl.gz");
        let mut enc = flate2::write::GzEncoder::new(
            std::fs::File::create(&gz).unwrap(),
            flate2::Compression::fast(),
        );
        enc.write_all(lines.as_bytes()).unwrap();
        enc.finish().unwrap();
        let a = load_problems(&plain).unwrap();
        assert_eq!(a, load_problems(&gz).unwrap());
        assert_eq!(a.len(), 2);
        assert_eq!(a[0].entry_point, "");
        assert_eq!(a[0].extra["import"], "import \"math\"");
        assert_eq!(a[1].entry_point, "f");
        std::fs::write(&plain, "{\"prompt\": 1}\n").unwrap();
        let err = load_problems(&plain).unwrap_err().to_string();
        assert!(err.contains(":1: not a problem record"), "{err}");
        assert!(load_problems(&dir.join("missing.jsonl")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_shared_data_sets_load() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
        for (file, count) in [
            ("HumanEval.jsonl.gz", 164),
            ("mxeval-mbpp_release_v1.jsonl", 974),
            ("humanevalx_go.jsonl.gz", 164),
        ] {
            let path = espalier_testkit::require(
                dir.join(file),
                file,
                Some("see ../shared/data/README.md"),
            );
            let problems = load_problems(&path).unwrap();
            assert_eq!(problems.len(), count, "{file}");
            assert!(problems.iter().all(|p| !p.prompt.is_empty() && !p.test.is_empty()), "{file}");
        }
    }
}
