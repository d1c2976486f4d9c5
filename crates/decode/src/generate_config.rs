//! [`GenerateConfig`]: everything that shapes one generation (mode, sampling, budget,
//! stop rules, healing, traces, history, wrap-up), as plain data that the CLI, the
//! evaluations and the browser fill in.

use serde::{Deserialize, Serialize};

use crate::{Mode, RepetitionGuard, SamplingConfig};

/// Everything that shapes one generation.
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
    /// dead end).
    #[serde(default)]
    pub wrap_up: Option<usize>,
    /// When the repetition guard finds a loop and the constraint has a finishing mask, switch to
    /// the wrap-up (whatever the budget left) instead of stopping; the loop is recorded
    /// in [`crate::Stats::loop_detected`]. The finishing mask only admits tokens that bring
    /// the end nearer, so the generation cannot loop again.
    #[serde(default)]
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
            wrap_up: None,
            wrap_up_on_repetition: false,
        }
    }
}
