//! `espalier check --lang LANG FILE...`: validates source files against a language.
//!
//! Contract (used by checks outside the test suite; keep it stable): exit status 0
//! when every file is valid, 1 otherwise; for each invalid file exactly one line on
//! stdout, `FILE:LINE:COL: expected one of ...`, for its first error (LINE and COL
//! 1-based, COL in characters). Unreadable files count as invalid.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Languages `espalier check` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// Python 3.11 (the grammar crate's `python.lark` with the indentation layer).
    Python,
    /// sLua scripts, checked in order by the tree of parsers (reports
    /// `FILE:OFFSET: expected /REGEX/`; see `crate::slua::check_files`).
    Slua,
}

/// Arguments of `espalier check`.
#[derive(clap::Args)]
pub struct Args {
    /// The language of the files.
    #[arg(long, value_enum)]
    pub lang: Lang,
    /// Files to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// sLua only: the API file (JSON); the bundled dungeon API when left out.
    #[arg(long)]
    pub api: Option<PathBuf>,
}

/// Line and column (1-based, column in characters) of byte `offset` in `text`.
fn line_col(text: &[u8], offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let col = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    (line, col)
}

/// Checks one Python file; `Err(line)` is the report line for an invalid file.
fn check_python(path: &Path, text: &[u8]) -> Result<(), String> {
    let py = espalier_grammar::python().map_err(|e| format!("{}:1:1: internal error: Python grammar: {e}", path.display()))?;
    let mut r = py.recognizer();
    let res = r.push_bytes(text).and_then(|_| r.finish());
    res.map_err(|e| {
        let (line, col) = line_col(text, e.offset);
        let mut expected: Vec<String> = e
            .expected
            .iter()
            .map(|n| match n.as_str() {
                "NL" => "NEWLINE".to_string(),
                "$END" => "EOF".to_string(),
                "MATCH" => "\"match\"".to_string(),
                "CASE" => "\"case\"".to_string(),
                _ => n.clone(),
            })
            .collect();
        expected.sort();
        expected.dedup();
        let list = if expected.is_empty() { "nothing here".to_string() } else { expected.join(" ") };
        format!("{}:{line}:{col}: expected one of {list} ({})", path.display(), e.message)
    })
}

/// Runs `espalier check`.
pub fn run(args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    if args.lang == Lang::Slua {
        return crate::slua::check_files(args.api.as_deref(), &args.files);
    }
    let mut all_ok = true;
    let mut out = std::io::stdout().lock();
    for path in &args.files {
        let text = match std::fs::read(path) {
            Ok(t) => t,
            Err(e) => {
                all_ok = false;
                if writeln!(out, "{}:1:1: expected one of nothing here (cannot read the file: {e})", path.display()).is_err() {
                    break; // stdout closed (e.g. piped into `head`)
                }
                continue;
            }
        };
        let verdict = match args.lang {
            Lang::Python => check_python(path, &text),
            Lang::Slua => Ok(()),
        };
        if let Err(line) = verdict {
            all_ok = false;
            if writeln!(out, "{line}").is_err() {
                break; // stdout closed (e.g. piped into `head`)
            }
        }
    }
    Ok(if all_ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column() {
        assert_eq!(line_col(b"ab\ncd", 4), (2, 2));
        assert_eq!(line_col("é\nxé=".as_bytes(), 6), (2, 3));
        assert_eq!(line_col(b"x", 10), (1, 2));
    }

    #[test]
    fn python_errors_are_located() {
        let e = check_python(Path::new("t.py"), b"def f(x):\n    return x +\n").unwrap_err();
        assert!(e.starts_with("t.py:2:15: expected one of "), "{e}");
        assert!(e.contains("NAME"), "{e}");
        assert!(check_python(Path::new("t.py"), b"x = [1,\n 2]\n").is_ok());
    }
}
