//! The per-step trace: what the step-through visualizer draws and what
//! `espalier generate --trace FILE` writes as JSON lines (one [`StepTrace`] a line).

use espalier_constraint::Inspection;
use serde::{Deserialize, Serialize};

use crate::StopReason;

/// How a chosen token came about; the web app colours token chips by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum How {
    /// Sampled (or argmax) from the distribution, with or without a mask.
    Sampled,
    /// The constraint allowed exactly one token.
    Forced,
    /// The first choice was refused (rejection mode, or a commit the constraint
    /// refused) and the token was drawn again under the mask.
    Resampled,
    /// Chosen under a forced prefix after token healing (or prompt healing).
    Healed,
}

/// One of the most likely tokens at a step, as the visualizer lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// Token id.
    pub id: u32,
    /// Token text (lossy UTF-8 of its bytes).
    pub text: String,
    /// Probability under the model (softmax at temperature 1, before any mask).
    pub prob: f32,
    /// Whether the constraint allowed it at this step (`None` in mode `none`).
    pub allowed: Option<bool>,
}

/// Everything that happened at one decoding step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepTrace {
    /// Step number, from 0.
    pub step: usize,
    /// The generated text after this step (lossy UTF-8).
    pub text: String,
    /// The most likely tokens before masking.
    pub candidates: Vec<Candidate>,
    /// The chosen token.
    pub chosen: u32,
    /// Its text.
    pub chosen_text: String,
    /// How it was chosen.
    pub how: How,
    /// Tokens refused at this step before the chosen one (rejections, heals).
    pub refused: Vec<u32>,
    /// Size of the token mask if one was computed at this step.
    pub mask_size: Option<usize>,
    /// Bytes the constraint had committed ahead of the tokens (healing prefix) when
    /// the token was chosen.
    pub forced_prefix: Option<String>,
    /// Milliseconds in the model's forward pass for this step (as the driver measured).
    pub model_ms: f64,
    /// Milliseconds in the constraint (mask, checks, commit).
    pub constraint_ms: f64,
    /// Milliseconds in the sampler.
    pub sample_ms: f64,
    /// The constraint's state after the step (tree of parsers, regex, accept
    /// sequences, remainder); absent in mode `none`.
    pub inspect: Option<Inspection>,
    /// Set on the last step: why the generation stopped.
    pub stop: Option<StopReason>,
    /// Whether the wrap-up narrowed this step's mask to the constraint's finishing
    /// mask (few tokens of the budget were left).
    #[serde(default)]
    pub wrap_up: bool,
}
