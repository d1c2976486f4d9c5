//! What several suites of this binary share: running the `espalier` binary on a model
//! file and reading its stderr.

use std::path::Path;
use std::process::{Command, Output};

/// The repository root (the commands' working directory: the CLI's relative paths,
/// e.g. its mask store, start there).
pub const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// `espalier ARGS --model MODEL` from the repository root, run to its end.
pub fn espalier_on(args: &[&str], model: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_espalier"))
        .args(args)
        .arg("--model")
        .arg(model)
        .current_dir(ROOT)
        .output()
        .expect("run espalier")
}

/// A run's stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
