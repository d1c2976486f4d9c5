//! The check every enum named on the command line shares: each value's name parses
//! back to it, and an unknown name is refused with a message that quotes it.

use std::fmt::{Debug, Display};
use std::str::FromStr;

/// Asserts that each of `all` parses back from `name(value)`, and that `unknown` is
/// refused with an error whose message quotes it (`"fast"` for `fast`).
///
/// ```
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// enum Speed {
///     Slow,
///     Fast,
/// }
///
/// impl std::str::FromStr for Speed {
///     type Err = String;
///     fn from_str(s: &str) -> Result<Self, String> {
///         match s {
///             "slow" => Ok(Speed::Slow),
///             "fast" => Ok(Speed::Fast),
///             _ => Err(format!("unknown speed {s:?}")),
///         }
///     }
/// }
///
/// let name = |s| match s {
///     Speed::Slow => "slow",
///     Speed::Fast => "fast",
/// };
/// espalier_testkit::assert_names_round_trip(&[Speed::Slow, Speed::Fast], name, "warp");
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
