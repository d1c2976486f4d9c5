//! [`Stats`]: the running totals of one generation, for speed reports and the
//! evaluations; [`crate::Generator::rewind`] restores them with the rest of a step.

use serde::{Deserialize, Serialize};

use crate::StopReason;

/// Running totals of a generation, for speed reports and the evaluation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Steps taken (tokens chosen, EOS included).
    pub steps: usize,
    /// Full masks computed (including healing prefix masks).
    pub masks: usize,
    /// Candidates refused (rejection-mode misses, commits refused).
    pub refusals: usize,
    /// Token heals (constraint-requested and prompt healing).
    pub heals: usize,
    /// Seconds in the constraint.
    pub constraint_s: f64,
    /// Seconds in the sampler.
    pub sample_s: f64,
    /// Seconds in the model, as the driver reported per step.
    pub model_s: f64,
    /// Steps at which the wrap-up narrowed the mask to the finishing mask.
    #[serde(default)]
    pub wrap_up_steps: usize,
    /// Stop strings passed over because, under a constraint, the text before them was
    /// not a complete program (e.g. `\ndef ` inside an open string literal).
    #[serde(default)]
    pub stops_passed: usize,
    /// The first step (from 0) at which the wrap-up was in force, if it ever was.
    #[serde(default)]
    pub wrap_up_from: Option<usize>,
    /// The loop the repetition guard found, when it switched the generation to the
    /// wrap-up ([`crate::GenerateConfig::wrap_up_on_repetition`]) instead of stopping it.
    #[serde(default)]
    pub loop_detected: Option<StopReason>,
    /// When the wrap-up began on the finishing distance: the distance that began it
    /// (after the token it took back, or before the step when the budget was already
    /// under it plus the margin).
    #[serde(default)]
    pub wrap_up_distance: Option<usize>,
    /// Seconds spent probing the finishing distance (part of `constraint_s`).
    #[serde(default)]
    pub distance_s: f64,
}
