//! When a generation ends: end of sequence, a stop string, the token budget, a dead
//! end of the constraint, or degenerate repetition (a small model's usual failure:
//! the same line or token forever), which is reported as such rather than passed off
//! as running out of tokens.

use serde::{Deserialize, Serialize};

/// Why a generation stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum StopReason {
    /// The model chose the end-of-sequence (or another special) token; under a
    /// constraint only when the program was complete.
    Eos,
    /// The text reached a stop string; the text is cut where it begins.
    StopString {
        /// The stop string that matched.
        stop: String,
    },
    /// The token budget ran out.
    MaxTokens,
    /// The last tokens repeat with a short period: the model is looping.
    Repetition {
        /// Length in tokens of the repeating cycle.
        period: usize,
        /// How many tokens the repetition spans.
        span: usize,
    },
    /// No token was allowed (the constraint has no continuation among the tokens the
    /// model gives a finite score, or every candidate was refused at commit).
    DeadEnd {
        /// What the constraint expected, from its inspection.
        expected: String,
    },
}

impl StopReason {
    /// Whether the generation ended on its own (EOS or stop string) rather than being
    /// cut off: the "finished" count of the evaluations.
    pub fn is_finished(&self) -> bool {
        matches!(self, StopReason::Eos | StopReason::StopString { .. })
    }

    /// A short name for reports.
    pub fn name(&self) -> &'static str {
        match self {
            StopReason::Eos => "eos",
            StopReason::StopString { .. } => "stop_string",
            StopReason::MaxTokens => "max_tokens",
            StopReason::Repetition { .. } => "repetition",
            StopReason::DeadEnd { .. } => "dead_end",
        }
    }
}

/// Detects degenerate repetition: the last `span` tokens are periodic with a period of
/// at most `max_period`, where `span = max(min_span, min_repeats * period)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepetitionGuard {
    /// Longest cycle (in tokens) looked for.
    pub max_period: usize,
    /// Fewest tokens a repetition must cover before it counts.
    pub min_span: usize,
    /// Fewest full repeats of the cycle.
    pub min_repeats: usize,
}

impl Default for RepetitionGuard {
    /// 64 tokens that are one cycle of up to 32 tokens repeated at least 4 times
    /// (e.g. 8 copies of an 8-token line): legitimate code hardly ever does that.
    fn default() -> Self {
        Self { max_period: 32, min_span: 64, min_repeats: 4 }
    }
}

impl RepetitionGuard {
    /// The `(period, span)` of a degenerate repetition at the end of `tokens`, if any.
    /// Costs `O(max_period * span)` per call, microseconds for the defaults.
    pub fn check(&self, tokens: &[u32]) -> Option<(usize, usize)> {
        for period in 1..=self.max_period {
            let span = self.min_span.max(self.min_repeats * period);
            if tokens.len() < span {
                continue;
            }
            let tail = &tokens[tokens.len() - span..];
            if (period..span).all(|i| tail[i] == tail[i - period]) {
                return Some((period, span));
            }
        }
        None
    }
}

/// Where the earliest of `stops` begins in `text`, looking only at matches that end
/// within the last `new_bytes` bytes (earlier ones were checked at earlier steps).
pub fn find_stop<'s>(text: &[u8], new_bytes: usize, stops: &'s [String]) -> Option<(usize, &'s str)> {
    let mut best: Option<(usize, &str)> = None;
    for stop in stops.iter().filter(|s| !s.is_empty()) {
        let s = stop.as_bytes();
        let from = text.len().saturating_sub(new_bytes + s.len() - 1);
        if let Some(pos) = text[from..].windows(s.len()).position(|w| w == s) {
            let at = from + pos;
            if best.is_none_or(|(b, _)| at < b) {
                best = Some((at, stop.as_str()));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repetition_is_found_for_short_cycles_only() {
        let guard = RepetitionGuard { max_period: 4, min_span: 12, min_repeats: 3 };
        let cycle: Vec<u32> = [1, 2, 3].iter().copied().cycle().take(12).collect();
        assert_eq!(guard.check(&cycle), Some((3, 12)));
        let mut broken = cycle.clone();
        broken[5] = 9;
        assert_eq!(guard.check(&broken), None);
        assert_eq!(guard.check(&cycle[..11]), None, "too short to count");
        let long: Vec<u32> = (0..5).cycle().take(40).collect();
        assert_eq!(guard.check(&long), None, "period 5 is beyond max_period 4");
        assert_eq!(guard.check(&[7; 12]), Some((1, 12)));
    }

    #[test]
    fn stop_strings_match_across_token_boundaries() {
        let stops = vec!["\ndef ".to_string(), "\nclass".to_string()];
        let text = b"    return x\ndef foo";
        // "\ndef " completed by the last 4 bytes ("def ") plus earlier "\n".
        assert_eq!(find_stop(text, 7, &stops), Some((12, "\ndef ")));
        assert_eq!(find_stop(b"x = 1\n", 1, &stops), None);
        let both = b"a\nclass b\ndef c";
        assert_eq!(find_stop(both, both.len(), &stops), Some((1, "\nclass")));
    }
}
