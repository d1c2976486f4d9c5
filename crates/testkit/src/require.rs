//! Test inputs and oracles that must be present: a missing one fails the test with the
//! command that installs it, so a green run never hides a suite that did not run.

use std::path::{Path, PathBuf};

/// The command that installs every input the test suites need (idempotent).
pub const SETUP: &str = "bash scripts/setup.sh";

/// Returns `path` if it exists; otherwise panics with `what` it is and how to get it
/// (`SETUP`, or the more specific `hint` when given).
pub fn require(path: impl AsRef<Path>, what: &str, hint: Option<&str>) -> PathBuf {
    let path = path.as_ref();
    if !path.exists() {
        panic!(
            "{what} missing at {}: run `{}` (the tests need it; they do not skip)",
            path.display(),
            hint.unwrap_or(SETUP)
        );
    }
    path.to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_existing_path_is_returned() {
        let here = env!("CARGO_MANIFEST_DIR");
        assert_eq!(require(here, "this crate", None), PathBuf::from(here));
    }

    #[test]
    fn a_missing_path_fails_with_the_setup_command() {
        let err = std::panic::catch_unwind(|| {
            require("/nonexistent/espalier-oracle", "the oracle", None)
        })
        .unwrap_err();
        let msg = err.downcast_ref::<String>().expect("a formatted message");
        assert!(
            msg.contains("/nonexistent/espalier-oracle") && msg.contains("scripts/setup.sh"),
            "{msg}"
        );
    }
}
