//! The hyper-parameters of a Llama-family model, read from the GGUF metadata under the
//! architecture's prefix (`llama.*`, `qwen2.*`) so the same code loads any supported
//! GGUF. Architectures ([`Architecture`]): `llama` (SmolLM2, DeepSeek-Coder: RoPE on
//! interleaved pairs, optional linear RoPE scaling, tied or untied output) and `qwen2`
//! (Qwen2 / Qwen2.5-Coder: Q/K/V biases, RoPE on halves ("NEOX"), rope theta and norm
//! epsilon from the file, embedding rows beyond the tokenizer's vocabulary).

use crate::gguf::{Gguf, GgufError};

use super::ModelError;

/// Longest context the RoPE table is built for, whatever the file says: 32,768
/// positions (Qwen2.5-Coder's length; the table is 16 MB at head size 128), so an
/// absurd `context_length` cannot allocate an absurd table.
pub const MAX_CONTEXT: usize = 32_768;

/// The model families this crate runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Architecture {
    /// `llama`: Llama, SmolLM2, DeepSeek-Coder, other Llama-family files.
    Llama,
    /// `qwen2`: Qwen2, Qwen2.5, Qwen2.5-Coder.
    Qwen2,
}

impl Architecture {
    /// Every supported architecture, as `general.architecture` spells it.
    pub const NAMES: &'static str = "llama, qwen2";

    /// The architecture `general.architecture` names, if supported.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "llama" => Some(Architecture::Llama),
            "qwen2" => Some(Architecture::Qwen2),
            _ => None,
        }
    }

    /// The metadata prefix and `general.architecture` value.
    pub fn name(self) -> &'static str {
        match self {
            Architecture::Llama => "llama",
            Architecture::Qwen2 => "qwen2",
        }
    }

    /// Whether the GGUF's Q and K rows pair RoPE dimensions `(2i, 2i + 1)` (llama.cpp's
    /// "normal" RoPE, `llama`) rather than `(i, i + d/2)` ("NEOX", `qwen2`).
    pub fn rope_interleaved(self) -> bool {
        self == Architecture::Llama
    }

    /// Whether the attention's Q, K and V projections have biases.
    pub fn qkv_bias(self) -> bool {
        self == Architecture::Qwen2
    }
}

/// Shape and constants of a Llama-family model.
#[derive(Clone, Debug, PartialEq)]
pub struct LlamaConfig {
    /// The model family.
    pub arch: Architecture,
    /// Rows of the token embedding (and logits per step): 49,152 for SmolLM2, 151,936
    /// for Qwen2.5 (more than its tokenizer's tokens).
    pub vocab_size: usize,
    /// Hidden size (`*.embedding_length`), 576 for SmolLM2-135M.
    pub hidden: usize,
    /// Number of transformer blocks (`*.block_count`), 30.
    pub layers: usize,
    /// Query heads (`*.attention.head_count`), 9.
    pub heads: usize,
    /// Key/value heads (`*.attention.head_count_kv`), 3: grouped-query attention.
    pub kv_heads: usize,
    /// Per-head size, `hidden / heads` (64).
    pub head_dim: usize,
    /// FFN inner size (`*.feed_forward_length`), 1536.
    pub ffn: usize,
    /// RoPE base frequency (`*.rope.freq_base`), 100000.
    pub rope_base: f32,
    /// RoPE position factor: `1 / *.rope.scaling.factor` with linear scaling, else 1.
    pub rope_freq_scale: f32,
    /// RMSNorm epsilon (`*.attention.layer_norm_rms_epsilon`), 1e-5.
    pub rms_eps: f32,
    /// Longest sequence (`*.context_length`, at most [`MAX_CONTEXT`]), 8192.
    pub context_len: usize,
}

impl LlamaConfig {
    /// Reads the configuration; fails on an unsupported architecture, an unsupported
    /// RoPE scaling or an inconsistent shape.
    pub fn from_gguf(gguf: &Gguf) -> Result<Self, ModelError> {
        let name = gguf.get_str("general.architecture")?;
        let arch = Architecture::from_name(name)
            .ok_or_else(|| ModelError::UnsupportedArchitecture { arch: name.into() })?;
        let p = arch.name();
        let key = |k: &str| format!("{p}.{k}");
        let u = |k: &str| -> Result<usize, GgufError> {
            gguf.get_u64(&key(k)).map(|v| v.min(usize::MAX as u64) as usize)
        };
        let hidden = u("embedding_length")?;
        let heads = u("attention.head_count")?;
        let kv_heads = u("attention.head_count_kv").unwrap_or(heads);
        let vocab_size = match gguf.tensor_info("token_embd.weight") {
            Ok(info) => info.dims.get(1).copied().unwrap_or(0) as usize,
            Err(_) => u("vocab_size")?,
        };
        let config = Self {
            arch,
            vocab_size,
            hidden,
            layers: u("block_count")?,
            heads,
            kv_heads,
            head_dim: hidden.checked_div(heads).unwrap_or(0),
            ffn: u("feed_forward_length")?,
            rope_base: gguf.get_f64(&key("rope.freq_base")).unwrap_or(10000.0) as f32,
            rope_freq_scale: rope_freq_scale(gguf, p)?,
            rms_eps: gguf.get_f64(&key("attention.layer_norm_rms_epsilon")).unwrap_or(1e-5) as f32,
            context_len: u("context_length").unwrap_or(2048).min(MAX_CONTEXT),
        };
        let ok = heads > 0
            && kv_heads > 0
            && heads % kv_heads == 0
            && hidden % heads == 0
            && config.head_dim.is_multiple_of(2)
            && config.layers > 0
            && config.vocab_size > 0
            && config.ffn > 0
            && config.context_len > 0
            && config.rope_base.is_finite()
            && config.rope_base > 0.0
            && config.rms_eps.is_finite();
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

/// The RoPE position factor, as llama.cpp reads it: `rope.scaling.factor` (or the older
/// `rope.scale_linear`) `f` divides positions by `f` (0 or absent: 1); the scaling type
/// (absent means linear) must be `linear` or `none`: other types (YaRN, ...) are refused.
fn rope_freq_scale(gguf: &Gguf, p: &str) -> Result<f32, ModelError> {
    match gguf.get_str(&format!("{p}.rope.scaling.type")) {
        Ok("none" | "linear") | Err(GgufError::MissingKey { .. }) => {}
        Ok(other) => {
            return Err(ModelError::BadConfig(format!(
                "RoPE scaling {other:?} is not supported (supported: none, linear)"
            )))
        }
        Err(e) => return Err(e.into()),
    }
    let factor = gguf
        .get_f64(&format!("{p}.rope.scaling.factor"))
        .or_else(|_| gguf.get_f64(&format!("{p}.rope.scale_linear")))
        .unwrap_or(0.0);
    match factor {
        0.0 => Ok(1.0),
        f if f.is_finite() && f > 0.0 => Ok((1.0 / f) as f32),
        f => {
            Err(ModelError::BadConfig(format!("RoPE scaling factor {f} is not a positive number")))
        }
    }
}
