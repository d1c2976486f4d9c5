//! The Llama hyper-parameters, read from the GGUF metadata (`llama.*` keys) so the
//! same code loads any Llama-family GGUF of the supported tensor types.

use crate::gguf::{Gguf, GgufError};

use super::ModelError;

/// Shape and constants of a Llama-family model.
#[derive(Clone, Debug, PartialEq)]
pub struct LlamaConfig {
    /// Vocabulary size (rows of the token embedding).
    pub vocab_size: usize,
    /// Hidden size (`llama.embedding_length`), 576 for SmolLM2-135M.
    pub hidden: usize,
    /// Number of transformer blocks (`llama.block_count`), 30.
    pub layers: usize,
    /// Query heads (`llama.attention.head_count`), 9.
    pub heads: usize,
    /// Key/value heads (`llama.attention.head_count_kv`), 3: grouped-query attention.
    pub kv_heads: usize,
    /// Per-head size, `hidden / heads` (64).
    pub head_dim: usize,
    /// FFN inner size (`llama.feed_forward_length`), 1536.
    pub ffn: usize,
    /// RoPE base frequency (`llama.rope.freq_base`), 100000.
    pub rope_base: f32,
    /// RMSNorm epsilon (`llama.attention.layer_norm_rms_epsilon`), 1e-5.
    pub rms_eps: f32,
    /// Longest sequence the model was trained on (`llama.context_length`), 8192.
    pub context_len: usize,
}

impl LlamaConfig {
    /// Reads the configuration; fails on a non-Llama architecture or an inconsistent
    /// shape.
    pub fn from_gguf(gguf: &Gguf) -> Result<Self, ModelError> {
        let arch = gguf.get_str("general.architecture")?;
        if arch != "llama" {
            return Err(ModelError::UnsupportedArchitecture { arch: arch.into() });
        }
        let u = |k: &str| -> Result<usize, GgufError> { gguf.get_u64(k).map(|v| v as usize) };
        let hidden = u("llama.embedding_length")?;
        let heads = u("llama.attention.head_count")?;
        let kv_heads = u("llama.attention.head_count_kv").unwrap_or(heads);
        let vocab_size = match gguf.get_u64("llama.vocab_size") {
            Ok(v) => v as usize,
            Err(_) => gguf.tensor_info("token_embd.weight")?.dims.get(1).copied().unwrap_or(0) as usize,
        };
        let config = Self {
            vocab_size,
            hidden,
            layers: u("llama.block_count")?,
            heads,
            kv_heads,
            head_dim: if heads == 0 { 0 } else { hidden / heads },
            ffn: u("llama.feed_forward_length")?,
            rope_base: gguf.get_f64("llama.rope.freq_base").unwrap_or(10000.0) as f32,
            rms_eps: gguf.get_f64("llama.attention.layer_norm_rms_epsilon").unwrap_or(1e-5) as f32,
            context_len: u("llama.context_length").unwrap_or(2048),
        };
        let ok = heads > 0
            && kv_heads > 0
            && heads % kv_heads == 0
            && hidden % heads == 0
            && config.head_dim % 2 == 0
            && config.layers > 0
            && config.vocab_size > 0
            && config.ffn > 0;
        if !ok {
            return Err(ModelError::BadConfig(format!("{config:?}")));
        }
        Ok(config)
    }

    /// Query heads per key/value head.
    pub fn group(&self) -> usize {
        self.heads / self.kv_heads
    }
}
