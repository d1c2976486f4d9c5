//! [`GenerateConfig`]: everything that shapes one generation (mode, sampling, budget,
//! stop rules, healing, traces, history, wrap-up), as plain data that the CLI, the
//! evaluations and the browser fill in.

use serde::{Deserialize, Serialize};

use crate::{Mode, RepetitionGuard, SamplingConfig};

/// The wrap-up's default window ([`GenerateConfig::wrap_up`]): the finishing mask is in
/// force in the last 32 tokens of the budget at the latest (earlier where the
/// constraint's finishing distance needs more). The figure is the window of the
/// project's recorded runs with no unparsed `mask` completion (HumanEval 164 x 5 at
/// T=0.2, MBPP 300, HumanEval-X Go 164, 300-token budgets: `results/eval/README.md`),
/// and it holds the wrap-ups those runs needed: from the wrap-up's first step to the
/// end took a median of 2-4 tokens and at most 9 (HumanEval), 26 (MBPP), 36 (Go); the
/// longer ones (FIM up to 88) began on the finishing distance, which needs no window.
/// sLua has no finishing distance: its wrap-ups took 7-142 tokens, so long sLua budgets
/// want a wider window (`eval slua` records: 300 of 1,500).
pub const DEFAULT_WRAP_UP: usize = 32;

fn default_wrap_up() -> Option<usize> {
    Some(DEFAULT_WRAP_UP)
}

fn default_true() -> bool {
    true
}

/// Everything that shapes one generation. The default is correct by construction
/// where the constraint can be: the wrap-up ([`GenerateConfig::wrap_up`], the finishing
/// mask near the end of the budget) and the hand-over of a loop to it
/// ([`GenerateConfig::wrap_up_on_repetition`]) are on; a front end turns them off
/// with `wrap_up: None, wrap_up_on_repetition: false`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerateConfig {
    /// How the constraint is consulted.
    pub mode: Mode,
    /// How tokens are drawn.
    pub sampling: SamplingConfig,
    /// Token budget for the generated text.
    pub max_tokens: usize,
    /// Stop when the generated text contains one of these (the text is cut there).
    pub stop_strings: Vec<String>,
    /// Stop on degenerate repetition; `None` disables the guard.
    pub repetition: Option<RepetitionGuard>,
    /// Roll back the prompt's last token and regenerate it under its bytes as a forced
    /// prefix (so a prompt ending in `"\n"` can continue with the `"\n    "` token).
    pub heal_prompt: bool,
    /// Build a [`crate::StepTrace`] at every step (costs a top-k scan and an `inspect()`).
    pub trace: bool,
    /// How many candidates a trace lists.
    pub trace_top: usize,
    /// Keep a snapshot per step so [`crate::Generator::rewind`] can go back (the web app's
    /// "Back"); costs one constraint clone per step.
    pub history: bool,
    /// "Wrap up": the mask is intersected with the constraint's finishing mask (tokens
    /// that lead towards the shortest completion), so a constrained generation closes
    /// its program instead of running out of budget mid-statement. It begins once the
    /// tokens left of `max_tokens` are at most this many (the minimum window), or
    /// where the token just chosen would leave fewer tokens than the constraint's
    /// finishing distance after it plus [`crate::generator::WRAP_UP_MARGIN`]: that token is taken back
    /// and the step samples from the finishing mask instead (the distance is probed
    /// after every token before the wrap-up; a constraint that cannot tell has only
    /// the window). Since every finishing-mask token lowers the distance, the program
    /// then ends within the budget. It stays on to the end. Needs a constraint with a finishing mask
    /// ([`crate::Constraint::fill_finishing_mask`] returning `true`); `None`, or a constraint
    /// without one: off (`Some(0)`: the finishing distance alone). A step whose
    /// intersection would be empty keeps the plain mask (the wrap-up never causes a
    /// dead end). On by default: `Some(`[`DEFAULT_WRAP_UP`]`)`.
    #[serde(default = "default_wrap_up")]
    pub wrap_up: Option<usize>,
    /// When the repetition guard finds a loop and the constraint has a finishing mask, switch to
    /// the wrap-up (whatever the budget left) instead of stopping; the loop is recorded
    /// in [`crate::Stats::loop_detected`]. The finishing mask only admits tokens that bring
    /// the end nearer, so the generation cannot loop again. On by default.
    #[serde(default = "default_true")]
    pub wrap_up_on_repetition: bool,
}

impl Default for GenerateConfig {
    fn default() -> Self {
        Self {
            mode: Mode::Mask,
            sampling: SamplingConfig::greedy(),
            max_tokens: 256,
            stop_strings: Vec::new(),
            repetition: Some(RepetitionGuard::default()),
            heal_prompt: false,
            trace: false,
            trace_top: 8,
            history: false,
            wrap_up: default_wrap_up(),
            wrap_up_on_repetition: true,
        }
    }
}

impl GenerateConfig {
    /// Applies a front end's wrap-up options to this configuration: `off` (the CLI's
    /// `--no-wrap-up`) turns the wrap-up and the hand-over of loops off; otherwise
    /// `window` (`--wrap-up N`), when given, sets the window and the rest stays as it is
    /// (the defaults: on, [`DEFAULT_WRAP_UP`]).
    pub fn with_wrap_up(mut self, window: Option<usize>, off: bool) -> Self {
        if off {
            self.wrap_up = None;
            self.wrap_up_on_repetition = false;
        } else if let Some(n) = window {
            self.wrap_up = Some(n);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wrap_up_is_on_by_default_and_can_be_turned_off() {
        let c = GenerateConfig::default();
        assert_eq!(c.wrap_up, Some(DEFAULT_WRAP_UP));
        assert!(c.wrap_up_on_repetition);
        let off = GenerateConfig::default().with_wrap_up(Some(8), true);
        assert_eq!((off.wrap_up, off.wrap_up_on_repetition), (None, false));
        let eight = GenerateConfig::default().with_wrap_up(Some(8), false);
        assert_eq!((eight.wrap_up, eight.wrap_up_on_repetition), (Some(8), true));
        assert_eq!(GenerateConfig::default().with_wrap_up(None, false), c);
    }

    #[test]
    fn a_config_without_the_wrap_up_fields_gets_the_defaults() {
        let mut v = serde_json::to_value(GenerateConfig::default()).unwrap();
        let o = v.as_object_mut().unwrap();
        o.remove("wrap_up");
        o.remove("wrap_up_on_repetition");
        let c: GenerateConfig = serde_json::from_value(v).unwrap();
        assert_eq!(c, GenerateConfig::default());
    }
}
