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
//!
//! [`Generator::step`] reads as four verbs, as llguidance's token parser does: prepare
//! the step (the wrap-up's distance probe and the first mask), choose a token (draw a
//! candidate, commit it to the constraint, again until one is taken), record it, and
//! check the stop rules. The wrap-up (`wrap_up.rs`), stop strings under a constraint
//! (`cut_states.rs`) and the mask under a forced prefix (`forced_prefix.rs`) live in
//! files of their own.

use std::sync::Arc;
use std::time::Duration;

use espalier_constraint::{Commit, Constraint, TokenSet, Vocab};
use serde::{Deserialize, Serialize};
use web_time::Instant;

use crate::cut_states::CutStates;
use crate::forced_prefix::fill_forced_mask;
use crate::sampler::top_candidates;
use crate::stop::is_stop_token;
use crate::trace::{Candidate, How, StepTrace};
use crate::wrap_up::WrapUp;
use crate::{DecodeError, Mode, Sampler, StopReason};

pub use crate::generate_config::GenerateConfig;
pub use crate::stats::Stats;
pub use crate::wrap_up::WRAP_UP_MARGIN;

/// Candidates refused at one step before the step gives up as a dead end: a sound
/// mask makes refusals rare (SynCode's over-approximation costs a few at most), so
/// hitting this means the constraint's mask and its commit disagree.
const MAX_REFUSALS_PER_STEP: usize = 1000;

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

/// What one step tracks while it looks for a token.
struct StepScratch {
    /// Candidates refused at this step.
    refused: Vec<u32>,
    how: How,
    /// Whether the generator's `mask` holds this step's mask (computed lazily in
    /// rejection mode, and again after a heal or a take-back).
    mask_valid: bool,
    mask_size: Option<usize>,
    /// Rejection mode: a sampled candidate failed the cheap check once.
    tried_unmasked: bool,
    /// The wrap-up is in force at this step.
    wrapping: bool,
    /// The wrap-up narrowed this step's mask.
    wrapped: bool,
    constraint_time: Duration,
    sample_time: Duration,
}

/// A candidate drawn from the logits.
enum Draw {
    Candidate(u32),
    /// The cheap check refused the sampled token: draw again.
    Refused,
    /// No token left to draw.
    Exhausted,
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

    /// Takes the logits of the last fed token (at least one per vocabulary token;
    /// extra padding entries are ignored) and the time the model took, and chooses the
    /// next token.
    pub fn step(&mut self, logits: &[f32], model_time: Duration) -> Result<StepOutcome, DecodeError> {
        let logits = self.begin_step(logits, model_time)?;
        let forced_at_start = (!self.forced.is_empty()).then(|| String::from_utf8_lossy(&self.forced).into_owned());
        let mut s = self.prepare_step();
        let candidates = if self.config.trace { self.trace_candidates(logits, s.mask_valid) } else { Vec::new() };
        let chosen = self.choose(logits, &mut s);
        self.record(chosen, &mut s);
        let trace = self.config.trace.then(|| StepTrace {
            step: self.stats.steps - 1,
            text: self.text(),
            candidates,
            chosen: chosen.unwrap_or(u32::MAX),
            chosen_text: chosen.map(|id| self.token_text(id)).unwrap_or_default(),
            how: s.how,
            refused: s.refused.clone(),
            mask_size: s.mask_size,
            forced_prefix: forced_at_start,
            model_ms: model_time.as_secs_f64() * 1e3,
            constraint_ms: s.constraint_time.as_secs_f64() * 1e3,
            sample_ms: s.sample_time.as_secs_f64() * 1e3,
            inspect: self.constrained().then(|| self.constraint.inspect()),
            stop: self.stop.clone(),
            wrap_up: s.wrapped,
        });
        Ok(StepOutcome { token: chosen, how: s.how, stop: self.stop.clone(), trace })
    }

    /// Checks the logits, keeps a snapshot for [`Generator::rewind`] and counts the
    /// step; returns the logits cut to the vocabulary.
    fn begin_step<'l>(&mut self, logits: &'l [f32], model_time: Duration) -> Result<&'l [f32], DecodeError> {
        if self.stop.is_some() {
            return Err(DecodeError::Finished);
        }
        let n = self.vocab.len();
        if logits.len() < n {
            return Err(DecodeError::LogitsLength { expected: n, got: logits.len() });
        }
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
        Ok(&logits[..n])
    }

    /// Before the first candidate: probes the finishing distance of the state before
    /// the step's token (the first step, and after a rewind; later probes follow each
    /// committed token), decides whether the wrap-up is in force, and computes the mask
    /// when the mode masks first or the wrap-up narrows it.
    fn prepare_step(&mut self) -> StepScratch {
        let mut s = StepScratch {
            refused: Vec::new(),
            how: if self.forced.is_empty() { How::Sampled } else { How::Healed },
            mask_valid: false,
            mask_size: None,
            tried_unmasked: false,
            wrapping: false,
            wrapped: false,
            constraint_time: Duration::ZERO,
            sample_time: Duration::ZERO,
        };
        if self.forced.is_empty() && self.wrap_up.needs_probe(&self.stats, self.generated.len()) {
            let t = Instant::now();
            let (generated, left) = (self.generated.len(), self.tokens_left());
            self.wrap_up.probe(&mut self.constraint, &self.vocab, &mut self.stats, generated, left);
            s.constraint_time += t.elapsed();
        }
        s.wrapping = self.wrapping_up();
        if !self.forced.is_empty() || (self.constrained() && (self.config.mode.masks_first() || s.wrapping)) {
            self.ensure_mask(&mut s);
        }
        // The first wrap-up step may find that the constraint has no finishing mask.
        s.wrapping &= !self.wrap_up.lacks_finishing_mask();
        if s.wrapping {
            let left = self.tokens_left();
            self.wrap_up.note_start(&mut self.stats, left);
        }
        s
    }

    /// Draws candidates and commits them until one is taken; `None` at a dead end
    /// (nothing left to draw, or [`MAX_REFUSALS_PER_STEP`] refused).
    fn choose(&mut self, logits: &[f32], s: &mut StepScratch) -> Option<u32> {
        while s.refused.len() < MAX_REFUSALS_PER_STEP {
            let id = match self.draw(logits, s) {
                Draw::Candidate(id) => id,
                Draw::Refused => continue,
                Draw::Exhausted => return None,
            };
            if self.commit(id, s) {
                return Some(id);
            }
        }
        None
    }

    /// Samples a candidate: under the mask when a prefix is forced, the mode masks
    /// first, the cheap check failed once (rejection mode) or the wrap-up is on;
    /// otherwise from the plain logits, then the cheap check.
    fn draw(&mut self, logits: &[f32], s: &mut StepScratch) -> Draw {
        let constrained = self.constrained();
        let use_mask =
            !self.forced.is_empty() || (constrained && (self.config.mode.masks_first() || s.tried_unmasked || s.wrapping));
        if use_mask {
            self.ensure_mask(s);
            let t = Instant::now();
            let (mask, refused) = (&self.mask, &s.refused);
            let c = self.sampler.sample(logits, |id| mask.contains(id as usize) && !refused.contains(&id));
            s.sample_time += t.elapsed();
            return c.map_or(Draw::Exhausted, Draw::Candidate);
        }
        let t = Instant::now();
        let refused = &s.refused;
        let c = self.sampler.sample(logits, |id| !refused.contains(&id));
        s.sample_time += t.elapsed();
        let Some(id) = c else { return Draw::Exhausted };
        if !constrained {
            return Draw::Candidate(id);
        }
        s.tried_unmasked = true;
        let t = Instant::now();
        let ok = self.allowed_now(id);
        s.constraint_time += t.elapsed();
        if ok {
            return Draw::Candidate(id);
        }
        s.refused.push(id);
        s.how = How::Resampled;
        Draw::Refused
    }

    /// Computes the step's mask unless it holds already.
    fn ensure_mask(&mut self, s: &mut StepScratch) {
        if s.mask_valid {
            return;
        }
        let t = Instant::now();
        s.wrapped |= self.fill_mask(s.wrapping);
        s.constraint_time += t.elapsed();
        self.stats.masks += 1;
        s.mask_valid = true;
        s.mask_size = Some(self.mask.count());
    }

    /// Commits candidate `id` to the constraint; `true` when the step takes it.
    /// Otherwise it was refused, or it healed (its accepted bytes became the forced
    /// prefix), or the wrap-up's guard took it back, and the step draws again.
    fn commit(&mut self, id: u32, s: &mut StepScratch) -> bool {
        let constrained = self.constrained();
        if self.is_stop_token(id) {
            if constrained && (!self.forced.is_empty() || !self.constraint.is_complete()) {
                s.refused.push(id);
                s.how = How::Resampled;
                return false;
            }
            return true;
        }
        let bytes = self.vocab.bytes(id);
        if !self.forced.is_empty() && !bytes.is_empty() && self.forced.starts_with(bytes) {
            self.forced.drain(..bytes.len());
            return true;
        }
        if !bytes.starts_with(&self.forced) || bytes.len() == self.forced.len() {
            s.refused.push(id);
            return false;
        }
        if !constrained {
            self.forced.clear();
            return true;
        }
        let rest = bytes[self.forced.len()..].to_vec();
        let at = self.text.len() + self.forced.len();
        let (generated, left) = (self.generated.len(), self.tokens_left());
        let t = Instant::now();
        let snapshot = self.constraint.clone();
        let result = self.constraint.commit(&rest);
        let whole = matches!(result, Ok(Commit::Accepted)) || matches!(result, Ok(Commit::Heal { accepted }) if accepted >= rest.len());
        if whole
            && !s.wrapping
            && self.wrap_up.must_take_back(&mut self.constraint, &self.vocab, &mut self.stats, generated, left)
        {
            // Take it back and wrap up from here instead.
            self.constraint = snapshot;
            s.wrapping = true;
            s.mask_valid = false;
            s.constraint_time += t.elapsed();
            return false;
        }
        s.constraint_time += t.elapsed();
        match result {
            Ok(Commit::Accepted) => {
                self.forced.clear();
                self.cut_states.keep(at, snapshot);
                true
            }
            Ok(Commit::Heal { accepted }) if accepted >= rest.len() => {
                self.forced.clear();
                self.cut_states.keep(at, snapshot);
                true
            }
            Ok(Commit::Heal { accepted }) if accepted > 0 => {
                self.forced.extend_from_slice(&rest[..accepted]);
                self.stats.heals += 1;
                s.refused.push(id);
                s.how = How::Healed;
                s.mask_valid = false;
                false
            }
            Ok(Commit::Heal { .. }) | Err(_) => {
                self.constraint = snapshot;
                s.refused.push(id);
                if s.how != How::Healed {
                    s.how = How::Resampled;
                }
                false
            }
        }
    }

    /// Adds the chosen token to the text and the context (or stops: EOS, dead end),
    /// checks the stop rules, and adds the step to the running totals.
    fn record(&mut self, chosen: Option<u32>, s: &mut StepScratch) {
        self.stats.refusals += s.refused.len();
        self.stats.wrap_up_steps += s.wrapped as usize;
        if s.how == How::Sampled && s.mask_size == Some(1) {
            s.how = How::Forced;
        }
        match chosen {
            None => {
                self.stop = Some(StopReason::DeadEnd { expected: self.expected() });
            }
            Some(id) if self.is_stop_token(id) => {
                self.generated.push(id);
                self.hows.push(s.how);
                self.stop = Some(StopReason::Eos);
            }
            Some(id) => {
                let bytes = self.vocab.bytes(id);
                let new_bytes = bytes.len();
                self.text.extend_from_slice(bytes);
                self.context.push(id);
                self.generated.push(id);
                self.hows.push(s.how);
                self.check_stops(new_bytes);
            }
        }
        self.stats.constraint_s += s.constraint_time.as_secs_f64();
        self.stats.sample_s += s.sample_time.as_secs_f64();
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
        self.wrap_up.forget_distance();
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
        is_stop_token(&self.vocab, id)
    }

    /// Whether the mode consults the constraint at all.
    fn constrained(&self) -> bool {
        self.config.mode != Mode::None
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
    /// that may come next ([`fill_forced_mask`]). When `wrapping` (and no prefix is
    /// forced) the wrap-up narrows the mask to the finishing mask unless that leaves
    /// nothing; returns whether it was narrowed.
    fn fill_mask(&mut self, wrapping: bool) -> bool {
        if !self.forced.is_empty() {
            let (unconstrained, constraint) = (!self.constrained(), &self.constraint);
            fill_forced_mask(&self.vocab, &self.forced, &mut self.mask, |b| unconstrained || constraint.allows(b));
            return false;
        }
        self.constraint.fill_mask(&self.vocab, &mut self.mask);
        wrapping && self.wrap_up.narrow(&mut self.constraint, &self.vocab, &mut self.mask)
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
                if let Some(reason) = self.wrap_up.take_over_loop(&mut self.constraint, &self.vocab, &mut self.stats, reason) {
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
