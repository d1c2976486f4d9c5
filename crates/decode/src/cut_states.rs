//! Stop strings under a constraint: a stop string is honoured only where the text
//! before it is a complete program (`\ndef ` inside an open string literal is not a
//! stop). [`CutStates`] keeps the constraint as it stood before each of the last few
//! committed tokens, so the text up to a stop string's start can be replayed from the
//! nearest one and asked whether it is complete. The states kept are the clones a
//! commit takes anyway, kept instead of dropped.

use std::collections::VecDeque;

use espalier_constraint::{Commit, Constraint};

/// The constraint before each of the last few committed tokens, with the text offset
/// it stands at.
#[derive(Clone, Debug)]
pub(crate) struct CutStates<C> {
    states: VecDeque<(usize, C)>,
    /// The longest stop string's length: a stop string spans at most one token per
    /// byte, so that many states plus one cover any cut (none kept without stops).
    longest: usize,
}

impl<C: Constraint> CutStates<C> {
    pub(crate) fn new(stop_strings: &[String]) -> Self {
        Self {
            states: VecDeque::new(),
            longest: stop_strings.iter().map(String::len).max().unwrap_or(0),
        }
    }

    /// Keeps `state`, the constraint before the token committed at text offset `at`,
    /// when stop strings may need it.
    pub(crate) fn keep(&mut self, at: usize, state: C) {
        if self.longest == 0 {
            return;
        }
        self.states.push_back((at, state));
        while self.states.len() > self.longest + 1 {
            self.states.pop_front();
        }
    }

    /// Forgets every state (after a rewind).
    pub(crate) fn clear(&mut self) {
        self.states.clear();
    }

    /// Whether the constraint says `text[..at]` is not a complete program, so that a
    /// stop string beginning at `at` must not end the generation. `false` when no kept
    /// state reaches back to `at` (the stop is honoured).
    pub(crate) fn incomplete_at(&self, text: &[u8], at: usize) -> bool {
        let Some((from, state)) = self.states.iter().rev().find(|(from, _)| *from <= at) else {
            return false;
        };
        let mut state = state.clone();
        match state.commit(&text[*from..at]) {
            Ok(Commit::Accepted) => !state.is_complete(),
            Ok(Commit::Heal { accepted }) if accepted >= at - from => !state.is_complete(),
            _ => false,
        }
    }
}
