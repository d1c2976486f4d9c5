//! espalier-model: the language model side of Espalier.
//!
//! - [`gguf`]: a bounds-checked GGUF reader ([`Gguf`]) with F32, F16, Q8_0, Q4_0, Q4_1,
//!   Q5_0, Q5_1, Q4_K, Q5_K and Q6_K dequantization; every error names the key or
//!   tensor and the byte offset.
//! - [`Tokenizer`]: SmolLM2's byte-level BPE rebuilt from the GGUF metadata with the
//!   `tokenizers` crate; encodes exactly as llama.cpp does (330 golden texts), and gives
//!   every token's raw bytes for grammar constraints.
//! - [`Llama`] (features `ndarray` (default), `flex`, `wgpu`, `cuda`): the Llama-family
//!   transformer on burn (architectures `llama` and `qwen2`, [`Architecture`]), with a [`KvCache`] that can be rolled back
//!   ([`KvCache::truncate`]) and batched prompt prefill. The backend is picked at run
//!   time with [`BackendKind`]; the weights' format per backend with [`WeightFormat`]
//!   (on the CPU the linear layers run on espalier-kernels' kernels over the GGUF's own
//!   Q4_1 blocks: a decode step streams 112 MB instead of burn's 570 MB of f32).
//!
//! Without default features the crate is only the GGUF reader and the tokenizer (no
//! burn: quick to build, compiles to `wasm32-unknown-unknown`).
//!
//! Tokenizer only:
//!
//! ```no_run
//! use espalier_model::{Gguf, Tokenizer};
//! let gguf = Gguf::open("static/models/SmolLM2-135M-Instruct.Q4_1.gguf")?;
//! let tok = Tokenizer::from_gguf(&gguf)?;
//! let ids = tok.encode("def fibonacci(n):")?; // [1604, 3987, 46477, 24, 94, 727]
//! assert_eq!(tok.decode(&ids)?, "def fibonacci(n):");
//! // Inputs of espalier_constraint::Vocab::new:
//! let (bytes, special, eos) = (tok.all_token_bytes().to_vec(), tok.special_ids(), tok.eos_id());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Greedy generation with rollback (native; in wasm call `forward_async(..).await`
//! and create the device with `BackendKind::device_async`):
//!
//! ```no_run
//! # #[cfg(feature = "ndarray")] {
//! use espalier_model::{BackendKind, Gguf, Llama, Tokenizer};
//! let gguf = Gguf::open("static/models/SmolLM2-135M-Instruct.Q4_1.gguf")?;
//! let tok = Tokenizer::from_gguf(&gguf)?;
//! let device = BackendKind::Ndarray.device()?; // or "wgpu".parse::<BackendKind>()?
//! let model = Llama::load(&gguf, &device)?;
//! let mut cache = model.new_cache();
//! let prompt = tok.encode(&Tokenizer::chat_prompt("You are a helpful assistant.", "Write hello world in Python."))?;
//! let mut logits = model.forward(&prompt, &mut cache)?; // batched prefill
//! let mut out = Vec::new();
//! for _ in 0..16 {
//!     let next = (0..logits.len()).max_by(|&a, &b| logits[a].total_cmp(&logits[b])).unwrap() as u32;
//!     if next == tok.eos_id() { break; }
//!     out.push(next);
//!     logits = model.forward(&[next], &mut cache)?; // one decode step
//! }
//! cache.truncate(prompt.len()); // roll back to the end of the prompt (token healing)
//! println!("{}", tok.decode(&out)?);
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod gguf;
#[cfg(feature = "burn")]
mod llama;
pub mod synthetic;
mod tokenizer;

pub use gguf::{Gguf, GgufError};
#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(target_family = "wasm")))]
pub use llama::gpu_kernel_check;
#[cfg(feature = "burn")]
pub use llama::{
    available_memory, greedy, kernel_check, ActivationFormat, Architecture, BackendKind,
    DeviceLogits, KvCache, ListQuery, Llama, LlamaConfig, Mass, MemoryPlan, ModelError,
    ReplayState, TopList, WeightFormat, MAX_CONTEXT, WGPU_TASKS_MAX,
};
#[cfg(all(feature = "cuda", not(target_family = "wasm")))]
pub use llama::{probe_cuda, CudaDeviceInfo};
pub use tokenizer::{byte_level_decode, FimTokens, Tokenizer, TokenizerError};

/// Where the set-up step (`scripts/fetch-model.sh`) puts the model, relative to the
/// repository root.
pub const DEFAULT_MODEL_PATH: &str = "static/models/SmolLM2-135M-Instruct.Q4_1.gguf";
