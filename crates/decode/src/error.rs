//! Errors of the generation loop: misuse by the driver (wrong logits length, stepping
//! a finished generation) and inputs it cannot start from.

/// An error of [`crate::Generator`].
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DecodeError {
    /// The prompt had no token: the model needs at least one position to predict from.
    #[error("the prompt is empty: give at least one token (e.g. the chat template's BOS)")]
    EmptyPrompt,
    /// A prompt token id is outside the vocabulary.
    #[error(
        "prompt token {id} at position {position} is outside the vocabulary of {vocab} tokens"
    )]
    TokenOutOfRange {
        /// The offending id.
        id: u32,
        /// Its position in the prompt.
        position: usize,
        /// The vocabulary size.
        vocab: usize,
    },
    /// The constraint was built over a vocabulary of another width than the
    /// generator's ([`crate::Constraint::vocab_width`]).
    #[error("the constraint was built over a vocabulary of {constraint} tokens, the generator's has {vocab}")]
    VocabMismatch {
        /// The constraint's vocabulary width.
        constraint: usize,
        /// The generator's.
        vocab: usize,
    },
    /// The driver passed logits of the wrong size.
    #[error("logits have {got} entries but the vocabulary has {expected} tokens")]
    LogitsLength {
        /// The vocabulary size.
        expected: usize,
        /// What the driver passed.
        got: usize,
    },
    /// The model could not answer a question about its logits (a GPU read failed).
    #[error("reading the logits: {0}")]
    Logits(String),
    /// The logits could not answer without a read-back the model does asynchronously
    /// ([`crate::logits::LogitsError::NotReady`]): the step was given back, to go on
    /// from its last draw; read the logits and call the step again with them.
    #[error("the step needs logits that are not read back yet: read them and step again")]
    LogitsNotReady,
    /// `step` was called after the generation stopped.
    #[error("the generation has already stopped; start a new one or rewind")]
    Finished,
    /// `rewind` asked for a step that is not in the history.
    #[error("cannot rewind to step {step}: history holds steps 0..={available} (enable history in the config)")]
    NoSuchStep {
        /// The requested step.
        step: usize,
        /// The last step that can be restored.
        available: usize,
    },
}
