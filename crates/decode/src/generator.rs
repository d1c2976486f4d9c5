//! The generation loop as a state machine that does no I/O ("sans-IO"): it says which
//! tokens the model must be fed next ([`Generator::next_input`]) and takes the logits
//! back ([`Generator::step`]). The native driver ([`crate::run`]) and the browser
//! (where the model is async) both run exactly this code.
//!
//! One step: logits -> constraint (mask, or the cheap check first in rejection mode)
//! -> sampler -> commit (see `generator/step.rs`). Prompt healing rolls the KV cache
//! back: the prompt's last token is left out of the context and regenerated with its
//! bytes as the forced prefix.
//!
//! This file holds the generation's state, its start, [`Generator::rewind`] and the
//! stop rules after a token; one step, as a few verbs, is in `generator/step.rs`. The
//! wrap-up (`wrap_up.rs`), stop strings under a constraint (`cut_states.rs`) and the
//! mask under a forced prefix (`forced_prefix.rs`) live in files of their own.

use std::sync::Arc;

use espalier_constraint::{Constraint, TokenSet, Vocab};
use serde::{Deserialize, Serialize};

use crate::cut_states::CutStates;
use crate::stop::is_stop_token;
use crate::trace::{How, StepTrace};
use crate::wrap_up::WrapUp;
use crate::{DecodeError, Mode, Sampler, StopReason};

pub use crate::generate_config::GenerateConfig;
pub use crate::stats::Stats;
pub use crate::wrap_up::WRAP_UP_MARGIN;

mod step;

/// What the model must be fed before the next [`Generator::step`]: truncate its KV
/// cache to `keep` positions, run `tokens`, and return the logits of the last one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Feed<'a> {
    /// Positions of the KV cache to keep (the rest is rolled back).
    pub keep: usize,
    /// Tokens to run after them (never empty).
    pub tokens: &'a [u32],
}

/// The result of one step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepOutcome {
    /// The chosen token (EOS on an end-of-sequence step; `None` at a dead end).
    pub token: Option<u32>,
    /// How it was chosen.
    pub how: How,
    /// Set when the generation stopped at this step.
    pub stop: Option<StopReason>,
    /// The step's trace, when [`GenerateConfig::trace`] is on.
    pub trace: Option<StepTrace>,
}

/// State restored by [`Generator::rewind`].
#[derive(Clone, Debug)]
struct Snapshot<C> {
    constraint: C,
    forced: Vec<u8>,
    text_len: usize,
    sampler: Sampler,
    stats: Stats,
}

/// One constrained generation in progress.
#[derive(Clone, Debug)]
pub struct Generator<C> {
    vocab: Arc<Vocab>,
    config: GenerateConfig,
    constraint: C,
    sampler: Sampler,
    /// Prompt (minus a healed last token) then generated tokens: the model's context.
    context: Vec<u32>,
    prompt_len: usize,
    /// Leading positions of `context` the model's KV cache holds correctly.
    valid_cache: usize,
    generated: Vec<u32>,
    hows: Vec<How>,
    /// Bytes of the generated tokens (starting with the healed prompt bytes).
    text: Vec<u8>,
    /// Leading bytes of `text` that belong to the prompt (prompt healing).
    skip: usize,
    /// Where a stop string cut the text: `text` keeps the cut bytes so that
    /// [`Generator::rewind`] to an earlier step finds them again.
    cut_at: Option<usize>,
    /// Bytes the constraint has committed that no token has produced yet.
    forced: Vec<u8>,
    /// The constraint before each of the last few committed tokens, for stop strings.
    cut_states: CutStates<C>,
    stop: Option<StopReason>,
    mask: TokenSet,
    history: Vec<Snapshot<C>>,
    stats: Stats,
    wrap_up: WrapUp,
    /// The next step, prepared before its logits ([`Generator::prepare`]).
    prepared: Option<step::StepScratch>,
}

impl<C: Constraint> Generator<C> {
    /// Starts a generation after `prompt`. The constraint must already reflect every
    /// byte the output continues (for a completion, the prompt's code has been
    /// committed to it; for a chat answer, nothing).
    pub fn new(
        vocab: Arc<Vocab>,
        constraint: C,
        prompt: &[u32],
        config: GenerateConfig,
    ) -> Result<Self, DecodeError> {
        if prompt.is_empty() {
            return Err(DecodeError::EmptyPrompt);
        }
        if let Some((position, &id)) =
            prompt.iter().enumerate().find(|(_, &id)| id as usize >= vocab.len())
        {
            return Err(DecodeError::TokenOutOfRange { id, position, vocab: vocab.len() });
        }
        if let Some(width) = constraint.vocab_width().filter(|&w| w != vocab.len()) {
            return Err(DecodeError::VocabMismatch { constraint: width, vocab: vocab.len() });
        }
        let mut context = prompt.to_vec();
        let mut forced = Vec::new();
        let mut stats = Stats::default();
        if config.heal_prompt && context.len() >= 2 {
            let last = context[context.len() - 1];
            if !vocab.is_special(last) && !vocab.bytes(last).is_empty() {
                context.pop();
                forced = vocab.bytes(last).to_vec();
                stats.heals += 1;
            }
        }
        let skip = forced.len();
        let mask = TokenSet::empty(vocab.len());
        let wrap_up = WrapUp::new(&config, vocab.len());
        let cut_states = CutStates::new(&config.stop_strings);
        let stop = (config.max_tokens == 0).then_some(StopReason::MaxTokens);
        Ok(Self {
            sampler: Sampler::new(config.sampling.clone()),
            prompt_len: context.len(),
            valid_cache: 0,
            vocab,
            config,
            constraint,
            context,
            generated: Vec::new(),
            hows: Vec::new(),
            text: Vec::new(),
            skip,
            cut_at: None,
            forced,
            cut_states,
            stop,
            mask,
            history: Vec::new(),
            stats,
            wrap_up,
            prepared: None,
        })
    }

    /// Reuses a model KV cache that already holds `cached` (e.g. the previous
    /// generation's [`Generator::cached_context`]): the positions this generation's
    /// context shares with it are not fed again (the first [`Feed`] keeps them). Saves
    /// the prefill of a long shared prompt (the sLua language document) across scripts.
    pub fn reuse_cache(mut self, cached: &[u32]) -> Self {
        let common = cached.iter().zip(&self.context).take_while(|(a, b)| a == b).count();
        self.valid_cache = common.min(self.context.len() - 1);
        self
    }

    /// The tokens the model's KV cache holds correctly now (prompt and fed tokens).
    pub fn cached_context(&self) -> &[u32] {
        &self.context[..self.valid_cache]
    }

    /// Whether the wrap-up is in force for the next step: the mode constrains, the
    /// constraint has not said it lacks a finishing mask, and a loop was found, or the
    /// wrap-up began earlier, or at most `wrap_up` tokens of the budget are left, or
    /// fewer than the finishing distance (last probed) plus [`WRAP_UP_MARGIN`].
    pub fn wrapping_up(&self) -> bool {
        self.wrap_up.in_force(&self.stats, self.tokens_left())
    }

    fn tokens_left(&self) -> usize {
        self.config.max_tokens.saturating_sub(self.generated.len())
    }

    /// What to feed the model next; `None` once the generation has stopped.
    pub fn next_input(&self) -> Option<Feed<'_>> {
        if self.stop.is_some() {
            return None;
        }
        let keep = self.valid_cache.min(self.context.len() - 1);
        Some(Feed { keep, tokens: &self.context[keep..] })
    }

    /// Goes back to the state before step `step` (0 = before the first generated
    /// token). Needs [`GenerateConfig::history`]; the next [`Generator::next_input`]
    /// tells the driver how far to roll the KV cache back.
    pub fn rewind(&mut self, step: usize) -> Result<(), DecodeError> {
        if step >= self.history.len() {
            return Err(DecodeError::NoSuchStep {
                step,
                available: self.history.len().saturating_sub(1),
            });
        }
        self.history.truncate(step + 1);
        let snap = self.history.pop().expect("history holds step");
        self.restore(snap);
        self.prepared = None;
        self.cut_at = None;
        self.cut_states.clear();
        self.generated.truncate(step);
        self.hows.truncate(step);
        // An EOS step chose a token without adding it to the context.
        let in_context = self.generated.iter().filter(|&&id| !self.is_stop_token(id)).count();
        self.context.truncate(self.prompt_len + in_context);
        self.valid_cache = self.valid_cache.min(self.context.len());
        self.stop = None;
        self.wrap_up.forget_distance();
        Ok(())
    }

    /// The state a step may change before it records its token.
    fn snapshot(&self) -> Snapshot<C> {
        Snapshot {
            constraint: self.constraint.clone(),
            forced: self.forced.clone(),
            text_len: self.text.len(),
            sampler: self.sampler.clone(),
            stats: self.stats.clone(),
        }
    }

    /// Puts back what [`Generator::snapshot`] kept.
    fn restore(&mut self, snap: Snapshot<C>) {
        self.constraint = snap.constraint;
        self.forced = snap.forced;
        self.text.truncate(snap.text_len);
        self.sampler = snap.sampler;
        self.stats = snap.stats;
    }

    /// The generated text so far (lossy UTF-8; healed prompt bytes left out).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(self.text_bytes()).into_owned()
    }

    /// The generated bytes so far (healed prompt bytes left out).
    pub fn text_bytes(&self) -> &[u8] {
        let end = self.cut_at.unwrap_or(self.text.len());
        &self.text[self.skip.min(end)..end]
    }

    /// The generated token ids (EOS included when it ended the generation).
    pub fn tokens(&self) -> &[u32] {
        &self.generated
    }

    /// How each generated token was chosen.
    pub fn hows(&self) -> &[How] {
        &self.hows
    }

    /// Why the generation stopped, once it has.
    pub fn stop_reason(&self) -> Option<&StopReason> {
        self.stop.as_ref()
    }

    /// The constraint in its current state.
    pub fn constraint(&self) -> &C {
        &self.constraint
    }

    /// The configuration.
    pub fn config(&self) -> &GenerateConfig {
        &self.config
    }

    /// The vocabulary.
    pub fn vocab(&self) -> &Vocab {
        &self.vocab
    }

    /// Running totals.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Number of prompt tokens in the model's context (after prompt healing).
    pub fn prompt_len(&self) -> usize {
        self.prompt_len
    }

    /// The lossy text of one token.
    pub fn token_text(&self, id: u32) -> String {
        String::from_utf8_lossy(self.vocab.bytes(id)).into_owned()
    }

    /// EOS and every other special token end a generation.
    fn is_stop_token(&self, id: u32) -> bool {
        is_stop_token(&self.vocab, id)
    }

    /// Whether the mode consults the constraint at all.
    fn constrained(&self) -> bool {
        self.config.mode != Mode::None
    }

    /// What the constraint expected, for a dead-end report.
    fn expected(&self) -> String {
        let ins = self.constraint.inspect();
        if let Some(regex) = ins.regex {
            return format!("regex {regex}");
        }
        if !ins.accept_sequences.is_empty() {
            let seqs: Vec<String> = ins.accept_sequences.iter().map(|s| s.join(" ")).collect();
            return format!("one of [{}]", seqs.join(", "));
        }
        if !self.forced.is_empty() {
            return format!("a token continuing {:?}", String::from_utf8_lossy(&self.forced));
        }
        format!("({}) no token the model scores finitely", ins.kind)
    }

    /// Whether the constraint says the text up to `at` is not a complete program, so
    /// that a stop string beginning there must not end the generation. `false` without
    /// a constraint (the stop is honoured).
    fn incomplete_at(&self, at: usize) -> bool {
        self.constrained() && self.cut_states.incomplete_at(&self.text, at)
    }

    /// Stop strings, repetition and the budget, after a token was added.
    fn check_stops(&mut self, new_bytes: usize) {
        // Stop strings are looked for in the generated text only, as HumanEval's
        // harnesses do: a match that starts in the prompt's healed bytes (the prompt's
        // last "\n" then the model's "//" at column 0 inside a Go function) would cut
        // the whole completion, and no constraint state before the prompt's end could
        // tell whether the text before it is complete.
        let generated = &self.text[self.skip.min(self.text.len())..];
        let found = crate::stop::find_stop(
            generated,
            new_bytes.min(generated.len()),
            &self.config.stop_strings,
        );
        if let Some((at, stop)) = found.map(|(at, stop)| (at + self.skip, stop)) {
            if self.incomplete_at(at) {
                self.stats.stops_passed += 1;
            } else {
                let stop = stop.to_string();
                self.cut_at = Some(at);
                self.stop = Some(StopReason::StopString { stop });
                return;
            }
        }
        // Once wrapping up after a loop, every token brings the end nearer: no guard.
        if let (Some(guard), None) = (&self.config.repetition, &self.stats.loop_detected) {
            let mut found = guard
                .check(&self.generated)
                .map(|(period, span)| StopReason::Repetition { period, span });
            if found.is_none() && self.text[self.text.len() - new_bytes..].contains(&b'\n') {
                found = guard.check_lines(self.text_bytes()).map(|(period, repeats, line)| {
                    StopReason::RepeatedLines { period, repeats, line }
                });
            }
            if let Some(reason) = found {
                if let Some(reason) = self.wrap_up.take_over_loop(
                    &mut self.constraint,
                    &self.vocab,
                    &mut self.stats,
                    reason,
                ) {
                    self.stop = Some(reason);
                    return;
                }
            }
        }
        if self.generated.len() >= self.config.max_tokens {
            self.stop = Some(StopReason::MaxTokens);
        }
    }
}
