//! One step of the [`Generator`], as a few verbs (llguidance's token parser reads the
//! same way): [`Generator::step`] prepares the step (the wrap-up's distance probe and
//! the first mask), chooses a token (draw a candidate, commit it to the constraint,
//! again until one is taken), and records it (the stop rules follow).
//!
//! Preparing needs no logits, so a driver may call [`Generator::prepare`] while the
//! model computes them (a GPU runs the forward pass while the CPU computes the mask),
//! and hand the prepared mask to the model ([`Generator::prepared_mask`]) so that only
//! the draw comes back. Logits that cannot answer yet ([`LogitsError::NotReady`]: an
//! asynchronous read-back) give the step back; the next call goes on from its last
//! draw.
//!
//! A commit the constraint refuses bans the token for this step and draws again; a
//! commit that asks to heal keeps the accepted bytes as a forced prefix and draws
//! again from the *same* logits (the refused token was never fed to the model, so the
//! KV cache needs no rollback for it).

use std::borrow::Cow;
use std::time::Duration;

use espalier_constraint::{Commit, Constraint, TokenSet};
use web_time::Instant;

use crate::forced_prefix::fill_forced_mask;
use crate::logits::{HostLogits, Logits, LogitsError};
use crate::trace::{Candidate, How, StepTrace};
use crate::Sampler;
use crate::{DecodeError, StopReason};

use super::{Generator, StepOutcome};

/// Candidates refused at one step before the step gives up as a dead end: a sound
/// mask makes refusals rare (SynCode's over-approximation costs a few at most), so
/// hitting this means the constraint's mask and its commit disagree.
const MAX_REFUSALS_PER_STEP: usize = 1000;

/// What one step tracks while it looks for a token.
#[derive(Clone, Debug)]
pub(super) struct StepScratch {
    /// Candidates refused at this step.
    refused: Vec<u32>,
    how: How,
    /// The forced prefix when the step was prepared (the trace's).
    forced_at_start: Option<String>,
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

impl<C: Constraint> Generator<C> {
    /// Takes the logits of the last fed token (at least one per vocabulary token;
    /// extra padding entries are ignored) and the time the model took, and chooses the
    /// next token.
    pub fn step(
        &mut self,
        logits: &[f32],
        model_time: Duration,
    ) -> Result<StepOutcome, DecodeError> {
        self.step_logits(&mut HostLogits(Cow::Borrowed(logits)), model_time)
    }

    /// [`Generator::step`] with the logits wherever the model keeps them ([`Logits`]):
    /// a greedy draw asks the logits for the argmax under the step's mask (on a GPU only
    /// the id comes back), sampling for their shortlist (read whole when the list does
    /// not decide the draw), the trace for its top candidates. Prepares the step first
    /// unless [`Generator::prepare`] did.
    /// [`DecodeError::LogitsNotReady`] gives the step back (it goes on from its last
    /// draw): read the logits and call this again.
    pub fn step_logits(
        &mut self,
        logits: &mut dyn Logits,
        model_time: Duration,
    ) -> Result<StepOutcome, DecodeError> {
        let n = self.vocab.len();
        if self.stop.is_none() && logits.len() < n {
            return Err(DecodeError::LogitsLength { expected: n, got: logits.len() });
        }
        self.prepare()?;
        let mut s = self.prepared.take().expect("prepare() left a prepared step");
        let candidates = match self.config.trace {
            true => match logits.top(n, self.config.trace_top) {
                Ok(top) => self.trace_candidates(top, s.mask_valid),
                Err(e) => return Err(self.give_back(s, e)),
            },
            false => Vec::new(),
        };
        let chosen = match self.choose(logits, &mut s) {
            Ok(chosen) => chosen,
            Err(e) => return Err(self.give_back(s, e)),
        };
        self.stats.model_s += model_time.as_secs_f64();
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
            forced_prefix: s.forced_at_start.clone(),
            model_ms: model_time.as_secs_f64() * 1e3,
            constraint_ms: s.constraint_time.as_secs_f64() * 1e3,
            sample_ms: s.sample_time.as_secs_f64() * 1e3,
            inspect: self.constrained().then(|| self.constraint.inspect()),
            stop: self.stop.clone(),
            wrap_up: s.wrapped,
        });
        Ok(StepOutcome { token: chosen, how: s.how, stop: self.stop.clone(), trace })
    }

    /// Prepares the next step without its logits: keeps the snapshot for
    /// [`Generator::rewind`], counts the step, probes the finishing distance, and
    /// computes the mask when the step draws under one (the modes that mask first, a
    /// forced prefix, the wrap-up). Call it after the model was fed what
    /// [`Generator::next_input`] asked for, while it computes the logits; the step then
    /// uses what was prepared. Idempotent until the step is taken or rewound.
    pub fn prepare(&mut self) -> Result<(), DecodeError> {
        if self.stop.is_some() {
            return Err(DecodeError::Finished);
        }
        if self.prepared.is_none() {
            self.begin_step();
            self.prepared = Some(self.prepare_step());
        }
        Ok(())
    }

    /// Whether [`Generator::prepare`] has CPU work to do (the finishing probe, the mask
    /// of a mode that masks first, of a forced prefix or of the wrap-up): a GPU model is
    /// worth starting on the pass before it (one submit more: [`Logits::submit`], the
    /// pass runs beside the work). Otherwise (unconstrained, or a rejection step that
    /// draws first) the logits are asked at once and the pass goes to the device with
    /// the draw.
    pub fn has_work_to_prepare(&self) -> bool {
        self.stop.is_none()
            && self.prepared.is_none()
            && (self.probes_at_start() || self.masks_at_start(self.wrapping_up()))
    }

    /// Whether the step's preparation probes the finishing distance.
    fn probes_at_start(&self) -> bool {
        self.forced.is_empty() && self.wrap_up.needs_probe(&self.stats, self.generated.len())
    }

    /// Whether the step's first draw is under the mask (computed when prepared): a forced
    /// prefix, a mode that masks first, the wrap-up (`wrapping`).
    fn masks_at_start(&self, wrapping: bool) -> bool {
        !self.forced.is_empty()
            || (self.constrained() && (self.config.mode.masks_first() || wrapping))
    }

    /// The mask the prepared step draws its first candidate under (a GPU model finds
    /// the draw under it on the device); `None` before [`Generator::prepare`] or when
    /// the step draws from the plain logits first (unconstrained, rejection mode).
    pub fn prepared_mask(&self) -> Option<&TokenSet> {
        self.prepared.as_ref().filter(|s| s.mask_valid).map(|_| &self.mask)
    }

    /// Gives a step whose logits could not answer back, to be taken again: the logits
    /// are asked only at the start of a draw, where the step's state (the constraint,
    /// the forced prefix, the scratch: refusals, a heal's prefix, the wrap-up) is whole,
    /// so the next call goes on from there as if the answer had come at once.
    fn give_back(&mut self, s: StepScratch, e: LogitsError) -> DecodeError {
        self.prepared = Some(s);
        match e {
            LogitsError::NotReady => DecodeError::LogitsNotReady,
            LogitsError::Failed(e) => DecodeError::Logits(e),
        }
    }

    /// Keeps the snapshot for [`Generator::rewind`] and counts the step.
    fn begin_step(&mut self) {
        self.valid_cache = self.context.len();
        if self.config.history {
            let snapshot = self.snapshot();
            self.history.push(snapshot);
        }
        self.stats.steps += 1;
    }

    /// Before the first candidate: probes the finishing distance of the state before
    /// the step's token (the first step, and after a rewind; later probes follow each
    /// committed token), decides whether the wrap-up is in force, and computes the mask
    /// when the mode masks first or the wrap-up narrows it.
    fn prepare_step(&mut self) -> StepScratch {
        let mut s = StepScratch {
            forced_at_start: (!self.forced.is_empty())
                .then(|| String::from_utf8_lossy(&self.forced).into_owned()),
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
        if self.probes_at_start() {
            let t = Instant::now();
            let (generated, left) = (self.generated.len(), self.tokens_left());
            self.wrap_up.probe(&mut self.constraint, &self.vocab, &mut self.stats, generated, left);
            s.constraint_time += t.elapsed();
        }
        s.wrapping = self.wrapping_up();
        if self.masks_at_start(s.wrapping) {
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
    fn choose(
        &mut self,
        logits: &mut dyn Logits,
        s: &mut StepScratch,
    ) -> Result<Option<u32>, LogitsError> {
        while s.refused.len() < MAX_REFUSALS_PER_STEP {
            let id = match self.draw(logits, s)? {
                Draw::Candidate(id) => id,
                Draw::Refused => continue,
                Draw::Exhausted => return Ok(None),
            };
            if self.commit(id, s) {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    /// Samples a candidate: under the mask when a prefix is forced, the mode masks
    /// first, the cheap check failed once (rejection mode) or the wrap-up is on;
    /// otherwise from the plain logits, then the cheap check.
    fn draw(&mut self, logits: &mut dyn Logits, s: &mut StepScratch) -> Result<Draw, LogitsError> {
        let constrained = self.constrained();
        let use_mask = !self.forced.is_empty()
            || (constrained && (self.config.mode.masks_first() || s.tried_unmasked || s.wrapping));
        let n = self.vocab.len();
        if use_mask {
            self.ensure_mask(s);
            let t = Instant::now();
            let c = pick(&mut self.sampler, logits, n, Some(&self.mask), &s.refused)?;
            s.sample_time += t.elapsed();
            return Ok(c.map_or(Draw::Exhausted, Draw::Candidate));
        }
        let t = Instant::now();
        let c = pick(&mut self.sampler, logits, n, None, &s.refused)?;
        s.sample_time += t.elapsed();
        let Some(id) = c else { return Ok(Draw::Exhausted) };
        if !constrained {
            return Ok(Draw::Candidate(id));
        }
        s.tried_unmasked = true;
        let t = Instant::now();
        let ok = self.allowed_now(id);
        s.constraint_time += t.elapsed();
        if ok {
            return Ok(Draw::Candidate(id));
        }
        s.refused.push(id);
        s.how = How::Resampled;
        Ok(Draw::Refused)
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
        let whole = matches!(result, Ok(Commit::Accepted))
            || matches!(result, Ok(Commit::Heal { accepted }) if accepted >= rest.len());
        if whole
            && !s.wrapping
            && self.wrap_up.must_take_back(
                &mut self.constraint,
                &self.vocab,
                &mut self.stats,
                generated,
                left,
            )
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
        bytes.starts_with(&self.forced)
            && bytes.len() > self.forced.len()
            && self.extension_allowed(&bytes[self.forced.len()..])
    }

    /// Fills `self.mask`: the constraint's mask, or under a forced prefix the tokens
    /// that may come next ([`fill_forced_mask`]). When `wrapping` (and no prefix is
    /// forced) the wrap-up narrows the mask to the finishing mask unless that leaves
    /// nothing; returns whether it was narrowed.
    fn fill_mask(&mut self, wrapping: bool) -> bool {
        if !self.forced.is_empty() {
            let (unconstrained, constraint) = (!self.constrained(), &self.constraint);
            fill_forced_mask(&self.vocab, &self.forced, &mut self.mask, |b| {
                unconstrained || constraint.allows(b)
            });
            return false;
        }
        self.constraint.fill_mask(&self.vocab, &mut self.mask);
        wrapping && self.wrap_up.narrow(&mut self.constraint, &self.vocab, &mut self.mask)
    }

    /// Whether bytes past the forced prefix may come next.
    fn extension_allowed(&self, bytes: &[u8]) -> bool {
        !self.constrained() || self.constraint.allows(bytes)
    }

    /// Candidates for the trace (`top`: [`Logits::top`]'s), flagged by the cheap check.
    fn trace_candidates(&self, top: Vec<(u32, f32)>, masked: bool) -> Vec<Candidate> {
        let flagged = self.constrained() || !self.forced.is_empty();
        top.into_iter()
            .map(|(id, prob)| Candidate {
                id,
                text: self.token_text(id),
                prob,
                allowed: flagged.then(|| {
                    if masked {
                        self.mask.contains(id as usize)
                    } else {
                        self.allowed_now(id)
                    }
                }),
            })
            .collect()
    }
}

/// One draw among ids `0..n` in `mask` (`None`: all) and not `refused`: greedy asks the
/// logits for their argmax (a GPU answers on the device); sampling draws from the
/// logits' shortlist when they have one that decides the draw, else from the host
/// vector. Every way the same id as the CPU sampler on the same logits.
fn pick(
    sampler: &mut Sampler,
    logits: &mut dyn Logits,
    n: usize,
    mask: Option<&TokenSet>,
    refused: &[u32],
) -> Result<Option<u32>, LogitsError> {
    if sampler.config().is_greedy() {
        return logits.argmax(n, mask, refused);
    }
    if let Some(list) = logits.shortlist(n, mask, refused, sampler.config().draw_mass())? {
        if let Some(chosen) = sampler.sample_shortlist(&list) {
            return Ok(chosen);
        }
    }
    let host = logits.host()?;
    let allowed = |id: u32| mask.is_none_or(|m| m.contains(id as usize)) && !refused.contains(&id);
    Ok(sampler.sample(&host[..n], allowed))
}
