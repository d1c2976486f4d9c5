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
    /// The last lines repeat (ignoring indentation) with a short period: the model is
    /// looping, e.g. opening the same nested definition again and again at a growing
    /// indentation, which no token period shows.
    RepeatedLines {
        /// Lines in the repeating cycle.
        period: usize,
        /// How many times the cycle occurs in a row.
        repeats: usize,
        /// The first line of the cycle (trimmed).
        line: String,
    },
    /// No token was allowed (the constraint has no continuation among the tokens the
    /// model gives a finite score, or every candidate was refused at commit).
    DeadEnd {
        /// What the constraint expected, from its inspection.
        expected: String,
    },
}

impl StopReason {
    /// Whether the repetition guard stopped the generation (tokens or lines).
    pub fn is_repetition(&self) -> bool {
        matches!(self, StopReason::Repetition { .. } | StopReason::RepeatedLines { .. })
    }

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
            StopReason::RepeatedLines { .. } => "repeated_lines",
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
    /// Longest cycle of lines looked for (0: no line check). Lines compare trimmed;
    /// blank lines are skipped.
    #[serde(default)]
    pub max_line_period: usize,
    /// Fewest repeats in a row of a line cycle.
    #[serde(default)]
    pub min_line_repeats: usize,
    /// Fewest non-blank bytes a line cycle must hold, so that closing lines such as
    /// `end`, `}` or `return x` repeated a few times do not count.
    #[serde(default)]
    pub min_line_cycle_bytes: usize,
}

impl Default for RepetitionGuard {
    /// 64 tokens that are one cycle of up to 32 tokens repeated at least 4 times
    /// (e.g. 8 copies of an 8-token line), or a cycle of up to 8 lines holding at least
    /// 12 bytes repeated 4 times in a row: legitimate code hardly ever does that. (The
    /// sLua evaluation met a 7-line block repeated until the budget with 4 lines.)
    fn default() -> Self {
        Self {
            max_period: 32,
            min_span: 64,
            min_repeats: 4,
            max_line_period: 8,
            min_line_repeats: 4,
            min_line_cycle_bytes: 12,
        }
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

impl RepetitionGuard {
    /// The `(period, repeats, first line)` of a cycle of lines repeating at the end of
    /// `text` (complete lines only), if any. Looks at the last
    /// `max_line_period * min_line_repeats` non-blank lines.
    pub fn check_lines(&self, text: &[u8]) -> Option<(usize, usize, String)> {
        if self.max_line_period == 0 || self.min_line_repeats < 2 {
            return None;
        }
        let want = self.max_line_period * self.min_line_repeats;
        let complete = &text[..text.iter().rposition(|&b| b == b'\n')?];
        let mut lines: Vec<Vec<u8>> = Vec::with_capacity(want);
        for line in complete.rsplit(|&b| b == b'\n') {
            let norm = normalize_line(line);
            if norm.is_empty() {
                continue;
            }
            lines.push(norm);
            if lines.len() == want {
                break;
            }
        }
        lines.reverse();
        for period in 1..=self.max_line_period {
            let span = period * self.min_line_repeats;
            if lines.len() < span {
                break;
            }
            let tail = &lines[lines.len() - span..];
            let bytes: usize = tail[..period].iter().map(|l| l.len()).sum();
            if bytes >= self.min_line_cycle_bytes
                && (period..span).all(|i| tail[i] == tail[i - period])
            {
                let first = String::from_utf8_lossy(&tail[0]).into_owned();
                return Some((period, self.min_line_repeats, first));
            }
        }
        None
    }
}

/// A line as the line check compares it: without its indentation. (Numbers are
/// compared too: reading every number as one made a HumanEval completion that
/// enumerates `if a == 0 and b == 1:` cases count as a loop.)
fn normalize_line(line: &[u8]) -> Vec<u8> {
    line.trim_ascii().to_vec()
}

/// Where the earliest of `stops` begins in `text`, looking only at matches that end
/// within the last `new_bytes` bytes (earlier ones were checked at earlier steps).
pub fn find_stop<'s>(
    text: &[u8],
    new_bytes: usize,
    stops: &'s [String],
) -> Option<(usize, &'s str)> {
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

/// `text` up to where the earliest of `stops` begins (all of it when none does): what
/// a generation that wrote `text` keeps. For the registry's tests of its stop strings.
#[cfg(test)]
pub(crate) fn cut_at_stop<'t>(text: &'t str, stops: &[String]) -> &'t str {
    find_stop(text.as_bytes(), text.len(), stops).map_or(text, |(at, _)| &text[..at])
}

/// Whether token `id` ends a generation: EOS and every other special token do.
#[inline]
pub(crate) fn is_stop_token(vocab: &espalier_constraint::Vocab, id: u32) -> bool {
    id == vocab.eos() || vocab.is_special(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repetition_is_found_for_short_cycles_only() {
        let guard = RepetitionGuard {
            max_period: 4,
            min_span: 12,
            min_repeats: 3,
            ..RepetitionGuard::default()
        };
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
    fn repeated_lines_are_found_whatever_the_indentation_but_not_closing_lines() {
        let guard = RepetitionGuard::default();
        let mut nested = String::new();
        for depth in 0..4 {
            nested.push_str(&"    ".repeat(depth));
            nested.push_str("local tick = function(self)\n");
        }
        let (period, repeats, line) = guard.check_lines(nested.as_bytes()).expect("nested loop");
        assert_eq!((period, repeats), (1, 4));
        assert_eq!(line, "local tick = function(self)");
        let cases: String = (0..4)
            .map(|i| format!("    if a == {} and b == {}:\n        return 1\n", i / 2, i % 2))
            .collect();
        assert_eq!(
            guard.check_lines(cases.as_bytes()),
            None,
            "an enumeration of cases is not a loop"
        );
        assert_eq!(
            guard.check_lines(&nested.as_bytes()[..nested.len() - 1]),
            None,
            "3 complete lines only"
        );
        let ends = "x = 1\n      end\n    end\n  end\nend\n";
        assert_eq!(
            guard.check_lines(ends.as_bytes()),
            None,
            "short closing lines repeat legitimately"
        );
        let two = "a = f(1)\nb = g(a)\n".repeat(4);
        assert_eq!(guard.check_lines(two.as_bytes()).map(|r| r.0), Some(2));
        let block = "local tick = function(who)\n  if who.hp < 3 then\n    Damage(who, 2);\n  end;\n  x = 1;\n  y = 2;\n  z = 3;\n".repeat(4);
        assert_eq!(guard.check_lines(block.as_bytes()).map(|r| r.0), Some(7), "a 7-line block");
        assert_eq!(
            guard.check_lines(&block.as_bytes()[..block.len() - 1]),
            None,
            "not yet 4 full repeats"
        );
        let off = RepetitionGuard { max_line_period: 0, ..RepetitionGuard::default() };
        assert_eq!(off.check_lines(two.as_bytes()), None);
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
