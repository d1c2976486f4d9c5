//! How a grammar constraint computes its masks, chosen at run time.

use std::fmt;
use std::str::FromStr;

/// The three mask strategies of [`crate::GrammarConstraint`] (issue 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Walk the vocabulary trie through the byte-level recognizer: sound and
    /// complete (a token is allowed iff the text stays a viable prefix).
    Exact,
    /// SynCode: accept sequences and remainder from the incremental parser, looked
    /// up in a precomputed DFA mask store. Sound, may over-approximate.
    Syncode,
    /// Adaptive rejection: no mask is precomputed; [`crate::Constraint::allows`]
    /// checks one token's bytes in O(length). `fill_mask` checks every token that
    /// way (correct, but meant for tests, not decoding).
    Check,
}

impl Strategy {
    /// Every strategy, for loops in tests and benchmarks.
    pub const ALL: [Strategy; 3] = [Strategy::Exact, Strategy::Syncode, Strategy::Check];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Exact => "exact",
            Strategy::Syncode => "syncode",
            Strategy::Check => "check",
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A strategy name that is not one of `exact`, `syncode`, `check`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown mask strategy {0:?} (expected exact, syncode or check)")]
pub struct UnknownStrategy(pub String);

impl FromStr for Strategy {
    type Err = UnknownStrategy;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "exact" => Ok(Strategy::Exact),
            "syncode" => Ok(Strategy::Syncode),
            "check" => Ok(Strategy::Check),
            other => Err(UnknownStrategy(other.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        espalier_testkit::assert_names_round_trip(&Strategy::ALL, Strategy::name, "fast");
    }
}
