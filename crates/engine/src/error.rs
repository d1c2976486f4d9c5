//! [`EngineError`]: why a model could not be opened, a task not prepared or a
//! generation not run, with the input it concerns.

use espalier_decode::{DecodeError, LangError};
use espalier_model::{GgufError, TokenizerError};

/// What went wrong in the engine.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The task's language refused it (mode, grammar, prompt template).
    #[error(transparent)]
    Lang(#[from] LangError),
    /// The prompt could not be tokenized.
    #[error("could not tokenize the prompt: {0}")]
    Tokenize(#[from] TokenizerError),
    /// The GGUF's metadata gave no tokenizer.
    #[error("could not build the tokenizer: {0}")]
    Tokenizer(TokenizerError),
    /// The model file is missing or unreadable.
    #[error("{0}")]
    ModelFile(String),
    /// The GGUF file is malformed.
    #[error("{path}: {source}")]
    Gguf {
        /// The file.
        path: String,
        /// What is wrong in it.
        source: GgufError,
    },
    /// No backend of the list could start.
    #[error("{0}")]
    Backend(String),
    /// The decode loop refused its input (an empty prompt, an id out of range).
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The model could not be placed or run.
    #[cfg(feature = "model")]
    #[error(transparent)]
    Model(#[from] espalier_model::ModelError),
    /// The trace file could not be written.
    #[error("writing the trace {path}: {source}")]
    Trace {
        /// The trace file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

#[cfg(feature = "model")]
impl From<espalier_decode::DriveError<espalier_model::ModelError>> for EngineError {
    fn from(e: espalier_decode::DriveError<espalier_model::ModelError>) -> Self {
        match e {
            espalier_decode::DriveError::Model(e) => EngineError::Model(e),
            espalier_decode::DriveError::Decode(e) => EngineError::Decode(e),
        }
    }
}
