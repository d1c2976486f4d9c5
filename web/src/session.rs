//! One generation in progress (in the worker): the decode loop's [`Generator`] plus
//! the bookkeeping the page shows (time to first token, tokens per second). The model
//! is driven asynchronously (WebGPU reads are async), one step per call.

use std::{cell::Cell, time::Duration};

use espalier_decode::{GenerateConfig, Generator, Lang, LangConstraint, StepOutcome, StepTrace};
use espalier_engine::prefetched_logits::step_on_device;

use crate::{
    backend::BackendKind,
    engine::Engine,
    protocol::Speed,
    yield_now::{console_log, now_ms, yield_now},
};

/// On the CPU backend the prompt runs through the model this many tokens at a time,
/// with a yield to the worker's event loop between the chunks, so a Stop takes effect
/// within a chunk (about as long as one generated token) rather than after the whole
/// prompt (hundreds of tokens for sLua, seconds). WebGPU takes the prompt in one pass.
const CPU_PREFILL_CHUNK: usize = 8;

/// A generation the user started with Generate or Step.
pub struct Session {
    /// The decode loop (sans-IO: it says what to feed, takes logits back).
    pub generator: Generator<LangConstraint>,
    /// The prompt's token count.
    pub prompt_tokens: usize,
    /// When the user started the session (performance.now(), ms), before the
    /// constraint was built and the prompt encoded.
    pub started_ms: f64,
    /// Milliseconds from start to the first generated token, once known.
    pub first_token_ms: Option<f64>,
    /// Total milliseconds spent in steps (model + constraint + sampling).
    pub busy_ms: f64,
    /// Total milliseconds the model's forward passes took.
    pub model_ms: f64,
    /// The first step's model time: the whole prompt (prefill).
    pub prefill_ms: Option<f64>,
    /// Total milliseconds in the constraint (masks, commits), from the traces.
    pub constraint_ms: f64,
    /// The language whose translation is shown once the generation stops (`None` for
    /// a middle: the page shows the whole file, not a translation).
    translated_as: Option<Lang>,
}

/// Why a session could not start or a step failed.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionError(pub String);

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SessionError {}

impl Session {
    /// Starts a generation of `lang` code for the user's `request` in `config`'s mode
    /// (the playground's [`crate::lang::task_for`]: its prompt, constraint and stops);
    /// with a `suffix`, the middle between `request` and it.
    pub fn start(
        engine: &mut Engine,
        lang: Lang,
        request: &str,
        suffix: Option<&str>,
        config: GenerateConfig,
        full_prompt: bool,
    ) -> Result<Session, SessionError> {
        let started_ms = now_ms();
        let task = crate::lang::task_for(lang, config.mode, request, suffix, full_prompt);
        // The engine's prompt (FIM tokens for a model trained to infill, else a chat
        // turn in the model's own format), constraint and settings, as the CLI's.
        let prepared = espalier_engine::prepare(&engine.tokenizer, &mut engine.kits, &task, config)
            .map_err(|e| SessionError(e.to_string()))?;
        let (ids, constraint, config) = (prepared.ids, prepared.constraint, prepared.config);
        let prompt_tokens = ids.len();
        // The wrap-up (config.wrap_up) takes its finishing masks from the constraint.
        let generator = Generator::new(engine.vocab.clone(), constraint, &ids, config)
            .map_err(|e| SessionError(format!("could not start the generation: {e}")))?;
        console_log(&format!(
            "session start ({} prompt tokens, constraint, tokenizer, decode loop): {:.0} ms",
            prompt_tokens,
            now_ms() - started_ms
        ));
        Ok(Session {
            generator,
            prompt_tokens,
            started_ms,
            first_token_ms: None,
            busy_ms: 0.0,
            model_ms: 0.0,
            prefill_ms: None,
            constraint_ms: 0.0,
            translated_as: suffix.is_none().then_some(lang),
        })
    }

    /// Once the generation has stopped: the code's translation (sLua to Lua) or why
    /// there is none; `None` while it goes on, for a middle, or for a language run as
    /// written.
    pub fn translation(&self) -> Option<Result<String, String>> {
        self.generator.stop_reason()?;
        self.translated_as?.evaluation().translation(&self.generator.text())
    }

    /// Whether the generation has stopped (EOS, budget, stop string, dead end).
    pub fn finished(&self) -> bool {
        self.generator.next_input().is_none()
    }

    /// Runs one step: feeds the model what the generator asks for, hands the logits
    /// back, and returns the step's trace; `None` when `stop` was set between two
    /// prompt chunks (the step is not taken; the next one feeds the same tokens again).
    /// A step on WebGPU reads back only the draw's candidates and the trace's
    /// ([`espalier_engine::prefetched_logits`]: the step's mask is computed while the
    /// GPU runs the pass; the whole vector only when the draw needs it); on the CPU the
    /// step takes the whole vector.
    pub async fn step(
        &mut self,
        engine: &mut Engine,
        stop: &Cell<bool>,
    ) -> Result<Option<StepTrace>, SessionError> {
        let t0 = now_ms();
        let (keep, tokens) = match self.generator.next_input() {
            Some(feed) => (feed.keep, feed.tokens.to_vec()),
            None => return Err(SessionError("the generation has already stopped".into())),
        };
        let (outcome, model_ms) = match engine.backend.kind == BackendKind::WebGpu {
            true => self.device_step(engine, keep, &tokens).await?,
            false => match self.host_step(engine, keep, &tokens, stop).await? {
                Some(step) => step,
                None => return Ok(None),
            },
        };
        let t1 = now_ms();
        if tokens.len() > 1 {
            console_log(&format!(
                "step with {} input tokens: model {model_ms:.0} ms, decode loop {:.0} ms",
                tokens.len(),
                t1 - t0 - model_ms
            ));
        }
        self.busy_ms += t1 - t0;
        self.model_ms += model_ms;
        self.prefill_ms.get_or_insert(model_ms);
        if self.first_token_ms.is_none() {
            self.first_token_ms = Some(t1 - self.started_ms);
        }
        let trace = outcome
            .trace
            .ok_or_else(|| SessionError("the decode loop returned no trace".into()))?;
        self.constraint_ms += trace.constraint_ms;
        Ok(Some(trace))
    }

    /// A step with the logits left on the GPU: the pass submitted, the mask computed
    /// meanwhile, the lists read back. Returns the outcome and the model's milliseconds
    /// (recording the pass plus waiting for the lists once the mask was done).
    async fn device_step(
        &mut self,
        engine: &mut Engine,
        keep: usize,
        tokens: &[u32],
    ) -> Result<(StepOutcome, f64), SessionError> {
        let t0 = now_ms();
        let logits = engine.forward_device(keep, tokens).map_err(SessionError)?;
        let recorded = now_ms() - t0;
        let step = step_on_device(&mut self.generator, logits, ms(recorded))
            .await
            .map_err(SessionError)?;
        if step.read_host {
            console_log("a WebGPU step read the whole logits vector (its draw left the lists)");
        }
        Ok((step.outcome, recorded + step.waited.as_secs_f64() * 1e3))
    }

    /// A step with the logits read back whole: on the CPU the prompt in chunks with
    /// yields between them (a Stop between two chunks: `None`). Returns the outcome
    /// and the model's milliseconds (the yields included: a few ms a chunk).
    async fn host_step(
        &mut self,
        engine: &mut Engine,
        keep: usize,
        tokens: &[u32],
        stop: &Cell<bool>,
    ) -> Result<Option<(StepOutcome, f64)>, SessionError> {
        let t0 = now_ms();
        let chunk = match engine.backend.kind {
            BackendKind::Cpu => CPU_PREFILL_CHUNK,
            BackendKind::WebGpu => tokens.len().max(1),
        };
        let mut done = 0;
        let mut logits = Vec::new();
        for part in tokens.chunks(chunk) {
            if done > 0 {
                yield_now().await;
                if stop.get() {
                    return Ok(None);
                }
            }
            let t = now_ms();
            logits = engine.forward(keep + done, part).await.map_err(SessionError)?;
            if tokens.len() > chunk {
                console_log(&format!(
                    "prompt chunk at {}: {} tokens in {:.0} ms",
                    keep + done,
                    part.len(),
                    now_ms() - t
                ));
            }
            done += part.len();
        }
        let model_ms = now_ms() - t0;
        let outcome = self
            .generator
            .step(&logits, ms(model_ms))
            .map_err(|e| SessionError(format!("decode step failed: {e}")))?;
        Ok(Some((outcome, model_ms)))
    }

    /// The speed figures the page shows.
    pub fn speed(&self) -> Speed {
        let (model_ms, constraint_ms) = self.mean_split_ms();
        Speed {
            prompt_tokens: self.prompt_tokens,
            first_token_ms: self.first_token_ms,
            tokens_per_s: self.tokens_per_s(),
            prefill_ms: self.prefill_ms.unwrap_or(0.0),
            model_ms,
            constraint_ms,
        }
    }

    /// Mean milliseconds per generated token in the model (leaving out the first
    /// step, which runs the whole prompt) and in the constraint (every step).
    pub fn mean_split_ms(&self) -> (f64, f64) {
        let n = self.generator.tokens().len();
        let decode = if n >= 2 {
            (self.model_ms - self.prefill_ms.unwrap_or(0.0)) / (n - 1) as f64
        } else {
            0.0
        };
        (decode, if n > 0 { self.constraint_ms / n as f64 } else { 0.0 })
    }

    /// How many steps the generation has taken.
    pub fn steps(&self) -> usize {
        // A dead end is a step without a token, so not `tokens().len()`.
        self.generator.stats().steps
    }

    /// Goes back to the state before step `step` (0 = nothing generated).
    pub fn rewind(&mut self, step: usize) -> Result<(), SessionError> {
        self.generator.rewind(step).map_err(|e| SessionError(format!("could not go back: {e}")))
    }

    /// Generated tokens per second of busy time.
    pub fn tokens_per_s(&self) -> f64 {
        let n = self.generator.tokens().len() as f64;
        if self.busy_ms > 0.0 {
            n * 1000.0 / self.busy_ms
        } else {
            0.0
        }
    }
}

/// Milliseconds as a [`Duration`].
fn ms(ms: f64) -> Duration {
    Duration::from_secs_f64(ms.max(0.0) / 1000.0)
}
