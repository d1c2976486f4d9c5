//! The memory a model will take, computed from the GGUF's tensor infos before any
//! weight is decoded, and checked against what the machine has
//! ([`super::Llama::load_with`] refuses to start a load that cannot fit, naming both
//! figures). The estimate counts the weights in the chosen format (the same storage
//! rules as `weights.rs`: own blocks, Q8_0, f16 or f32, the shared tied output), the
//! RoPE tables and the GGUF bytes already held; activations and the KV cache grow
//! with the sequence (`kv_bytes_per_token`) and are reported apart.

use crate::gguf::{GgmlType, Gguf, TensorInfo};

use super::gpu_blocks::BlockKind;
use super::{LlamaConfig, ModelError, WeightFormat};

/// What loading a model takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryPlan {
    /// The weights as they will be held (host or device memory).
    pub weights: u64,
    /// The GGUF file's bytes, held while loading (the caller's [`Gguf`]).
    pub file: u64,
    /// The RoPE tables (host, and device for the burn path).
    pub rope: u64,
    /// The KV cache's bytes per token of context (f32 keys and values, every layer).
    pub kv_bytes_per_token: u64,
}

impl MemoryPlan {
    /// The plan for loading `gguf` (whose configuration is `c`) in `format`.
    pub fn new(gguf: &Gguf, c: &LlamaConfig, format: WeightFormat, file_len: u64) -> Self {
        let held = |t: &TensorInfo| match format {
            WeightFormat::GpuBlocks => gpu_held_bytes(gguf, t),
            _ => held_bytes(t, format),
        };
        let mut weights: u64 = 0;
        for t in gguf.tensors() {
            weights = weights.saturating_add(match t.name.as_str() {
                // The embedding is held in its own blocks (Q8_0 kept, f32 otherwise when
                // the file has f32), whatever the format.
                "token_embd.weight" => held_bytes(t, WeightFormat::Gguf),
                _ if t.dims.len() == 1 => t.elements().saturating_mul(4),
                _ => held(t),
            });
        }
        // A tied output shares the embedding with the own-block formats, and is a
        // dequantized copy in the other ones.
        if gguf.tensor_info("output.weight").is_err() && format != WeightFormat::Gguf {
            if let Ok(e) = gguf.tensor_info("token_embd.weight") {
                weights = weights.saturating_add(held(e));
            }
        }
        let mul = |xs: &[usize]| xs.iter().fold(1u64, |acc, &x| acc.saturating_mul(x as u64));
        // cos and sin, f32, on the host and (burn path) the device.
        let rope = mul(&[c.context_len, c.head_dim / 2, 4, 2, 2]);
        let kv_bytes_per_token = mul(&[c.layers, c.kv_heads, c.head_dim, 2, 4]);
        Self { weights, file: file_len, rope, kv_bytes_per_token }
    }

    /// Bytes needed to load the model: the weights, the file and the RoPE tables.
    pub fn load_bytes(&self) -> u64 {
        self.weights.saturating_add(self.file).saturating_add(self.rope)
    }

    /// Fails when the load cannot fit in `available` bytes (with room for a context
    /// of 2,048 tokens), naming what it needs and what there is.
    pub fn check(&self, available: Option<u64>) -> Result<(), ModelError> {
        let needed = self.load_bytes().saturating_add(self.kv_bytes_per_token.saturating_mul(2048));
        match available {
            Some(available) if needed > available => {
                Err(ModelError::OutOfMemory { needed, available })
            }
            _ => Ok(()),
        }
    }
}

/// Bytes a matrix tensor takes once loaded in `format`.
fn held_bytes(t: &TensorInfo, format: WeightFormat) -> u64 {
    let n = t.elements();
    let per32 = |bytes: u64| n / 32 * bytes;
    match format {
        WeightFormat::BurnF32 | WeightFormat::F32 => n.saturating_mul(4),
        WeightFormat::F16 => n.saturating_mul(2),
        WeightFormat::Q8_0 => per32(36),
        WeightFormat::Q4_1 if t.ggml_type == GgmlType::Q4_1 => per32(24),
        WeightFormat::Q4_1 => per32(36),
        WeightFormat::GpuBlocks => match BlockKind::of(t.ggml_type) {
            Some(kind) => per32(kind.bytes_per_block() as u64),
            None => n.saturating_mul(4),
        },
        WeightFormat::Gguf => match t.ggml_type {
            GgmlType::F32 => n.saturating_mul(4),
            GgmlType::F16 => n.saturating_mul(2),
            GgmlType::Q8_0 => per32(36),
            GgmlType::Q4_1 => per32(24),
            // Raw blocks and one f32 factor per row.
            _ => t.data_len.saturating_add(t.dims.get(1).copied().unwrap_or(1).saturating_mul(4)),
        },
    }
}

/// Bytes a matrix takes in [`WeightFormat::GpuBlocks`]: its type's layout
/// (`gpu_blocks.rs`), or the layout of the fused matrix it joins (Q/K/V, gate/up) when
/// its partners' types need a wider one (a Q4_K_M file's Q4_K Q and K beside a Q6_K V).
fn gpu_held_bytes(gguf: &Gguf, t: &TensorInfo) -> u64 {
    let fused = |parts: &[&str]| -> Option<Vec<String>> {
        let (block, part) = t.name.strip_suffix(".weight")?.rsplit_once('.')?;
        parts.contains(&part).then(|| parts.iter().map(|p| format!("{block}.{p}.weight")).collect())
    };
    let partners =
        fused(&["attn_q", "attn_k", "attn_v"]).or_else(|| fused(&["ffn_gate", "ffn_up"]));
    let kind = partners
        .into_iter()
        .flatten()
        .filter_map(|name| gguf.tensor_info(&name).ok())
        .fold(BlockKind::of(t.ggml_type), |kind, p| Some(kind?.join(BlockKind::of(p.ggml_type)?)));
    match kind {
        Some(kind) => t.elements() / 32 * kind.bytes_per_block() as u64,
        None => t.elements().saturating_mul(4),
    }
}

/// Memory the operating system can still give this process (`MemAvailable` of
/// `/proc/meminfo` on Linux); `None` where it cannot be read (other systems, wasm).
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gguf::GgufWriter;

    /// A Q4_K_M-like block: Q4_K Q, K, gate, up; Q6_K V and down; an F16 output.
    #[test]
    fn gpu_blocks_plan_counts_each_matrix_in_the_layout_it_is_held_in() {
        let mut w = GgufWriter::new();
        let (cols, rows) = (256u64, 8u64);
        let add = |w: &mut GgufWriter, name: &str, ty: GgmlType| {
            let bytes = (rows * cols) as usize / ty.block_len() * ty.block_bytes();
            w.tensor(name, &[cols, rows], ty, vec![0; bytes]);
        };
        for (part, ty) in [
            ("attn_q", GgmlType::Q4_K),
            ("attn_k", GgmlType::Q4_K),
            ("attn_v", GgmlType::Q6_K),
            ("ffn_gate", GgmlType::Q4_K),
            ("ffn_up", GgmlType::Q4_K),
            ("ffn_down", GgmlType::Q6_K),
        ] {
            add(&mut w, &format!("blk.0.{part}.weight"), ty);
        }
        add(&mut w, "output.weight", GgmlType::F16);
        let gguf = Gguf::from_bytes(w.to_bytes()).expect("parses");
        let held = |name: &str| gpu_held_bytes(&gguf, gguf.tensor_info(name).unwrap());
        let per32 = rows * cols / 32;
        // Q and K join V's layout (Q8_16, 48 bytes per 32); gate and up stay Q4_1's (24).
        for (name, bytes) in [
            ("blk.0.attn_q.weight", 48),
            ("blk.0.attn_k.weight", 48),
            ("blk.0.attn_v.weight", 48),
            ("blk.0.ffn_gate.weight", 24),
            ("blk.0.ffn_up.weight", 24),
            ("blk.0.ffn_down.weight", 48),
        ] {
            assert_eq!(held(name), per32 * bytes, "{name}");
        }
        assert_eq!(held("output.weight"), rows * cols * 4, "F16 goes up as f32");
    }
}
