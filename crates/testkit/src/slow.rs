//! The gate of the slow test suites: `ESPALIER_SLOW=1` runs them, unset or `0` leaves
//! them out, anything else is an error. Every crate's tests ask here, so
//! `ESPALIER_SLOW=0` means off everywhere; the Python tests read it the same way
//! (`crates/python/tests/slow_gate.py`, which `scripts/test-python.sh` asks too).

/// The environment variable that switches the slow suites on.
pub const VAR: &str = "ESPALIER_SLOW";

/// Whether the slow suites should run. Panics (a test failure naming the variable) on a
/// value other than unset, `0` or `1` (an empty value or one with spaces included), so
/// a typo does not silently run the fast suites instead.
pub fn slow() -> bool {
    let value = std::env::var_os(VAR).map(|v| v.to_string_lossy().into_owned());
    match slow_from(value.as_deref()) {
        Ok(on) => on,
        Err(e) => panic!("{e}"),
    }
}

/// [`slow`] on an explicit value of the variable (`None`: unset).
pub fn slow_from(value: Option<&str>) -> Result<bool, String> {
    match value {
        None | Some("0") => Ok(false),
        Some("1") => Ok(true),
        Some(other) => {
            Err(format!("{VAR}={other:?}: expected 1 (slow suites on) or 0 / unset (off)"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same table as `crates/python/tests/test_slow_gate.py`.
    #[test]
    fn zero_and_unset_mean_off_one_means_on_others_are_errors() {
        assert_eq!(slow_from(None), Ok(false));
        assert_eq!(slow_from(Some("0")), Ok(false));
        assert_eq!(slow_from(Some("1")), Ok(true));
        for bad in ["", " 1", "1\n", "yes", "true", "2", "off"] {
            let e = slow_from(Some(bad)).unwrap_err();
            assert!(e.contains("ESPALIER_SLOW"), "{e}");
        }
    }
}
