//! The test corpora's file lists: every file with one extension below a folder.

use std::path::{Path, PathBuf};

/// Every file below `dir` whose extension is `ext`, sorted, skipping the folders
/// named in `skip` (empty when `dir` is missing: the caller's `require` says why).
pub fn files_under(dir: impl AsRef<Path>, ext: &str, skip: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, ext: &str, skip: &[&str], out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let p = e.path();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                if p.file_name().is_some_and(|n| !skip.iter().any(|s| n == *s)) {
                    walk(&p, ext, skip, out);
                }
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    walk(dir.as_ref(), ext, skip, &mut v);
    v.sort();
    v
}
