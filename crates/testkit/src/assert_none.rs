//! The end of a suite that gathers its failures before it judges them: one
//! assertion that lists the first few, so a broken change shows a sample at once.

/// How many of the problems a failure lists.
const SHOWN: usize = 30;

/// Fails the test when `problems` is not empty: the message says `what` they are,
/// how many, and lists the first 30, one a line.
///
/// ```
/// espalier_testkit::assert_none(&Vec::<String>::new(), "masks that differ");
/// ```
#[track_caller]
pub fn assert_none<S: AsRef<str>>(problems: &[S], what: &str) {
    if problems.is_empty() {
        return;
    }
    let shown: Vec<&str> = problems.iter().take(SHOWN).map(AsRef::as_ref).collect();
    panic!("{what} ({}):\n{}", problems.len(), shown.join("\n"));
}

#[cfg(test)]
mod tests {
    use super::assert_none;

    #[test]
    fn no_problems_pass() {
        assert_none::<String>(&[], "none");
    }

    #[test]
    #[should_panic(expected = "bad things (2):\na\nb")]
    fn problems_fail_with_their_list() {
        assert_none(&["a", "b"], "bad things");
    }
}
