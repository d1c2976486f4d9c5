//! What the page loads once: the GGUF file, the tokenizer and vocabulary it carries,
//! and the model placed on the chosen device.

use std::sync::Arc;

use espalier_constraint::Vocab;
use espalier_decode::{LangError, PythonKit};
use espalier_model::{Gguf, Tokenizer};

use crate::backend::Backend;

/// The loaded model and everything derived from the GGUF file.
pub struct Engine {
    /// Encodes prompts, decodes tokens.
    pub tokenizer: Tokenizer,
    /// Every token's raw bytes, for the constraints and the decode loop.
    pub vocab: Arc<Vocab>,
    /// Where the model runs.
    pub backend: Backend,
    /// The model itself.
    model: crate::model_bridge::Model,
    /// The compiled Python grammar and vocabulary trie, built on first use.
    python: Option<PythonKit>,
}

/// Why loading failed, with the step that failed so the user knows what to fix.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    /// Which step failed (reading the GGUF, building the tokenizer, placing weights).
    pub step: &'static str,
    /// The underlying message.
    pub message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.step, self.message)
    }
}

impl std::error::Error for LoadError {}

impl Engine {
    /// Builds the engine from the GGUF bytes on `backend`'s device.
    pub async fn load(bytes: Vec<u8>, backend: Backend) -> Result<Engine, LoadError> {
        let gguf = Gguf::from_bytes(bytes)
            .map_err(|e| LoadError { step: "reading the GGUF file", message: e.to_string() })?;
        let tokenizer = Tokenizer::from_gguf(&gguf)
            .map_err(|e| LoadError { step: "building the tokenizer", message: e.to_string() })?;
        let vocab = Arc::new(Vocab::new(
            tokenizer.all_token_bytes().to_vec(),
            &tokenizer.special_ids(),
            tokenizer.eos_id(),
        ));
        let model = crate::model_bridge::Model::load(&gguf, &backend.device)
            .await
            .map_err(|message| LoadError { step: "placing the weights on the device", message })?;
        Ok(Engine { tokenizer, vocab, backend, model, python: None })
    }

    /// Rolls the model's KV cache back to `keep` positions, runs `tokens`, and returns
    /// the logits of the last one.
    pub async fn forward(&mut self, keep: usize, tokens: &[u32]) -> Result<Vec<f32>, String> {
        self.model.forward(keep, tokens).await
    }

    /// The Python constraint kit, compiling the grammar on first use.
    pub fn python_kit(&mut self) -> Result<&PythonKit, LangError> {
        if self.python.is_none() {
            self.python = Some(PythonKit::new(&self.vocab)?);
        }
        Ok(self.python.as_ref().expect("just built"))
    }

    /// A one-line description of the model for the page.
    pub fn describe(&self) -> String {
        self.model.describe()
    }
}
