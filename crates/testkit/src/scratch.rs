//! A scratch folder of small files for a test that reads files from disk (the `check`
//! commands): made fresh, named after the test and the process, removed when dropped
//! (a failing assertion removes it too).

use std::path::{Path, PathBuf};

/// A folder under the system's temporary directory, removed on drop.
pub struct ScratchDir {
    dir: PathBuf,
}

impl ScratchDir {
    /// A fresh folder `espalier-NAME-PID` holding `files` (name, text).
    pub fn new(name: &str, files: &[(&str, &str)]) -> ScratchDir {
        let dir = std::env::temp_dir().join(format!("espalier-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for (file, text) in files {
            let path = dir.join(file);
            std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        ScratchDir { dir }
    }

    /// The path of `file` in the folder.
    pub fn path(&self, file: &str) -> PathBuf {
        self.dir.join(file)
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_written_and_the_folder_goes_with_the_value() {
        let scratch = ScratchDir::new("scratch-test", &[("a.txt", "one"), ("b.txt", "two")]);
        assert_eq!(std::fs::read_to_string(scratch.path("b.txt")).unwrap(), "two");
        let dir = scratch.dir().to_path_buf();
        assert!(dir.is_dir());
        drop(scratch);
        assert!(!dir.exists());
    }
}
