//! Small random-weight models in a real vocabulary: a user's own `qwen2` or `llama`
//! GGUF proven end to end (`espalier generate --model FILE`) without the real weights.
//!
//! [`model_from_vocab`] takes the `tokenizer.*` metadata of one of llama.cpp's
//! vocabulary-only GGUFs (`ggml-vocab-qwen2.gguf`: 151,936 tokens, the last 290 of them
//! `[PADn]` rows beyond the real vocabulary, as Qwen2.5-Coder's files have;
//! `ggml-vocab-deepseek-coder.gguf`) and adds a few small F32 blocks of seeded
//! random weights, so that llama.cpp can run the same file as the oracle
//! (`scripts/synthetic/byo_golden.py`). The random draws are integer arithmetic
//! (xorshift), so the file is the same bytes on every machine ([`checksum`]).

use crate::gguf::{GgmlType, Gguf, GgufWriter, MetadataValue};

/// The shape of a synthetic model.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntheticSpec {
    /// `general.architecture`: `qwen2` or `llama`.
    pub arch: String,
    /// Hidden size.
    pub hidden: u64,
    /// Attention heads.
    pub heads: u64,
    /// Key/value heads.
    pub kv_heads: u64,
    /// Feed-forward size.
    pub ffn: u64,
    /// Transformer blocks.
    pub layers: u64,
    /// Whether the output projection is the token embedding (no `output.weight`).
    pub tied: bool,
    /// Q/K/V biases (qwen2).
    pub bias: bool,
    /// RoPE base.
    pub rope_base: f32,
    /// RMSNorm epsilon.
    pub eps: f32,
    /// Linear RoPE scaling factor (DeepSeek-Coder: 4).
    pub rope_linear: Option<f32>,
    /// Seed of the weights.
    pub seed: u64,
    /// How the matrices are encoded.
    pub weights: SyntheticWeights,
}

/// How a synthetic model's matrices are encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyntheticWeights {
    /// Seeded f32 values (llama.cpp runs the same file as the oracle).
    F32,
    /// Random Q4_K blocks, with Q6_K for the token embedding (the tied output) and for V
    /// and the down projection of every other block, as llama.cpp's Q4_K_M mixes them:
    /// what a user's own quantized model costs to run (its text is noise). Widths must be
    /// whole K-quant super-blocks (256).
    Q4KM,
    /// Random Q4_1 blocks, with Q8_0 for the token embedding (the tied output), as
    /// SmolLM2-135M-Instruct.Q4_1.gguf holds them: the playground's model at its exact
    /// cost where its weights cannot travel (`scripts/gpu-bench.sh`). Widths must be whole
    /// blocks (32).
    Q4_1,
}

impl SyntheticSpec {
    /// Qwen2.5-Coder's traits: Q/K/V biases, theta 1e6, epsilon 1e-6, tied output.
    pub fn qwen2() -> Self {
        Self {
            arch: "qwen2".into(),
            hidden: 64,
            heads: 4,
            kv_heads: 2,
            ffn: 128,
            layers: 2,
            tied: true,
            bias: true,
            rope_base: 1e6,
            eps: 1e-6,
            rope_linear: None,
            seed: 18,
            weights: SyntheticWeights::F32,
        }
    }

    /// Qwen2.5-Coder-1.5B's shape (hidden 1536, 28 blocks, 12 heads over 2 KV heads, FFN
    /// 8960, tied output, Q/K/V biases) in random Q4_K_M blocks: 1.5 B weights, a 986 MB file.
    pub fn qwen25_coder_1_5b_q4_k_m() -> Self {
        Self {
            hidden: 1536,
            heads: 12,
            kv_heads: 2,
            ffn: 8960,
            layers: 28,
            seed: 15,
            weights: SyntheticWeights::Q4KM,
            ..Self::qwen2()
        }
    }

    /// SmolLM2-135M's shape (hidden 576, 30 blocks, 9 heads over 3 KV heads, FFN 1536,
    /// tied output, theta 1e5, epsilon 1e-5) in random Q4_1 blocks: the file
    /// SmolLM2-135M-Instruct.Q4_1.gguf is, less its trained values (~98 MB with
    /// SmolLM2's vocabulary).
    pub fn smollm2_135m_q4_1() -> Self {
        Self {
            arch: "llama".into(),
            hidden: 576,
            heads: 9,
            kv_heads: 3,
            ffn: 1536,
            layers: 30,
            tied: true,
            bias: false,
            rope_base: 1e5,
            eps: 1e-5,
            rope_linear: None,
            seed: 135,
            weights: SyntheticWeights::Q4_1,
        }
    }

    /// DeepSeek-Coder's traits: `llama`, linear RoPE scaling 4, untied output.
    pub fn llama_untied() -> Self {
        Self {
            arch: "llama".into(),
            hidden: 64,
            heads: 4,
            kv_heads: 2,
            ffn: 128,
            layers: 2,
            tied: false,
            bias: false,
            rope_base: 1e5,
            eps: 1e-6,
            rope_linear: Some(4.0),
            seed: 17,
            weights: SyntheticWeights::F32,
        }
    }
}

/// Seeded uniform draws (xorshift64*), scaled to a chosen standard deviation.
struct Draws(u64);

impl Draws {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40; // 24 bits
                                                                  // Uniform on [-1, 1), times sqrt(3): unit variance.
        (x as f32 / (1u64 << 23) as f32 - 1.0) * 1.732_050_8
    }

    fn values(&mut self, n: u64, mean: f32, std: f32) -> Vec<u8> {
        (0..n).flat_map(|_| (mean + std * self.next()).to_le_bytes()).collect()
    }

    /// `n` random bytes.
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n + 8);
        while out.len() < n {
            self.next();
            out.extend_from_slice(&self.0.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes());
        }
        out.truncate(n);
        out
    }
}

/// `rows` x `cols` random blocks of a K-quant type (`Q4_K` or `Q6_K`) whose values have
/// about `std` as standard deviation and zero mean: random quantized bytes and 6- or 8-bit
/// sub-scales, the f16 super-block scales set (`d`, and Q4_K's `dmin` at 7.5 `d`, so
/// that `d sc q - dmin m` centres on zero over random `sc` and `m`).
fn random_k_blocks(r: &mut Draws, ty: GgmlType, rows: u64, cols: u64, std: f32) -> Vec<u8> {
    let bb = ty.block_bytes();
    let mut data = r.bytes((rows * cols) as usize / ty.block_len() * bb);
    // The spread of `sc * q` for random bytes: Q4_K 6-bit sc (mean 31.5) times 4-bit q
    // (sd 4.6); Q6_K signed 8-bit sc (rms 74) times q - 32 (sd 18.5).
    let (at, spread) = if ty == GgmlType::Q6_K { (208, 74.0 * 18.5) } else { (0, 31.5 * 4.6) };
    let d = half::f16::from_f32(std / spread);
    let dmin = half::f16::from_f32(std / spread * 7.5);
    for block in data.chunks_exact_mut(bb) {
        block[at..at + 2].copy_from_slice(&d.to_le_bytes());
        if ty == GgmlType::Q4_K {
            block[2..4].copy_from_slice(&dmin.to_le_bytes());
        }
    }
    data
}

/// `rows` x `cols` random blocks of `Q4_1` or `Q8_0` whose values have about `std` as
/// standard deviation and zero mean: random quantized bytes, the f16 scales set (Q4_1's
/// `d q + m` with `m` = -7.5 `d` centres its 4-bit `q`; Q8_0's `q` is signed).
fn random_32_blocks(r: &mut Draws, ty: GgmlType, rows: u64, cols: u64, std: f32) -> Vec<u8> {
    let bb = ty.block_bytes();
    let mut data = r.bytes((rows * cols) as usize / ty.block_len() * bb);
    // The spread of random `q`: 4-bit 4.6, signed 8-bit 73.9.
    let d = std / if ty == GgmlType::Q8_0 { 73.9 } else { 4.6 };
    for block in data.chunks_exact_mut(bb) {
        block[0..2].copy_from_slice(&half::f16::from_f32(d).to_le_bytes());
        if ty == GgmlType::Q4_1 {
            block[2..4].copy_from_slice(&half::f16::from_f32(-7.5 * d).to_le_bytes());
        }
    }
    data
}

/// Random blocks of `ty` (a K-quant, Q4_1 or Q8_0), see the two above.
fn random_blocks(r: &mut Draws, ty: GgmlType, rows: u64, cols: u64, std: f32) -> Vec<u8> {
    match ty {
        GgmlType::Q4_K | GgmlType::Q6_K => random_k_blocks(r, ty, rows, cols, std),
        _ => random_32_blocks(r, ty, rows, cols, std),
    }
}

/// A vocabulary-only file: `vocab`'s architecture and `tokenizer.*` keys, no tensors (as
/// llama.cpp's `ggml-vocab-*.gguf`): what [`model_from_vocab`] needs, small enough to
/// travel where a model cannot (SmolLM2's: ~2 MB against the model's 98).
pub fn vocab_only(vocab: &Gguf) -> GgufWriter {
    let mut w = GgufWriter::new();
    let keep = |k: &str| k.starts_with("tokenizer.") || k == "general.architecture";
    for (key, value) in vocab.metadata().iter().filter(|(k, _)| keep(k)) {
        w.metadata(key, value.clone());
    }
    w
}

/// A model file with `vocab`'s tokenizer (every `tokenizer.*` key) and random
/// weights of `spec`'s shape, one embedding row per token. A writer, so that tests
/// can take a tensor out or change a key before writing.
pub fn model_from_vocab(vocab: &Gguf, spec: &SyntheticSpec) -> Result<GgufWriter, String> {
    let rows = vocab
        .get_array("tokenizer.ggml.tokens")
        .map_err(|e| format!("the vocabulary file: {e}"))?
        .len() as u64;
    let mut w = GgufWriter::new();
    let arch = spec.arch.as_str();
    let (h, d) = (spec.hidden, spec.hidden / spec.heads);
    let kv = spec.kv_heads * d;
    let quantized = spec.weights != SyntheticWeights::F32;
    // The types of the embedding, of most matrices, and of V and down every other block.
    let (embd_ty, q4, q6) = match spec.weights {
        SyntheticWeights::Q4_1 => (GgmlType::Q8_0, GgmlType::Q4_1, GgmlType::Q4_1),
        _ => (GgmlType::Q6_K, GgmlType::Q4_K, GgmlType::Q6_K),
    };
    let block = q4.block_len() as u64;
    if quantized && !(h.is_multiple_of(block) && spec.ffn.is_multiple_of(block)) {
        return Err(format!(
            "{:?} needs widths of whole {block}-value blocks: hidden {h}, ffn {}",
            spec.weights, spec.ffn
        ));
    }
    let u32v = |v: u64| MetadataValue::U32(v as u32);
    w.metadata("general.architecture", MetadataValue::String(arch.into()))
        .metadata("general.name", MetadataValue::String(format!("synthetic-{arch}")))
        .metadata(&format!("{arch}.context_length"), u32v(2048))
        .metadata(&format!("{arch}.embedding_length"), u32v(h))
        .metadata(&format!("{arch}.block_count"), u32v(spec.layers))
        .metadata(&format!("{arch}.feed_forward_length"), u32v(spec.ffn))
        .metadata(&format!("{arch}.attention.head_count"), u32v(spec.heads))
        .metadata(&format!("{arch}.attention.head_count_kv"), u32v(spec.kv_heads))
        .metadata(&format!("{arch}.rope.dimension_count"), u32v(d))
        .metadata(&format!("{arch}.rope.freq_base"), MetadataValue::F32(spec.rope_base))
        .metadata(&format!("{arch}.attention.layer_norm_rms_epsilon"), MetadataValue::F32(spec.eps))
        .metadata(&format!("{arch}.vocab_size"), u32v(rows))
        // llama.cpp's file types: 0 all F32, 3 mostly Q4_1, 15 mostly Q4_K_M.
        .metadata(
            "general.file_type",
            u32v(match spec.weights {
                SyntheticWeights::F32 => 0,
                SyntheticWeights::Q4_1 => 3,
                SyntheticWeights::Q4KM => 15,
            }),
        );
    if let Some(f) = spec.rope_linear {
        w.metadata(&format!("{arch}.rope.scaling.type"), MetadataValue::String("linear".into()))
            .metadata(&format!("{arch}.rope.scaling.factor"), MetadataValue::F32(f));
    }
    for (key, value) in vocab.metadata().iter().filter(|(k, _)| k.starts_with("tokenizer.")) {
        w.metadata(key, value.clone());
    }

    let mut r = Draws(spec.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let f32t = GgmlType::F32;
    // Small embeddings, so that the blocks, not the input token's own row, decide
    // the logits of a tied model.
    let embedding = match quantized {
        true => (embd_ty, random_blocks(&mut r, embd_ty, rows, h, 0.1)),
        false => (f32t, r.values(h * rows, 0.0, 0.1)),
    };
    w.tensor("token_embd.weight", &[h, rows], embedding.0, embedding.1);
    // A matrix `[out][inp]`: f32, or random blocks of `ty` in a quantized model.
    let mat = |w: &mut GgufWriter,
               r: &mut Draws,
               name: &str,
               (out, inp): (u64, u64),
               ty: GgmlType,
               gain: f32| {
        let std = gain / (inp as f32).sqrt();
        match quantized {
            true => w.tensor(name, &[inp, out], ty, random_blocks(r, ty, out, inp, std)),
            false => w.tensor(name, &[inp, out], f32t, r.values(inp * out, 0.0, std)),
        };
    };
    for i in 0..spec.layers {
        let b = |s: &str| format!("blk.{i}.{s}");
        // Q4_K_M: more bits for V and the down projection of every other block (Q4_1: the same).
        let more = if i % 2 == 0 { q6 } else { q4 };
        w.tensor(&b("attn_norm.weight"), &[h], f32t, r.values(h, 1.0, 0.1));
        mat(&mut w, &mut r, &b("attn_q.weight"), (h, h), q4, 2.0);
        mat(&mut w, &mut r, &b("attn_k.weight"), (kv, h), q4, 2.0);
        mat(&mut w, &mut r, &b("attn_v.weight"), (kv, h), more, 1.0);
        if spec.bias {
            w.tensor(&b("attn_q.bias"), &[h], f32t, r.values(h, 0.0, 0.5));
            w.tensor(&b("attn_k.bias"), &[kv], f32t, r.values(kv, 0.0, 0.5));
            w.tensor(&b("attn_v.bias"), &[kv], f32t, r.values(kv, 0.0, 0.5));
        }
        mat(&mut w, &mut r, &b("attn_output.weight"), (h, h), q4, 1.0);
        w.tensor(&b("ffn_norm.weight"), &[h], f32t, r.values(h, 1.0, 0.1));
        mat(&mut w, &mut r, &b("ffn_gate.weight"), (spec.ffn, h), q4, 1.0);
        mat(&mut w, &mut r, &b("ffn_up.weight"), (spec.ffn, h), q4, 1.0);
        mat(&mut w, &mut r, &b("ffn_down.weight"), (h, spec.ffn), more, 1.0);
    }
    w.tensor("output_norm.weight", &[h], f32t, r.values(h, 1.0, 0.1));
    if !spec.tied {
        mat(&mut w, &mut r, "output.weight", (rows, h), q6, 4.0);
    }
    Ok(w)
}

/// A checksum of a file's bytes that a few lines of numpy repeat
/// (`scripts/synthetic/byo_golden.py`): the bytes zero-padded to 8-byte little-endian
/// words `w_i`, then `sum of w_i * (2i + 1)` modulo 2^64.
pub fn checksum(bytes: &[u8]) -> u64 {
    bytes.chunks(8).enumerate().fold(0u64, |acc, (i, c)| {
        let mut word = [0u8; 8];
        word[..c.len()].copy_from_slice(c);
        acc.wrapping_add(u64::from_le_bytes(word).wrapping_mul(2 * i as u64 + 1))
    })
}
