//! The generation loop as a state machine that does no I/O ("sans-IO"): it says which
//! tokens the model must be fed next ([`Generator::next_input`]) and takes the logits
//! back ([`Generator::step`]). The native driver ([`crate::run`]) and the browser
//! (where the model is async) both run exactly this code.
//!
//! One step: logits -> constraint (mask, or the cheap check first in rejection mode)
//! -> sampler -> commit. A commit the constraint refuses bans the token for this step
//! and samples again; a commit that asks to heal keeps the accepted bytes as a forced
//! prefix and samples again from the *same* logits (the refused token was never fed to
//! the model, so the KV cache needs no rollback for it). Prompt healing does roll the
//! cache back: the prompt's last token is left out of the context and regenerated with
//! its bytes as the forced prefix.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use espalier_constraint::{Commit, Constraint, TokenSet, Vocab};
use serde::{Deserialize, Serialize};
use web_time::Instant;

use crate::sampler::top_candidates;
use crate::trace::{Candidate, How, StepTrace};
use crate::{DecodeError, Mode, RepetitionGuard, Sampler, SamplingConfig, StopReason};

/// Candidates refused at one step before the step gives up as a dead end: a sound
/// mask makes refusals rare (SynCode's over-approximation costs a few at most), so
/// hitting this means the constraint's mask and its commit disagree.
const MAX_REFUSALS_PER_STEP: usize = 1000;

/// Tokens of budget the wrap-up keeps beyond the finishing distance
/// ([`Constraint::finishing_distance`]) when it begins, for the steps where the
/// finishing mask cannot steer (it then keeps the allowed tokens of least cost).
pub const WRAP_UP_MARGIN: usize = 4;

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
    /// Build a [`StepTrace`] at every step (costs a top-k scan and an `inspect()`).
    pub trace: bool,
    /// How many candidates a trace lists.
    pub trace_top: usize,
    /// Keep a snapshot per step so [`Generator::rewind`] can go back (the web app's
    /// "Back"); costs one constraint clone per step.
    pub history: bool,
    /// "Wrap up": the mask is intersected with the constraint's finishing mask (tokens
    /// that lead towards the shortest completion), so a constrained generation closes
    /// its program instead of running out of budget mid-statement. It begins once the
    /// tokens left of `max_tokens` are at most this many (the minimum window), or
    /// where the token just chosen would leave fewer tokens than the constraint's
    /// finishing distance after it plus [`WRAP_UP_MARGIN`]: that token is taken back
    /// and the step samples from the finishing mask instead (the distance is probed
    /// after every token before the wrap-up; a constraint that cannot tell has only
    /// the window). Since every finishing-mask token lowers the distance, the program
    /// then ends within the budget. It stays on to the end. Needs a constraint with a finishing mask
    /// ([`Constraint::fill_finishing_mask`] returning `true`); `None`, or a constraint
    /// without one: off (`Some(0)`: the finishing distance alone). A step whose
    /// intersection would be empty keeps the plain mask (the wrap-up never causes a
    /// dead end).
    #[serde(default)]
    pub wrap_up: Option<usize>,
    /// When the repetition guard finds a loop and the constraint has a finishing mask, switch to
    /// the wrap-up (whatever the budget left) instead of stopping; the loop is recorded
    /// in [`Stats::loop_detected`]. The finishing mask only admits tokens that bring
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
    /// wrap-up ([`GenerateConfig::wrap_up_on_repetition`]) instead of stopping it.
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
    /// The constraint before each of the last few committed tokens, with the `text`
    /// offset it stands at: a stop string is honoured under a constraint only where
    /// the text before it is complete, which these states tell (the clones are the
    /// ones a commit takes anyway, kept instead of dropped).
    cut_states: VecDeque<(usize, C)>,
    stop: Option<StopReason>,
    mask: TokenSet,
    history: Vec<Snapshot<C>>,
    stats: Stats,
    /// Whether the constraint has a finishing mask ([`Constraint::fill_finishing_mask`]
    /// returned `true`), once a wrap-up has asked it: `None` until then. A constraint
    /// that answers `false` once is taken to have none for the rest of the generation.
    finishing: Option<bool>,
    /// Scratch set for the finishing mask.
    finish_mask: TokenSet,
    /// The finishing distance of the constraint's state and the number of generated
    /// tokens it was probed at (see [`GenerateConfig::wrap_up`]).
    distance: Option<(usize, Option<usize>)>,
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
        if let Some((position, &id)) = prompt.iter().enumerate().find(|(_, &id)| id as usize >= vocab.len()) {
            return Err(DecodeError::TokenOutOfRange { id, position, vocab: vocab.len() });
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
        let finish_mask = TokenSet::empty(vocab.len());
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
            cut_states: VecDeque::new(),
            stop,
            mask,
            history: Vec::new(),
            stats,
            finishing: None,
            finish_mask,
            distance: None,
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
        self.can_wrap_up()
            && (self.stats.loop_detected.is_some()
                || self.stats.wrap_up_from.is_some()
                || self.budget_reached(self.tokens_left(), self.distance.and_then(|(_, d)| d)).is_some())
    }

    fn tokens_left(&self) -> usize {
        self.config.max_tokens.saturating_sub(self.generated.len())
    }

    /// Whether `left` tokens are within the wrap-up's window (`Some(None)`) or under
    /// the finishing `distance` plus the margin (`Some(Some(distance))`).
    fn budget_reached(&self, left: usize, distance: Option<usize>) -> Option<Option<usize>> {
        let n = self.config.wrap_up?;
        if left <= n {
            return Some(None);
        }
        distance.filter(|&d| left < d + WRAP_UP_MARGIN).map(Some)
    }

    /// Whether the wrap-up may still begin on the finishing distance: it has a window,
    /// is not on yet, and no loop switched it on.
    fn guarding(&self) -> bool {
        self.config.wrap_up.is_some() && self.can_wrap_up() && self.stats.wrap_up_from.is_none() && self.stats.loop_detected.is_none()
    }

    /// Probes the constraint's finishing distance (for `tokens` generated, `left` of the
    /// budget then), timed.
    fn probe_distance(&mut self, tokens: usize, left: usize) -> Option<usize> {
        let t = Instant::now();
        let d = self.constraint.finishing_distance(&self.vocab, left.saturating_sub(WRAP_UP_MARGIN));
        self.stats.distance_s += t.elapsed().as_secs_f64();
        self.distance = Some((tokens, d));
        d
    }

    /// Whether a wrap-up is possible at all: a constraining mode and a constraint not
    /// known to lack a finishing mask.
    fn can_wrap_up(&self) -> bool {
        self.finishing != Some(false) && self.config.mode != Mode::None
    }

    /// Asks the constraint for its finishing mask (into `finish_mask`) and remembers
    /// whether it has one.
    fn ask_finishing(&mut self) -> bool {
        let has = self.constraint.fill_finishing_mask(&self.vocab, &mut self.finish_mask);
        self.finishing = Some(has);
        has
    }

    /// What to feed the model next; `None` once the generation has stopped.
    pub fn next_input(&self) -> Option<Feed<'_>> {
        if self.stop.is_some() {
            return None;
        }
        let keep = self.valid_cache.min(self.context.len() - 1);
        Some(Feed { keep, tokens: &self.context[keep..] })
    }

    /// Takes the logits of the last fed token (at least one per vocabulary token;
    /// extra padding entries are ignored) and the time the model took, and chooses the
    /// next token.
    pub fn step(&mut self, logits: &[f32], model_time: Duration) -> Result<StepOutcome, DecodeError> {
        if self.stop.is_some() {
            return Err(DecodeError::Finished);
        }
        let n = self.vocab.len();
        if logits.len() < n {
            return Err(DecodeError::LogitsLength { expected: n, got: logits.len() });
        }
        let logits = &logits[..n];
        self.valid_cache = self.context.len();
        if self.config.history {
            self.history.push(Snapshot {
                constraint: self.constraint.clone(),
                forced: self.forced.clone(),
                text_len: self.text.len(),
                sampler: self.sampler.clone(),
                stats: self.stats.clone(),
            });
        }
        self.stats.steps += 1;
        self.stats.model_s += model_time.as_secs_f64();
        let forced_at_start = (!self.forced.is_empty()).then(|| String::from_utf8_lossy(&self.forced).into_owned());
        let constrained = self.config.mode != Mode::None;
        let mut constraint_time = Duration::ZERO;
        // The distance of the state before the first token (after a rewind too); later
        // ones come from the guard below, after each token.
        if self.guarding() && self.forced.is_empty() && self.distance.is_none_or(|(at, _)| at != self.generated.len()) {
            let t = Instant::now();
            self.probe_distance(self.generated.len(), self.tokens_left());
            constraint_time += t.elapsed();
        }
        let mut sample_time = Duration::ZERO;
        let mut refused: Vec<u32> = Vec::new();
        let mut how = if self.forced.is_empty() { How::Sampled } else { How::Healed };
        let mut mask_valid = false;
        let mut mask_size = None;
        let mut tried_unmasked = false;
        let mut wrapping = self.wrapping_up();
        let mut wrapped = false;
        if !self.forced.is_empty() || (constrained && (self.config.mode.masks_first() || wrapping)) {
            let t = Instant::now();
            wrapped |= self.fill_mask(wrapping);
            constraint_time += t.elapsed();
            self.stats.masks += 1;
            mask_valid = true;
            mask_size = Some(self.mask.count());
        }
        // The first wrap-up step may find that the constraint has no finishing mask.
        wrapping &= self.finishing != Some(false);
        if wrapping && self.stats.wrap_up_from.is_none() {
            self.stats.wrap_up_from = Some(self.stats.steps - 1);
            self.stats.wrap_up_distance = self.budget_reached(self.tokens_left(), self.distance.and_then(|(_, d)| d)).flatten();
        }
        let candidates = if self.config.trace { self.trace_candidates(logits, mask_valid) } else { Vec::new() };

        let chosen: Option<u32> = loop {
            if refused.len() >= MAX_REFUSALS_PER_STEP {
                break None;
            }
            // Choose a candidate.
            let use_mask = !self.forced.is_empty()
                || (constrained && (self.config.mode.masks_first() || tried_unmasked || wrapping));
            let candidate = if use_mask {
                if !mask_valid {
                    let t = Instant::now();
                    wrapped |= self.fill_mask(wrapping);
                    constraint_time += t.elapsed();
                    self.stats.masks += 1;
                    mask_valid = true;
                    mask_size = Some(self.mask.count());
                }
                let t = Instant::now();
                let mask = &self.mask;
                let c = self.sampler.sample(logits, |id| mask.contains(id as usize) && !refused.contains(&id));
                sample_time += t.elapsed();
                c
            } else {
                let t = Instant::now();
                let c = self.sampler.sample(logits, |id| !refused.contains(&id));
                sample_time += t.elapsed();
                if constrained {
                    tried_unmasked = true;
                    if let Some(id) = c {
                        let t = Instant::now();
                        let ok = self.allowed_now(id);
                        constraint_time += t.elapsed();
                        if !ok {
                            refused.push(id);
                            how = How::Resampled;
                            continue;
                        }
                    }
                }
                c
            };
            let Some(id) = candidate else { break None };

            // Commit it.
            if self.is_stop_token(id) {
                if constrained && (!self.forced.is_empty() || !self.constraint.is_complete()) {
                    refused.push(id);
                    how = How::Resampled;
                    continue;
                }
                break Some(id);
            }
            let bytes = self.vocab.bytes(id);
            if !self.forced.is_empty() && !bytes.is_empty() && self.forced.starts_with(bytes) {
                self.forced.drain(..bytes.len());
                break Some(id);
            }
            if !bytes.starts_with(&self.forced) || bytes.len() == self.forced.len() {
                refused.push(id);
                continue;
            }
            if !constrained {
                self.forced.clear();
                break Some(id);
            }
            let rest = bytes[self.forced.len()..].to_vec();
            let at = self.text.len() + self.forced.len();
            let t = Instant::now();
            let snapshot = self.constraint.clone();
            let result = self.constraint.commit(&rest);
            let whole = matches!(result, Ok(Commit::Accepted)) || matches!(result, Ok(Commit::Heal { accepted }) if accepted >= rest.len());
            if whole && !wrapping && self.guarding() {
                // The guard: would this token leave too little budget to finish?
                let before = self.distance;
                let left_after = self.tokens_left().saturating_sub(1);
                let after = self.probe_distance(self.generated.len() + 1, left_after);
                if after.is_some_and(|d| left_after < d + WRAP_UP_MARGIN) {
                    // Take it back and wrap up from here instead.
                    self.constraint = snapshot;
                    self.distance = before;
                    wrapping = true;
                    mask_valid = false;
                    self.stats.wrap_up_from = Some(self.stats.steps - 1);
                    self.stats.wrap_up_distance = after;
                    constraint_time += t.elapsed();
                    continue;
                }
            }
            constraint_time += t.elapsed();
            match result {
                Ok(Commit::Accepted) => {
                    self.forced.clear();
                    self.keep_cut_state(at, snapshot);
                    break Some(id);
                }
                Ok(Commit::Heal { accepted }) if accepted >= rest.len() => {
                    self.forced.clear();
                    self.keep_cut_state(at, snapshot);
                    break Some(id);
                }
                Ok(Commit::Heal { accepted }) if accepted > 0 => {
                    self.forced.extend_from_slice(&rest[..accepted]);
                    self.stats.heals += 1;
                    refused.push(id);
                    how = How::Healed;
                    mask_valid = false;
                }
                Ok(Commit::Heal { .. }) | Err(_) => {
                    self.constraint = snapshot;
                    refused.push(id);
                    if how != How::Healed {
                        how = How::Resampled;
                    }
                }
            }
        };
        self.stats.refusals += refused.len();
        self.stats.wrap_up_steps += wrapped as usize;
        if how == How::Sampled && mask_size == Some(1) {
            how = How::Forced;
        }

        match chosen {
            None => {
                self.stop = Some(StopReason::DeadEnd { expected: self.expected() });
            }
            Some(id) if self.is_stop_token(id) => {
                self.generated.push(id);
                self.hows.push(how);
                self.stop = Some(StopReason::Eos);
            }
            Some(id) => {
                let bytes = self.vocab.bytes(id);
                let new_bytes = bytes.len();
                self.text.extend_from_slice(bytes);
                self.context.push(id);
                self.generated.push(id);
                self.hows.push(how);
                self.check_stops(new_bytes);
            }
        }
        self.stats.constraint_s += constraint_time.as_secs_f64();
        self.stats.sample_s += sample_time.as_secs_f64();

        let trace = self.config.trace.then(|| StepTrace {
            step: self.stats.steps - 1,
            text: self.text(),
            candidates,
            chosen: chosen.unwrap_or(u32::MAX),
            chosen_text: chosen.map(|id| self.token_text(id)).unwrap_or_default(),
            how,
            refused: refused.clone(),
            mask_size,
            forced_prefix: forced_at_start,
            model_ms: model_time.as_secs_f64() * 1e3,
            constraint_ms: constraint_time.as_secs_f64() * 1e3,
            sample_ms: sample_time.as_secs_f64() * 1e3,
            inspect: constrained.then(|| self.constraint.inspect()),
            stop: self.stop.clone(),
            wrap_up: wrapped,
        });
        Ok(StepOutcome { token: chosen, how, stop: self.stop.clone(), trace })
    }

    /// Goes back to the state before step `step` (0 = before the first generated
    /// token). Needs [`GenerateConfig::history`]; the next [`Generator::next_input`]
    /// tells the driver how far to roll the KV cache back.
    pub fn rewind(&mut self, step: usize) -> Result<(), DecodeError> {
        if step >= self.history.len() {
            return Err(DecodeError::NoSuchStep { step, available: self.history.len().saturating_sub(1) });
        }
        self.history.truncate(step + 1);
        let snap = self.history.pop().expect("history holds step");
        self.constraint = snap.constraint;
        self.forced = snap.forced;
        self.text.truncate(snap.text_len);
        self.cut_at = None;
        self.cut_states.clear();
        self.sampler = snap.sampler;
        self.stats = snap.stats;
        self.generated.truncate(step);
        self.hows.truncate(step);
        // An EOS step chose a token without adding it to the context.
        let in_context = self.generated.iter().filter(|&&id| !self.is_stop_token(id)).count();
        self.context.truncate(self.prompt_len + in_context);
        self.valid_cache = self.valid_cache.min(self.context.len());
        self.stop = None;
        self.distance = None;
        Ok(())
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
        id == self.vocab.eos() || self.vocab.is_special(id)
    }

    /// Whether `id` may come next, by the cheap check (rejection mode, traces).
    fn allowed_now(&self, id: u32) -> bool {
        if self.is_stop_token(id) {
            return self.forced.is_empty() && self.constraint.is_complete();
        }
        let bytes = self.vocab.bytes(id);
        if bytes.is_empty() {
            return false;
        }
        if self.forced.is_empty() {
            return self.constraint.allows(bytes);
        }
        if self.forced.starts_with(bytes) {
            return true;
        }
        bytes.starts_with(&self.forced) && bytes.len() > self.forced.len() && self.extension_allowed(&bytes[self.forced.len()..])
    }

    /// Fills `self.mask`: the constraint's mask, or under a forced prefix the tokens
    /// that extend it with bytes the constraint allows, or that are a prefix of it
    /// whose rest some sequence of tokens can still spell (without that look-ahead a
    /// short token could strand the prefix where no token continues it). When
    /// `wrapping` (and no prefix is forced) the mask is narrowed to the finishing mask
    /// unless that leaves nothing; returns whether it was narrowed.
    fn fill_mask(&mut self, wrapping: bool) -> bool {
        if self.forced.is_empty() {
            self.constraint.fill_mask(&self.vocab, &mut self.mask);
            if wrapping && self.ask_finishing() {
                self.finish_mask.intersect_with(&self.mask);
                if !self.finish_mask.is_empty() {
                    std::mem::swap(&mut self.mask, &mut self.finish_mask);
                    return true;
                }
            }
            return false;
        }
        let f = &self.forced;
        // spellable[k]: forced[k..] can be produced by tokens (ending at or past its end).
        let mut spellable = vec![false; f.len() + 1];
        spellable[f.len()] = true;
        for k in (0..f.len()).rev() {
            let rest = &f[k..];
            spellable[k] = (0..self.vocab.len() as u32).any(|id| {
                let b = self.vocab.bytes(id);
                !b.is_empty()
                    && !self.is_stop_token(id)
                    && ((rest.starts_with(b) && spellable[k + b.len()])
                        || (b.len() > rest.len() && b.starts_with(rest) && self.extension_allowed(&b[rest.len()..])))
            });
        }
        self.mask.clear();
        for id in 0..self.vocab.len() as u32 {
            let b = self.vocab.bytes(id);
            if b.is_empty() || self.is_stop_token(id) {
                continue;
            }
            let ok = if f.starts_with(b) {
                spellable[b.len()]
            } else {
                b.len() > f.len() && b.starts_with(f) && self.extension_allowed(&b[f.len()..])
            };
            if ok {
                self.mask.insert(id as usize);
            }
        }
        false
    }

    /// Whether bytes past the forced prefix may come next.
    fn extension_allowed(&self, bytes: &[u8]) -> bool {
        self.config.mode == Mode::None || self.constraint.allows(bytes)
    }

    /// Candidates for the trace, flagged by the cheap check.
    fn trace_candidates(&self, logits: &[f32], masked: bool) -> Vec<Candidate> {
        let flagged = self.config.mode != Mode::None || !self.forced.is_empty();
        top_candidates(logits, self.config.trace_top)
            .into_iter()
            .map(|(id, prob)| Candidate {
                id,
                text: self.token_text(id),
                prob,
                allowed: flagged.then(|| if masked { self.mask.contains(id as usize) } else { self.allowed_now(id) }),
            })
            .collect()
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

    /// Keeps `state`, the constraint before the token committed at `text` offset `at`,
    /// when stop strings may need it: a stop string spans at most one token per byte,
    /// so its longest length plus one states cover any cut.
    fn keep_cut_state(&mut self, at: usize, state: C) {
        let longest = self.config.stop_strings.iter().map(String::len).max().unwrap_or(0);
        if longest == 0 {
            return;
        }
        self.cut_states.push_back((at, state));
        while self.cut_states.len() > longest + 1 {
            self.cut_states.pop_front();
        }
    }

    /// Whether the constraint says the text up to `at` is not a complete program, so
    /// that a stop string beginning there must not end the generation. `false` without
    /// a constraint or when no kept state reaches back to `at` (the stop is honoured).
    fn incomplete_at(&self, at: usize) -> bool {
        if self.config.mode == Mode::None {
            return false;
        }
        let Some((from, state)) = self.cut_states.iter().rev().find(|(from, _)| *from <= at) else {
            return false;
        };
        let mut state = state.clone();
        match state.commit(&self.text[*from..at]) {
            Ok(Commit::Accepted) => !state.is_complete(),
            Ok(Commit::Heal { accepted }) if accepted >= at - from => !state.is_complete(),
            _ => false,
        }
    }

    /// Stop strings, repetition and the budget, after a token was added.
    fn check_stops(&mut self, new_bytes: usize) {
        // Stop strings are looked for in the generated text only, as HumanEval's
        // harnesses do: a match that starts in the prompt's healed bytes (the prompt's
        // last "\n" then the model's "//" at column 0 inside a Go function) would cut
        // the whole completion, and no constraint state before the prompt's end could
        // tell whether the text before it is complete.
        let generated = &self.text[self.skip.min(self.text.len())..];
        let found = crate::stop::find_stop(generated, new_bytes.min(generated.len()), &self.config.stop_strings);
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
            let mut found = guard.check(&self.generated).map(|(period, span)| StopReason::Repetition { period, span });
            if found.is_none() && self.text[self.text.len() - new_bytes..].contains(&b'\n') {
                found = guard
                    .check_lines(self.text_bytes())
                    .map(|(period, repeats, line)| StopReason::RepeatedLines { period, repeats, line });
            }
            if let Some(reason) = found {
                if self.config.wrap_up_on_repetition && self.can_wrap_up() && self.ask_finishing() {
                    self.stats.loop_detected = Some(reason);
                } else {
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
