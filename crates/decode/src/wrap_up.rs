//! The wrap-up: near the end of the token budget (or once the repetition guard finds a
//! loop) the mask is narrowed to the constraint's finishing mask, the tokens that lead
//! towards the shortest completion, so a constrained generation closes its program
//! instead of running out of budget mid-statement ([`crate::GenerateConfig::wrap_up`]).
//!
//! It begins on whichever comes first:
//! - the window: at most `wrap_up` tokens of the budget are left;
//! - the finishing distance: the token just chosen would leave fewer tokens than the
//!   constraint's finishing distance after it plus [`WRAP_UP_MARGIN`]; the generator
//!   takes that token back and samples from the finishing mask instead (the distance
//!   is probed before the first token and after every committed token until then);
//! - a loop: the repetition guard found one and
//!   [`crate::GenerateConfig::wrap_up_on_repetition`] hands it over to the wrap-up.
//!
//! [`WrapUp`] owns what the wrap-up needs between steps (the settings, whether the
//! constraint has a finishing mask, the scratch finishing mask, the last distance
//! probed). When it began and why is recorded in [`Stats`] (`wrap_up_from`,
//! `wrap_up_distance`, `loop_detected`), which [`crate::Generator::rewind`] restores,
//! so a rewind to before the start also undoes the start.

use espalier_constraint::{Constraint, TokenSet, Vocab};
use web_time::Instant;

use crate::{GenerateConfig, Mode, Stats, StopReason};

/// Tokens of budget the wrap-up keeps beyond the finishing distance
/// ([`Constraint::finishing_distance`]) when it begins, for the steps where the
/// finishing mask cannot steer (it then keeps the allowed tokens of least cost).
pub const WRAP_UP_MARGIN: usize = 4;

/// A finishing distance probed for the constraint's state after `tokens` generated
/// tokens (`None`: the constraint could not tell within the budget).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Probe {
    tokens: usize,
    distance: Option<usize>,
}

/// The wrap-up's state across the steps of one generation.
#[derive(Clone, Debug)]
pub(crate) struct WrapUp {
    /// [`GenerateConfig::wrap_up`]: the window, `None` when the wrap-up is off.
    window: Option<usize>,
    /// [`GenerateConfig::wrap_up_on_repetition`].
    on_repetition: bool,
    /// Whether the mode consults the constraint at all.
    constrained: bool,
    /// Whether the constraint has a finishing mask ([`Constraint::fill_finishing_mask`]
    /// returned `true`), once the wrap-up has asked it: `None` until then. A constraint
    /// that answers `false` once is taken to have none for the rest of the generation.
    finishing: Option<bool>,
    /// Scratch set for the finishing mask.
    finish_mask: TokenSet,
    /// The last finishing distance probed.
    last: Option<Probe>,
}

impl WrapUp {
    pub(crate) fn new(config: &GenerateConfig, vocab_len: usize) -> Self {
        Self {
            window: config.wrap_up,
            on_repetition: config.wrap_up_on_repetition,
            constrained: config.mode != Mode::None,
            finishing: None,
            finish_mask: TokenSet::empty(vocab_len),
            last: None,
        }
    }

    /// Whether the wrap-up is in force for the next step, with `left` tokens of the
    /// budget: it is possible, and a loop was found, or it began earlier, or the budget
    /// is within the window or under the last distance probed plus the margin.
    pub(crate) fn in_force(&self, stats: &Stats, left: usize) -> bool {
        self.possible()
            && (stats.loop_detected.is_some()
                || stats.wrap_up_from.is_some()
                || self.budget_reached(left, self.last_distance()).is_some())
    }

    /// Whether the constraint turned out to lack a finishing mask (the first wrap-up
    /// step may find it so).
    pub(crate) fn lacks_finishing_mask(&self) -> bool {
        self.finishing == Some(false)
    }

    /// Records the start of the wrap-up in `stats` at the current step, unless it
    /// began earlier; with the distance that began it, if the distance did.
    pub(crate) fn note_start(&self, stats: &mut Stats, left: usize) {
        if stats.wrap_up_from.is_none() {
            stats.wrap_up_from = Some(stats.steps - 1);
            stats.wrap_up_distance = self.budget_reached(left, self.last_distance()).flatten();
        }
    }

    /// Whether the distance must be probed before this step's first token: the guard
    /// is on and no probe was made for the state after `generated` tokens (the first
    /// step, or after a rewind; later probes come from [`WrapUp::must_take_back`]).
    pub(crate) fn needs_probe(&self, stats: &Stats, generated: usize) -> bool {
        self.guarding(stats) && self.last.is_none_or(|p| p.tokens != generated)
    }

    /// Probes the constraint's finishing distance for the state after `tokens`
    /// generated tokens, with `left` tokens of the budget then; timed into `stats`.
    pub(crate) fn probe<C: Constraint>(
        &mut self,
        constraint: &mut C,
        vocab: &Vocab,
        stats: &mut Stats,
        tokens: usize,
        left: usize,
    ) -> Option<usize> {
        let t = Instant::now();
        let distance = constraint.finishing_distance(vocab, left.saturating_sub(WRAP_UP_MARGIN));
        stats.distance_s += t.elapsed().as_secs_f64();
        self.last = Some(Probe { tokens, distance });
        distance
    }

    /// The guard, after a token was committed whole (`constraint` in its new state,
    /// `generated` tokens before it, `left` of the budget before it): whether the token
    /// leaves fewer tokens than the finishing distance plus the margin. If so the
    /// wrap-up begins here (recorded in `stats`) and the caller must take the token
    /// back and sample again from the finishing mask.
    pub(crate) fn must_take_back<C: Constraint>(
        &mut self,
        constraint: &mut C,
        vocab: &Vocab,
        stats: &mut Stats,
        generated: usize,
        left: usize,
    ) -> bool {
        if !self.guarding(stats) {
            return false;
        }
        let before = self.last;
        let left_after = left.saturating_sub(1);
        let after = self.probe(constraint, vocab, stats, generated + 1, left_after);
        if after.is_none_or(|d| left_after >= d + WRAP_UP_MARGIN) {
            return false;
        }
        self.last = before;
        stats.wrap_up_from = Some(stats.steps - 1);
        stats.wrap_up_distance = after;
        true
    }

    /// Narrows `mask` (the constraint's mask) to the finishing mask, unless the
    /// constraint has none or the intersection is empty (the wrap-up never causes a
    /// dead end); returns whether it narrowed.
    pub(crate) fn narrow<C: Constraint>(
        &mut self,
        constraint: &mut C,
        vocab: &Vocab,
        mask: &mut TokenSet,
    ) -> bool {
        if !self.ask_finishing(constraint, vocab) {
            return false;
        }
        self.finish_mask.intersect_with(mask);
        if self.finish_mask.is_empty() {
            return false;
        }
        std::mem::swap(mask, &mut self.finish_mask);
        true
    }

    /// The repetition guard found `reason`: with
    /// [`GenerateConfig::wrap_up_on_repetition`] and a finishing mask, the wrap-up takes
    /// over (the loop is recorded in `stats`) and `None` is returned; otherwise the
    /// reason comes back and the generation stops on it.
    pub(crate) fn take_over_loop<C: Constraint>(
        &mut self,
        constraint: &mut C,
        vocab: &Vocab,
        stats: &mut Stats,
        reason: StopReason,
    ) -> Option<StopReason> {
        if self.on_repetition && self.possible() && self.ask_finishing(constraint, vocab) {
            stats.loop_detected = Some(reason);
            return None;
        }
        Some(reason)
    }

    /// Forgets the last distance probed (after a rewind: the state it was probed for
    /// may be gone).
    pub(crate) fn forget_distance(&mut self) {
        self.last = None;
    }

    fn last_distance(&self) -> Option<usize> {
        self.last.and_then(|p| p.distance)
    }

    /// Whether `left` tokens are within the window (`Some(None)`) or under the
    /// finishing `distance` plus the margin (`Some(Some(distance))`).
    fn budget_reached(&self, left: usize, distance: Option<usize>) -> Option<Option<usize>> {
        let n = self.window?;
        if left <= n {
            return Some(None);
        }
        distance.filter(|&d| left < d + WRAP_UP_MARGIN).map(Some)
    }

    /// Whether the wrap-up may still begin on the finishing distance: it has a window,
    /// is possible, is not on yet, and no loop switched it on.
    fn guarding(&self, stats: &Stats) -> bool {
        self.window.is_some()
            && self.possible()
            && stats.wrap_up_from.is_none()
            && stats.loop_detected.is_none()
    }

    /// Whether a wrap-up is possible at all: a constraining mode and a constraint not
    /// known to lack a finishing mask.
    fn possible(&self) -> bool {
        !self.lacks_finishing_mask() && self.constrained
    }

    /// Asks the constraint for its finishing mask (into `finish_mask`) and remembers
    /// whether it has one.
    fn ask_finishing<C: Constraint>(&mut self, constraint: &mut C, vocab: &Vocab) -> bool {
        let has = constraint.fill_finishing_mask(vocab, &mut self.finish_mask);
        self.finishing = Some(has);
        has
    }
}
