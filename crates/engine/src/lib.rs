//! espalier-engine: what every front end of Espalier does with a model, in one place.
//! Open a model (its GGUF: tokenizer, vocabulary, the model on a backend), then prepare
//! a task (language, mode, a request or a fill-in-the-middle prefix and suffix) into
//! prompt ids, a constraint and the decode settings; the CLI, the lab, the web worker
//! and the Python package use it instead of rebuilding the pieces.
//!
//! Main items: [`chat_of`] (the model's chat format), [`vocab_of`] (the vocabulary as
//! constraints see it), [`prompt_ids`] (the one "FIM tokens or chat" choice),
//! [`prepare`] (a task -> [`Prepared`]); natively with a backend feature (`ndarray` by
//! default, `flex`, `wgpu`, `cuda`): [`load_with`] -> [`Loaded`] (tokenizer,
//! vocabulary, [`LlamaModel`] as a [`espalier_decode::LanguageModel`]) and
//! [`generate`]. Without default features the engine is the tokenizer side only (no
//! burn), as the Python wheel takes it.
//!
//! ```no_run
//! # #[cfg(feature = "ndarray")] {
//! use espalier_decode::{GenerateConfig, Kits, Lang, Mode, Task};
//! use espalier_engine::{generate, load, prepare, STORE_DIR};
//!
//! let mut loaded = load(None, "ndarray")?;
//! let mut kits = Kits::new(loaded.vocab.clone()).with_store_dir(STORE_DIR);
//! let task = Task::new(Some(Lang::from_name("python")?), Mode::Mask, "def add(a, b):");
//! let p = prepare(&loaded.tokenizer, &mut kits, &task, GenerateConfig::default())?;
//! let (generator, _timing) = generate(&mut loaded, p.constraint, &p.ids, p.config, None, false)?;
//! println!("{}", generator.text());
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod chat;
mod error;
mod prepared;
mod prompt_ids;
mod vocabulary;

#[cfg(all(feature = "model", not(target_arch = "wasm32")))]
pub mod backend_choice;
#[cfg(feature = "model")]
mod device_shortlist;
#[cfg(feature = "clap")]
mod exit_code;
#[cfg(all(feature = "model", not(target_arch = "wasm32")))]
mod generation;
#[cfg(feature = "clap")]
mod lang_arg;
#[cfg(all(feature = "model", not(target_arch = "wasm32")))]
mod llama_model;
#[cfg(all(feature = "model", not(target_arch = "wasm32")))]
mod loaded;
#[cfg(all(feature = "clap", feature = "model", not(target_arch = "wasm32")))]
mod model_args;
#[cfg(feature = "model")]
pub mod prefetched_logits;
#[cfg(feature = "clap")]
mod wrap_up_args;

pub use chat::chat_of;
pub use error::EngineError;
pub use prepared::{prepare, Prepared};
pub use prompt_ids::{fim_prompt_ids, prompt_ids, PromptIds};
pub use vocabulary::vocab_of;

#[cfg(feature = "clap")]
pub use exit_code::exit_code;
#[cfg(all(feature = "model", not(target_arch = "wasm32")))]
pub use generation::generate;
#[cfg(feature = "clap")]
pub use lang_arg::lang_parser;
#[cfg(all(feature = "model", not(target_arch = "wasm32")))]
pub use llama_model::LlamaModel;
#[cfg(all(feature = "model", not(target_arch = "wasm32")))]
pub use loaded::{load, load_with, model_path, Loaded};
#[cfg(all(feature = "clap", feature = "model", not(target_arch = "wasm32")))]
pub use model_args::ModelArgs;
#[cfg(feature = "clap")]
pub use wrap_up_args::WrapUpArgs;

/// Where `--mode syncode` keeps the SynCode mask stores, `LANG-smollm2.store` (the
/// Python one is the file `espalier bench mask` uses); built there on first use.
pub const STORE_DIR: &str = "target/espalier-cache";
