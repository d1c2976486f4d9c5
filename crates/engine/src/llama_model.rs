//! [`LlamaModel`]: the model with its KV cache, as the decode loop drives it (a
//! [`LanguageModel`]), remembering the tokens its cache holds so that the next
//! generation keeps the prompt prefix it shares with the last one.

use espalier_decode::LanguageModel;
use espalier_model::{KvCache, Llama, ModelError, WeightFormat};

/// The model with its KV cache.
pub struct LlamaModel {
    llama: Llama,
    cache: KvCache,
    /// The tokens `cache` holds, so that the next generation can keep the prompt
    /// prefix it shares with the last one (the sLua prompts share thousands).
    pub cached: Vec<u32>,
}

impl LlamaModel {
    /// The model with an empty cache.
    pub fn new(llama: Llama) -> Self {
        let cache = llama.new_cache();
        Self { llama, cache, cached: Vec::new() }
    }

    /// How the model's linear layers hold their weights.
    pub fn weight_format(&self) -> WeightFormat {
        self.llama.weight_format()
    }
}

impl LanguageModel for LlamaModel {
    type Error = ModelError;

    fn truncate(&mut self, len: usize) {
        self.cache.truncate(len);
    }

    fn forward(&mut self, tokens: &[u32]) -> Result<Vec<f32>, ModelError> {
        self.llama.forward(tokens, &mut self.cache)
    }
}
