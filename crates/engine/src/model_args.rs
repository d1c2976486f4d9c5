//! [`ModelArgs`]: the flags that choose and open the model (`--backend`, `--weights`,
//! `--model`), flattened into the command lines that run one (`espalier generate`,
//! `espalier-lab eval`).

use std::path::PathBuf;

use espalier_model::WeightFormat;

use crate::{load_with, EngineError, Loaded};

/// `--backend`, `--weights`, `--model`.
#[derive(clap::Args, Clone, Debug)]
pub struct ModelArgs {
    /// Backend: ndarray (CPU), wgpu, cuda (when compiled in); a list (`cuda,ndarray`)
    /// tries each in turn.
    #[arg(long, default_value = "ndarray")]
    pub backend: String,
    /// How the model's weights are held: burn-f32, f32, f16, q8_0, q4_1, gguf,
    /// gpu-blocks (default: the backend's best, gguf on the CPU, gpu-blocks on wgpu and
    /// cuda; the host formats run only on the CPU, gpu-blocks only on a GPU).
    #[arg(long)]
    pub weights: Option<WeightFormat>,
    /// The GGUF model (default: static/models/SmolLM2-135M-Instruct.Q4_1.gguf).
    #[arg(long)]
    pub model: Option<PathBuf>,
}

impl ModelArgs {
    /// The model these flags name, opened ([`load_with`]).
    pub fn load(&self) -> Result<Loaded, EngineError> {
        load_with(self.model.as_deref(), &self.backend, self.weights)
    }
}
