//! Checking files against a grammar language (`espalier check --lang LANG FILE...`).
//!
//! Contract (used by checks outside the test suite; keep it stable): for each invalid
//! file exactly one line, `FILE:LINE:COL: expected one of ...`, for its first error
//! (LINE and COL 1-based, COL in characters). A file that cannot be read (missing, a
//! directory, over [`crate::source_file::MAX_SOURCE_BYTES`]) gets one line on the
//! error stream instead, `cannot read FILE: why`, and counts as unreadable.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use espalier_grammar::Language;

use crate::Checked;

/// Line and column (1-based, column in characters) of byte `offset` in `text`.
pub fn line_col(text: &[u8], offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let col = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    (line, col)
}

/// Checks one file's `text`; `Err(line)` is the report line for an invalid file.
/// Terminal names in the expected set are shown through `renames` (e.g. `NL` as
/// `NEWLINE`).
pub fn check_text(
    grammar: &Arc<Language>,
    renames: &[(&str, &str)],
    path: &Path,
    text: &[u8],
) -> Result<(), String> {
    // Both grammar languages' compilers refuse these before parsing (CPython: "source
    // code string cannot contain null bytes" / invalid UTF-8; Go: "illegal character
    // NUL" / "invalid UTF-8 encoding"), whatever a literal's grammar would take.
    if let Some((offset, what)) = source_encoding_error(text) {
        let (line, col) = line_col(text, offset);
        return Err(format!(
            "{}:{line}:{col}: expected one of nothing here ({what})",
            path.display()
        ));
    }
    let mut r = grammar.recognizer();
    let res = r.push_bytes(text).and_then(|_| r.finish());
    res.map_err(|e| {
        let (line, col) = line_col(text, e.offset);
        let mut expected: Vec<String> = e
            .expected
            .iter()
            .map(|n| {
                renames
                    .iter()
                    .find(|(from, _)| from == n)
                    .map_or_else(|| n.clone(), |(_, to)| to.to_string())
            })
            .collect();
        expected.sort();
        expected.dedup();
        let list =
            if expected.is_empty() { "nothing here".to_string() } else { expected.join(" ") };
        format!("{}:{line}:{col}: expected one of {list} ({})", path.display(), e.message)
    })
}

/// The first byte that makes `text` no source file at all: invalid UTF-8 or a NUL byte
/// (its offset, and what is wrong).
fn source_encoding_error(text: &[u8]) -> Option<(usize, &'static str)> {
    let utf8 = std::str::from_utf8(text).err().map(|e| (e.valid_up_to(), "invalid UTF-8"));
    let nul = text.iter().position(|&b| b == 0).map(|at| (at, "a NUL byte"));
    match (utf8, nul) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

/// Checks every file, writing the report lines to `out` (stopping quietly when `out`
/// is closed, e.g. piped into `head`) and `cannot read FILE: why` to `errors` for each
/// file that cannot be read.
pub fn check_files(
    grammar: &Arc<Language>,
    renames: &[(&str, &str)],
    files: &[PathBuf],
    out: &mut dyn Write,
    errors: &mut dyn Write,
) -> Checked {
    crate::source_file::check_each(files, out, errors, |path, text| {
        check_text(grammar, renames, path, &text).err()
    })
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
    fn errors_are_located_and_renamed() {
        let py = espalier_grammar::python().unwrap();
        let renames = [("NAME", "IDENTIFIER")];
        let e = check_text(&py, &renames, Path::new("t.py"), b"def f(x):\n    return x +\n")
            .unwrap_err();
        assert!(e.starts_with("t.py:2:15: expected one of "), "{e}");
        assert!(e.contains("IDENTIFIER") && !e.contains(" NAME"), "{e}");
        assert!(check_text(&py, &renames, Path::new("t.py"), b"x = [1,\n 2]\n").is_ok());
        let e = check_text(&py, &renames, Path::new("t.py"), b"x = 1\ny = 'a\0b'\n").unwrap_err();
        assert!(e.starts_with("t.py:2:7: ") && e.contains("NUL"), "{e}");
        let e = check_text(&py, &renames, Path::new("t.py"), b"s = 'caf\xe9'\n").unwrap_err();
        assert!(e.starts_with("t.py:1:9: ") && e.contains("UTF-8"), "{e}");
    }

    #[test]
    fn unreadable_files_are_input_errors_not_verdicts() {
        let py = espalier_grammar::python().unwrap();
        let (mut out, mut errors) = (Vec::new(), Vec::new());
        let files = [PathBuf::from("/nonexistent/x.py"), PathBuf::from("/")];
        let found = check_files(&py, &[], &files, &mut out, &mut errors);
        assert_eq!(found, Checked { invalid: 0, unreadable: 2 });
        assert_eq!(found.exit_code(), 2);
        assert!(out.is_empty());
        let text = String::from_utf8(errors).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines[0].starts_with("cannot read /nonexistent/x.py: no such file"), "{text}");
        assert!(lines[1].starts_with("cannot read /: it is a directory"), "{text}");
    }
}
