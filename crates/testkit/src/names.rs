//! The check every enum named on the command line shares: each value's name parses
//! back to it, and an unknown name is refused with a message that quotes it.

use std::fmt::{Debug, Display};
use std::str::FromStr;

/// Asserts that each of `all` parses back from `name(value)`, and that `unknown` is
/// refused with an error whose message quotes it (`"fast"` for `fast`).
///
/// ```
/// espalier_testkit::assert_names_round_trip(&[true, false], |b| if b { "true" } else { "false" }, "maybe");
/// ```
#[track_caller]
pub fn assert_names_round_trip<T>(all: &[T], name: impl Fn(T) -> &'static str, unknown: &str)
where
    T: Copy + Debug + PartialEq + FromStr,
    T::Err: Display + Debug,
{
    for &value in all {
        assert_eq!(
            name(value).parse::<T>().ok(),
            Some(value),
            "{:?} does not parse back",
            name(value)
        );
    }
    let err = unknown.parse::<T>().err().unwrap_or_else(|| panic!("{unknown:?} was accepted"));
    assert!(
        err.to_string().contains(&format!("{unknown:?}")),
        "the error does not quote {unknown:?}: {err}"
    );
}
