//! How the generation loop consults the constraint at each step. The modes compare
//! the cost of masking against the adaptive rejection of the seed paper; all of them
//! (except `none`) produce only text the constraint accepts.

use serde::{Deserialize, Serialize};

/// The constraint mode of a generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Ignore the constraint: the model's own distribution (the baseline).
    None,
    /// Compute the full token mask at every step and sample under it.
    Mask,
    /// Adaptive rejection: sample from the unmasked distribution, check the token with
    /// the cheap `allows`, and only when it fails compute the mask and re-sample.
    /// The result has exactly the masked distribution: a token `t` in the allowed set
    /// `A` comes out with `p(t) + (1 - p(A)) p(t)/p(A) = p(t)/p(A)`.
    Rejection,
    /// SynCode-style masks (a sound over-approximation from the DFA mask store). The
    /// loop runs as in [`Mode::Mask`]; the caller builds the grammar constraint with
    /// the SynCode strategy, and a token the parser then refuses is re-sampled.
    Syncode,
    /// Python: the exact mask of [`Mode::Mask`] intersected with the names layer (a
    /// name read must resolve by Python's scoping rules; `espalier_names::layer`).
    Names,
}

impl Mode {
    /// Every mode, in the order reports list them.
    pub const ALL: [Mode; 5] =
        [Mode::None, Mode::Mask, Mode::Rejection, Mode::Syncode, Mode::Names];

    /// The modes of every grammar language (all but `names`, which is Python's).
    pub const GRAMMAR: [Mode; 4] = [Mode::None, Mode::Mask, Mode::Rejection, Mode::Syncode];

    /// The lower-case name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Mode::None => "none",
            Mode::Mask => "mask",
            Mode::Rejection => "rejection",
            Mode::Syncode => "syncode",
            Mode::Names => "names",
        }
    }

    /// Whether the loop masks before sampling (rather than checking after).
    pub fn masks_first(self) -> bool {
        matches!(self, Mode::Mask | Mode::Syncode | Mode::Names)
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A mode name that is not one of `none`, `mask`, `rejection`, `syncode`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown constraint mode {0:?}: expected none, mask, rejection, syncode or names")]
pub struct UnknownMode(pub String);

impl std::str::FromStr for Mode {
    type Err = UnknownMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Mode::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| UnknownMode(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        espalier_testkit::assert_names_round_trip(&Mode::ALL, Mode::name, "masked");
    }
}
