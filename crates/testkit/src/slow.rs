//! The gate of the slow test suites: `ESPALIER_SLOW=1` runs them, unset or `0` leaves
//! them out. Every crate's tests ask here, so `ESPALIER_SLOW=0` means off everywhere.

/// The environment variable that switches the slow suites on.
pub const VAR: &str = "ESPALIER_SLOW";

/// Whether the slow suites should run. Panics (a test failure naming the variable) on a
/// value other than unset, empty, `0` or `1`, so a typo does not silently run the
/// fast suites instead.
pub fn slow() -> bool {
    match slow_from(std::env::var(VAR).ok().as_deref()) {
        Ok(on) => on,
        Err(e) => panic!("{e}"),
    }
}

/// [`slow`] on an explicit value of the variable (`None`: unset).
pub fn slow_from(value: Option<&str>) -> Result<bool, String> {
    match value.map(str::trim) {
        None | Some("") | Some("0") => Ok(false),
        Some("1") => Ok(true),
        Some(other) => {
            Err(format!("{VAR}={other:?}: expected 1 (slow suites on) or 0 / unset (off)"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_and_unset_mean_off_one_means_on_others_are_errors() {
        assert_eq!(slow_from(None), Ok(false));
        assert_eq!(slow_from(Some("")), Ok(false));
        assert_eq!(slow_from(Some("0")), Ok(false));
        assert_eq!(slow_from(Some("1")), Ok(true));
        assert_eq!(slow_from(Some(" 1\n")), Ok(true));
        for bad in ["yes", "true", "2", "off"] {
            let e = slow_from(Some(bad)).unwrap_err();
            assert!(e.contains("ESPALIER_SLOW") && e.contains(bad), "{e}");
        }
    }
}
