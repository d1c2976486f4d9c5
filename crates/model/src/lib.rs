//! espalier-model: the language model side of Espalier.
//!
//! - [`gguf`]: a bounds-checked GGUF reader ([`Gguf`]) with F32 / F16 / Q8_0 / Q4_1
//!   dequantization; every error names the key or tensor and the byte offset.
//! - [`Tokenizer`]: SmolLM2's byte-level BPE rebuilt from the GGUF metadata with the
//!   `tokenizers` crate; encodes exactly as llama.cpp does, and gives every token's raw
//!   bytes for grammar constraints.
//!
//! Without default features the crate is only these two (no tensors, quick to build,
//! compiles to `wasm32-unknown-unknown`).
//!
//! ```no_run
//! use espalier_model::{Gguf, Tokenizer};
//! let gguf = Gguf::open("static/models/SmolLM2-135M-Instruct.Q4_1.gguf")?;
//! let tok = Tokenizer::from_gguf(&gguf)?;
//! let ids = tok.encode("def fibonacci(n):")?;
//! assert_eq!(tok.decode(&ids)?, "def fibonacci(n):");
//! let bytes: &[Vec<u8>] = tok.all_token_bytes(); // for espalier_constraint::Vocab
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod gguf;
#[cfg(feature = "burn")]
mod llama;
mod tokenizer;

pub use gguf::{Gguf, GgufError};
#[cfg(feature = "burn")]
pub use llama::{BackendKind, KvCache, Llama, LlamaConfig, ModelError};
pub use tokenizer::{Tokenizer, TokenizerError};

/// Where the set-up step (`scripts/fetch-model.sh`) puts the model, relative to the
/// repository root.
pub const DEFAULT_MODEL_PATH: &str = "static/models/SmolLM2-135M-Instruct.Q4_1.gguf";
