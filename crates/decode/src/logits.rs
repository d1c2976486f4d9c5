//! The step's logits as the loop reads them ([`Logits`]): wherever the model keeps them.
//! A CPU model hands over a host vector; a GPU model keeps them on the device and answers
//! the greedy draw there (the step's mask goes down, the chosen id comes back), so the
//! full vector crosses the bus only when the loop needs it on the host (temperature
//! sampling). The loop stays sans-IO: it asks, the model's side answers; a model that
//! cannot answer at once (WebGPU in the browser reads back asynchronously) says
//! [`LogitsError::NotReady`], and the loop gives the step back to be taken again once
//! the caller has read what it needs ([`crate::Generator::step_logits`]).

use std::borrow::Cow;

use espalier_constraint::TokenSet;

use crate::sampler::{argmax, top_candidates};
use crate::shortlist::{DrawMass, Shortlist};

/// Why the logits could not answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LogitsError {
    /// The answer needs a read-back the model only does asynchronously: the caller
    /// reads (e.g. the whole vector) and steps again.
    #[error("the logits are not read back yet")]
    NotReady,
    /// The model failed (a GPU read), as text.
    #[error("{0}")]
    Failed(String),
}

impl From<String> for LogitsError {
    fn from(e: String) -> Self {
        LogitsError::Failed(e)
    }
}

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
    /// `None` when there is none.
    fn argmax(
        &mut self,
        n: usize,
        allowed: Option<&TokenSet>,
        refused: &[u32],
    ) -> Result<Option<u32>, LogitsError>;

    /// The whole vector on the host (read back on the first call by a GPU model).
    fn host(&mut self) -> Result<&[f32], LogitsError>;

    /// Starts the model's pass without waiting (a GPU model records a pass and sends
    /// it to the device with the first read otherwise): the loop calls it before CPU
    /// work the pass can run beside ([`crate::Generator::has_work_to_prepare`]). A no-op
    /// for host logits.
    fn submit(&mut self) -> Result<(), LogitsError> {
        Ok(())
    }

    /// Waits until the model has computed the logits (a GPU model returns from its
    /// forward pass once the pass is submitted); the driver times the prompt's pass with
    /// it. A no-op for host logits.
    fn wait(&mut self) -> Result<(), LogitsError> {
        Ok(())
    }

    /// The best ids of `0..n` in `allowed` (`None`: all) and not in `refused`, with their
    /// logits ([`Shortlist`]), where the model found them without the whole vector (a GPU
    /// model's read-back), and the sum of `mass`'s weights over every allowed id when it
    /// can (none refused); `None` when it has none, and the sampler reads the vector.
    fn shortlist(
        &mut self,
        n: usize,
        allowed: Option<&TokenSet>,
        refused: &[u32],
        mass: Option<DrawMass>,
    ) -> Result<Option<Shortlist>, LogitsError> {
        let _ = (n, allowed, refused, mass);
        Ok(None)
    }

    /// The `k` ids of `0..n` with the highest finite logits and their probabilities
    /// (softmax at temperature 1 over every finite logit of `0..n`), most likely first,
    /// ties to the lowest id: [`top_candidates`], the trace's candidates. A GPU model
    /// finds them on the device.
    fn top(&mut self, n: usize, k: usize) -> Result<Vec<(u32, f32)>, LogitsError> {
        let host = self.host()?;
        let logits = host
            .get(..n)
            .ok_or_else(|| format!("{} logits for a vocabulary of {n}", host.len()))?;
        Ok(top_candidates(logits, k))
    }
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
    ) -> Result<Option<u32>, LogitsError> {
        host_argmax(&self.0, n, allowed, refused)
    }

    fn host(&mut self) -> Result<&[f32], LogitsError> {
        Ok(&self.0)
    }
}

fn host_argmax(
    logits: &[f32],
    n: usize,
    allowed: Option<&TokenSet>,
    refused: &[u32],
) -> Result<Option<u32>, LogitsError> {
    let logits = logits
        .get(..n)
        .ok_or_else(|| format!("{} logits for a vocabulary of {n}", logits.len()))?;
    Ok(argmax(logits, |id| {
        allowed.is_none_or(|m| m.contains(id as usize)) && !refused.contains(&id)
    }))
}
