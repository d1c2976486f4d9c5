//! The bridge to espalier-model's [`Llama`]: the weights placed on the chosen burn
//! device, and one KV cache rolled back and extended as the decode loop asks.

use burn::tensor::Device;
use espalier_model::{Gguf, KvCache, Llama};

/// The model on its device, with the cache of the current generation.
pub struct Model {
    llama: Llama,
    cache: KvCache,
}

impl Model {
    /// Places the GGUF's weights on `device` (dequantized to f32 by the model crate).
    pub async fn load(gguf: &Gguf, device: &Device) -> Result<Model, String> {
        let llama = Llama::load(gguf, device).map_err(|e| e.to_string())?;
        let cache = llama.new_cache();
        Ok(Model { llama, cache })
    }

    /// Rolls the KV cache back to `keep` positions, runs `tokens` after them, and
    /// returns the last token's logits.
    pub async fn forward(&mut self, keep: usize, tokens: &[u32]) -> Result<Vec<f32>, String> {
        self.cache.truncate(keep);
        if self.cache.len() != keep {
            return Err(format!(
                "the decode loop asked to keep {keep} cached positions but the cache holds {}",
                self.cache.len()
            ));
        }
        self.llama.forward_async(tokens, &mut self.cache).await.map_err(|e| e.to_string())
    }

    /// One line about the model for the page.
    pub fn describe(&self) -> String {
        let c = self.llama.config();
        format!("{} blocks, hidden {}, vocab {}, weights {}", c.layers, c.hidden, c.vocab_size, self.llama.weight_format())
    }
}
