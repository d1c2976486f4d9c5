//! The step's logits as the loop reads them ([`Logits`]): wherever the model keeps them.
//! A CPU model hands over a host vector; a GPU model keeps them on the device and answers
//! the greedy draw there (the step's mask goes down, the chosen id comes back), so the
//! full vector crosses the bus only when the loop needs it on the host (temperature
//! sampling, traces). The loop stays sans-IO: it asks, the model's side answers.

use std::borrow::Cow;

use espalier_constraint::TokenSet;

use crate::sampler::argmax;

/// A step's logits, at least one entry per vocabulary token.
pub trait Logits {
    /// Entries (extra padding entries past the vocabulary are ignored).
    fn len(&self) -> usize;

    /// Whether there are no entries.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Among ids `0..n` in `allowed` (`None`: all) and not in `refused`, the one with
    /// the highest finite logit, ties to the lowest id ([`crate::sampler::argmax`]);
    /// `None` when there is none. Errors are the model's, as text.
    fn argmax(
        &mut self,
        n: usize,
        allowed: Option<&TokenSet>,
        refused: &[u32],
    ) -> Result<Option<u32>, String>;

    /// The whole vector on the host (read back on the first call by a GPU model).
    fn host(&mut self) -> Result<&[f32], String>;
}

/// Logits on the host: borrowed ([`crate::Generator::step`]'s) or owned (what
/// [`crate::LanguageModel::forward`] returned).
pub struct HostLogits<'a>(pub Cow<'a, [f32]>);

impl Logits for HostLogits<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn argmax(
        &mut self,
        n: usize,
        allowed: Option<&TokenSet>,
        refused: &[u32],
    ) -> Result<Option<u32>, String> {
        host_argmax(&self.0, n, allowed, refused)
    }

    fn host(&mut self) -> Result<&[f32], String> {
        Ok(&self.0)
    }
}

fn host_argmax(
    logits: &[f32],
    n: usize,
    allowed: Option<&TokenSet>,
    refused: &[u32],
) -> Result<Option<u32>, String> {
    let logits = logits
        .get(..n)
        .ok_or_else(|| format!("{} logits for a vocabulary of {n}", logits.len()))?;
    Ok(argmax(logits, |id| {
        allowed.is_none_or(|m| m.contains(id as usize)) && !refused.contains(&id)
    }))
}
