//! Running a [`Generator`] against a model that answers synchronously (the native
//! CLI, tests). The browser drives the same generator itself because its model is
//! async; this module only removes the boilerplate and measures prefill and decode
//! speed the way `espalier generate` reports them.

use std::borrow::Cow;

use web_time::Instant;

use espalier_constraint::Constraint;
use serde::{Deserialize, Serialize};

use crate::{DecodeError, Generator, HostLogits, Logits, StepOutcome};

/// A causal language model with a KV cache, as the loop needs it.
pub trait LanguageModel {
    /// The model's error type.
    type Error: std::error::Error + 'static;

    /// Drops cached positions from `len` on (no-op when the cache is shorter).
    fn truncate(&mut self, len: usize);

    /// Runs `tokens` after the cached positions and returns the logits of the last.
    fn forward(&mut self, tokens: &[u32]) -> Result<Vec<f32>, Self::Error>;

    /// [`LanguageModel::forward`] with the logits left where the model computed them
    /// ([`Logits`]): a GPU model keeps them on the device, and the loop reads back only
    /// what it draws (the greedy id under the step's mask). [`run`] calls this; the
    /// default reads the logits to the host.
    fn forward_logits(&mut self, tokens: &[u32]) -> Result<Box<dyn Logits + '_>, Self::Error> {
        Ok(Box::new(HostLogits(Cow::Owned(self.forward(tokens)?))))
    }
}

/// Speed of one generation, measured by [`run`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Tokens in the first (prompt) forward pass.
    pub prefill_tokens: usize,
    /// Seconds in the prompt forward pass.
    pub prefill_s: f64,
    /// Tokens fed one (or a few) at a time after the prompt.
    pub decode_tokens: usize,
    /// Seconds in decode steps, model and constraint and sampling together.
    pub decode_s: f64,
}

impl Timing {
    /// Prompt tokens per second.
    pub fn prefill_tps(&self) -> f64 {
        rate(self.prefill_tokens, self.prefill_s)
    }

    /// Generated tokens per second, everything in the loop included (the figure the
    /// constrained-vs-unconstrained comparison uses).
    pub fn decode_tps(&self) -> f64 {
        rate(self.decode_tokens, self.decode_s)
    }
}

fn rate(n: usize, s: f64) -> f64 {
    if s > 0.0 {
        n as f64 / s
    } else {
        0.0
    }
}

/// An error while driving a generation.
#[derive(Debug, thiserror::Error)]
pub enum DriveError<E: std::error::Error + 'static> {
    /// The model failed.
    #[error("model: {0}")]
    Model(#[source] E),
    /// The loop refused the input.
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

/// Runs `generator` to its end with `model`, calling `on_step` after every step (to
/// stream text or write the trace). The model's cache must hold nothing the
/// generator did not ask for (a fresh model, or one truncated to 0).
pub fn run<C: Constraint, M: LanguageModel>(
    generator: &mut Generator<C>,
    model: &mut M,
    mut on_step: impl FnMut(&Generator<C>, &StepOutcome),
) -> Result<Timing, DriveError<M::Error>> {
    let mut timing = Timing::default();
    let mut first = true;
    while let Some(feed) = generator.next_input() {
        let start = Instant::now();
        model.truncate(feed.keep);
        let n = feed.tokens.len();
        let mut logits = model.forward_logits(feed.tokens).map_err(DriveError::Model)?;
        if first {
            // The prompt's pass is timed to its end (a GPU model returns before it).
            logits.wait().map_err(|e| DecodeError::Logits(e.to_string()))?;
        }
        let model_time = start.elapsed();
        // The step's mask on the CPU while a GPU model runs the pass.
        if generator.has_work_to_prepare() {
            logits.submit().map_err(|e| DecodeError::Logits(e.to_string()))?;
        }
        generator.prepare()?;
        let outcome = generator.step_logits(&mut *logits, model_time)?;
        drop(logits);
        let total = start.elapsed().as_secs_f64();
        if first {
            timing.prefill_tokens = n;
            timing.prefill_s = model_time.as_secs_f64();
            // The first token's sampling and constraint work belong to decoding.
            timing.decode_s += total - model_time.as_secs_f64();
            first = false;
        } else {
            timing.decode_s += total;
        }
        if outcome.token.is_some() {
            timing.decode_tokens += 1;
        }
        on_step(generator, &outcome);
    }
    Ok(timing)
}
