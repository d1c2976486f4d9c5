//! Suites that loop over a table of languages instead of one copy per language: each
//! language's check runs even when an earlier one fails, the test then fails naming
//! every language that failed, and a table that misses a registered language (or names
//! one the registry does not know) fails, so a new language cannot go untested.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `check` on every case of `cases` (each named by `name`), catching each failure
/// (its message is printed as it fails), then panics naming the languages that failed.
/// `registered` are the languages the suite must cover, as the registry lists them:
/// the cases' names must be exactly those.
pub fn each_language<C>(
    registered: &[&str],
    cases: &[C],
    name: impl Fn(&C) -> &str,
    check: impl Fn(&C),
) {
    let mut names: Vec<&str> = cases.iter().map(&name).collect();
    names.sort_unstable();
    let mut want = registered.to_vec();
    want.sort_unstable();
    assert_eq!(names, want, "the suite's cases (left) are not the registered languages (right)");
    let failed: Vec<&str> = cases
        .iter()
        .filter(|case| catch_unwind(AssertUnwindSafe(|| check(case))).is_err())
        .map(&name)
        .collect();
    assert!(failed.is_empty(), "failed for {failed:?} (each one's message is above)");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_runs_and_every_failure_is_named() {
        let ran = std::cell::RefCell::new(Vec::new());
        let result = catch_unwind(AssertUnwindSafe(|| {
            each_language(
                &["go", "python"],
                &["python", "go"],
                |c| c,
                |c| {
                    ran.borrow_mut().push(*c);
                    assert_ne!(*c, "python", "python fails");
                },
            )
        }));
        let message = *result.unwrap_err().downcast::<String>().unwrap();
        assert_eq!(ran.into_inner(), ["python", "go"], "go still runs after python failed");
        assert!(message.contains("[\"python\"]"), "{message}");
        each_language(&["go"], &["go"], |c| c, |_| {});
    }

    #[test]
    fn a_registered_language_without_a_case_fails() {
        let missing = catch_unwind(|| each_language(&["go", "python"], &["go"], |c| c, |_| {}));
        assert!(missing.is_err());
        let unknown = catch_unwind(|| each_language(&["go"], &["go", "lua"], |c| c, |_| {}));
        assert!(unknown.is_err());
    }
}
