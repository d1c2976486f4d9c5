//! Reading a source file for `espalier check`: at most [`MAX_SOURCE_BYTES`], so an
//! endless or huge input (`/dev/zero`, a multi-gigabyte log passed by mistake) is
//! refused with a clear message in bounded time and memory instead of filling memory.
//! Other read errors (a directory, a missing file, `/proc/self/mem`) come back as a
//! short sentence (the system's message where there is no plainer one).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::Checked;

/// The largest source file `check` reads: 128 MiB (above the 100 MB of the hostile
/// suite's slow size, which is checked in full; the read holds the file once).
pub const MAX_SOURCE_BYTES: u64 = 128 << 20;

/// The bytes of the file at `path`, or why they cannot be had (a sentence).
pub fn read_source(path: &Path) -> Result<Vec<u8>, String> {
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err("it is a directory".into());
    }
    let file = std::fs::File::open(path).map_err(|e| describe(&e))?;
    let mut text = Vec::new();
    file.take(MAX_SOURCE_BYTES + 1).read_to_end(&mut text).map_err(|e| describe(&e))?;
    if text.len() as u64 > MAX_SOURCE_BYTES {
        return Err(format!("the file is larger than {} MiB", MAX_SOURCE_BYTES >> 20));
    }
    Ok(text)
}

/// The one line `espalier check` writes for a file it cannot read: `cannot read FILE:
/// why`.
pub fn cannot_read(path: &Path, why: &str) -> String {
    format!("cannot read {}: {why}", path.display())
}

/// Checks `files` in order: `verdict` gives each file's report line when it is
/// invalid (`None` when valid). Writes the lines to `out` (stopping quietly when `out`
/// is closed, e.g. piped into `head`) and `cannot read FILE: why` to `errors` for each
/// file that cannot be read.
pub fn check_each(
    files: &[PathBuf],
    out: &mut dyn Write,
    errors: &mut dyn Write,
    mut verdict: impl FnMut(&Path, Vec<u8>) -> Option<String>,
) -> Checked {
    let mut found = Checked::default();
    for path in files {
        let text = match read_source(path) {
            Ok(text) => text,
            Err(e) => {
                found.unreadable += 1;
                let _ = writeln!(errors, "{}", cannot_read(path, &e));
                continue;
            }
        };
        if let Some(line) = verdict(path, text) {
            found.invalid += 1;
            if writeln!(out, "{line}").is_err() {
                break;
            }
        }
    }
    found
}

/// An I/O error as a short sentence.
fn describe(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_file_is_refused_and_a_directory_names_itself() {
        let e = read_source(Path::new("/dev/zero")).unwrap_err();
        assert!(e.contains("larger than 128 MiB"), "{e}");
        assert_eq!(read_source(Path::new("/")).unwrap_err(), "it is a directory");
        assert_eq!(read_source(Path::new("/nonexistent/x")).unwrap_err(), "no such file");
        assert_eq!(read_source(Path::new("/dev/null")).unwrap(), b"");
    }
}
