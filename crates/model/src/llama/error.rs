//! Errors of model loading and inference.

use crate::gguf::GgufError;
use crate::tokenizer::TokenizerError;

/// Why the model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The GGUF file is unreadable or lacks a key or tensor the model needs.
    #[error(transparent)]
    Gguf(#[from] GgufError),
    /// The tokenizer could not be built or could not encode / decode (lets callers
    /// use one error type for the whole model side).
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
    /// The file holds a model of another architecture.
    #[error("unsupported architecture {arch:?} in general.architecture (supported: llama, qwen2)")]
    UnsupportedArchitecture {
        /// The architecture found.
        arch: String,
    },
    /// The hyper-parameters are inconsistent (e.g. heads not dividing the hidden size).
    #[error("inconsistent model configuration: {0}")]
    BadConfig(String),
    /// A token id outside the vocabulary.
    #[error("token id {id} at position {position} is outside the vocabulary (size {vocab_size})")]
    BadToken {
        /// The id.
        id: u32,
        /// Its index in the input.
        position: usize,
        /// Vocabulary size.
        vocab_size: usize,
    },
    /// `forward` was called with no tokens.
    #[error("forward needs at least one token")]
    EmptyInput,
    /// The sequence would exceed the model's context length.
    #[error("sequence of {len} tokens exceeds the context length {max}")]
    ContextFull {
        /// The length it would reach.
        len: usize,
        /// The model's context length.
        max: usize,
    },
    /// The requested backend was not compiled in (Cargo feature) or has no device.
    #[error("backend {backend}: {reason}")]
    Backend {
        /// The backend's name.
        backend: &'static str,
        /// Why it is unavailable.
        reason: String,
    },
    /// A [`super::KvCache`] made by another model (other layer count, head shape or
    /// weight format) was passed to `forward`.
    #[error("the KV cache was made by another model (create it with this model's `new_cache`)")]
    CacheMismatch,
    /// The model does not fit in the memory available ([`super::MemoryPlan`]).
    #[error("the model needs {} MB (weights, file, RoPE tables and a 2,048-token KV cache) but only {} MB are available", needed / 1_000_000, available / 1_000_000)]
    OutOfMemory {
        /// Bytes the load needs.
        needed: u64,
        /// Bytes available.
        available: u64,
    },
    /// The device failed while running or reading back a tensor.
    #[error("device execution failed: {0}")]
    Execution(String),
}
