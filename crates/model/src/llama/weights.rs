//! Turns GGUF tensors into the tensors the forward pass uses, in the layout it wants.
//!
//! Weight format: every matrix is dequantized to f32 and stored transposed, `[in, out]`
//! contiguous, so `x.matmul(w)` runs burn's plain f32 matmul with no per-step
//! transposition or dequantization. burn 0.22's quantized tensors are symmetric only
//! (Q4_1's affine `d * q + m` does not fit) and its quantized matmul dequantizes then
//! multiplies in float anyway, so f32 is both exact with respect to the GGUF and the
//! fastest path on the CPU (measurements in the crate README section of the report).
//!
//! Three load-time rewrites save work at every step:
//! - Q, K and V are one fused `[hidden, q + 2 kv]` matrix; gate and up one
//!   `[hidden, 2 ffn]` matrix (fewer, larger matmuls).
//! - Q and K rows are permuted within each head from GGUF's interleaved RoPE pairs
//!   `(2i, 2i + 1)` to halves `(i, i + d/2)`: the dot products q·k are unchanged (both
//!   sides are permuted alike) and RoPE becomes two contiguous slices.
//! - Q is pre-scaled by `1 / sqrt(head_dim)` (RoPE is linear, so this commutes).

use burn::tensor::{Device, Tensor, TensorData};

use crate::gguf::{GgmlType, Gguf, GgufError};

use super::LlamaConfig;

/// Row-major `[out][in]` f32 data of a GGUF matrix, checked against its expected shape.
pub(crate) fn matrix_rows(gguf: &Gguf, name: &str, rows_out: usize, cols_in: usize) -> Result<Vec<f32>, GgufError> {
    gguf.tensor_f32_shaped(name, &[cols_in as u64, rows_out as u64])
}

/// Permutes the rows of each head from interleaved pairs to halves.
pub(crate) fn deinterleave_heads(rows: &[f32], heads: usize, head_dim: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0f32; rows.len()];
    let half = head_dim / 2;
    for h in 0..heads {
        for j in 0..head_dim {
            let src = h * head_dim + if j < half { 2 * j } else { 2 * (j - half) + 1 };
            let dst = h * head_dim + j;
            out[dst * cols..(dst + 1) * cols].copy_from_slice(&rows[src * cols..(src + 1) * cols]);
        }
    }
    out
}

/// Transposes row-major `[rows][cols]` into `[cols][rows]`.
pub(crate) fn transpose(data: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0f32; data.len()];
    // Blocked so both sides stay in cache (a naive loop took ~3x longer on the 49152 x
    // 576 embedding).
    const B: usize = 32;
    for r0 in (0..rows).step_by(B) {
        for c0 in (0..cols).step_by(B) {
            for r in r0..(r0 + B).min(rows) {
                for c in c0..(c0 + B).min(cols) {
                    out[c * rows + r] = data[r * cols + c];
                }
            }
        }
    }
    out
}

/// A `[in, out]` f32 weight on `device` from `[out][in]` rows.
pub(crate) fn weight_in_out(rows: &[f32], out: usize, inp: usize, device: &Device) -> Tensor<2> {
    Tensor::from_data(TensorData::new(transpose(rows, out, inp), [inp, out]), device)
}

/// A 1-D f32 vector (norm weights) of length `len`.
pub(crate) fn vector(gguf: &Gguf, name: &str, len: usize, device: &Device) -> Result<Tensor<2>, GgufError> {
    let data = gguf.tensor_f32_shaped(name, &[len as u64])?;
    Ok(Tensor::from_data(TensorData::new(data, [1, len]), device))
}

/// The token embedding kept in its GGUF encoding on the host: a lookup dequantizes
/// only the rows it needs (28 MB as Q8_0 instead of 113 MB as f32).
#[derive(Clone, Debug)]
pub(crate) struct EmbeddingTable {
    ggml_type: GgmlType,
    row_bytes: usize,
    hidden: usize,
    bytes: Vec<u8>,
}

impl EmbeddingTable {
    pub(crate) fn load(gguf: &Gguf, config: &LlamaConfig) -> Result<Self, GgufError> {
        let (info, bytes) = gguf.tensor_bytes("token_embd.weight")?;
        let want = [config.hidden as u64, config.vocab_size as u64];
        if info.dims != want {
            return Err(GgufError::UnexpectedShape { tensor: info.name.clone(), expected: want.to_vec(), found: info.dims.clone() });
        }
        let row_bytes = (bytes.len()) / config.vocab_size;
        Ok(Self { ggml_type: info.ggml_type, row_bytes, hidden: config.hidden, bytes: bytes.to_vec() })
    }

    /// Appends the f32 embedding of `id` (checked by the caller) to `out`.
    pub(crate) fn push_row(&self, id: u32, out: &mut Vec<f32>) {
        let start = id as usize * self.row_bytes;
        let at = out.len();
        out.resize(at + self.hidden, 0.0);
        self.ggml_type.dequantize(&self.bytes[start..start + self.row_bytes], &mut out[at..]);
    }

    /// All rows as f32 `[vocab][hidden]` (the tied output projection).
    pub(crate) fn to_f32(&self) -> Vec<f32> {
        let mut out = vec![0f32; self.bytes.len() / self.row_bytes * self.hidden];
        for (o, b) in out.chunks_exact_mut(self.hidden).zip(self.bytes.chunks_exact(self.row_bytes)) {
            self.ggml_type.dequantize(b, o);
        }
        out
    }
}

/// One transformer block's weights.
#[derive(Clone, Debug)]
pub(crate) struct BlockWeights {
    pub attn_norm: Tensor<2>,
    /// `[hidden, (heads + 2 kv_heads) * head_dim]`: Q (scaled, de-interleaved), K, V.
    pub qkv: Tensor<2>,
    /// `[heads * head_dim, hidden]`.
    pub attn_out: Tensor<2>,
    pub ffn_norm: Tensor<2>,
    /// `[hidden, 2 ffn]`: gate then up.
    pub gate_up: Tensor<2>,
    /// `[ffn, hidden]`.
    pub down: Tensor<2>,
}

impl BlockWeights {
    pub(crate) fn load(gguf: &Gguf, c: &LlamaConfig, i: usize, device: &Device) -> Result<Self, GgufError> {
        let n = |s: &str| format!("blk.{i}.{s}.weight");
        let (h, d) = (c.hidden, c.head_dim);
        let q_out = c.heads * d;
        let kv_out = c.kv_heads * d;
        let scale = 1.0 / (d as f32).sqrt();
        let mut q = deinterleave_heads(&matrix_rows(gguf, &n("attn_q"), q_out, h)?, c.heads, d, h);
        q.iter_mut().for_each(|x| *x *= scale);
        let k = deinterleave_heads(&matrix_rows(gguf, &n("attn_k"), kv_out, h)?, c.kv_heads, d, h);
        let v = matrix_rows(gguf, &n("attn_v"), kv_out, h)?;
        let qkv_rows: Vec<f32> = [q, k, v].concat();
        let mut gate_up = matrix_rows(gguf, &n("ffn_gate"), c.ffn, h)?;
        gate_up.extend(matrix_rows(gguf, &n("ffn_up"), c.ffn, h)?);
        Ok(Self {
            attn_norm: vector(gguf, &n("attn_norm"), h, device)?,
            qkv: weight_in_out(&qkv_rows, q_out + 2 * kv_out, h, device),
            attn_out: weight_in_out(&matrix_rows(gguf, &n("attn_output"), h, q_out)?, h, q_out, device),
            ffn_norm: vector(gguf, &n("ffn_norm"), h, device)?,
            gate_up: weight_in_out(&gate_up, 2 * c.ffn, h, device),
            down: weight_in_out(&matrix_rows(gguf, &n("ffn_down"), h, c.ffn)?, h, c.ffn, device),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_round_trips() {
        let data: Vec<f32> = (0..35 * 70).map(|x| x as f32).collect();
        let t = transpose(&data, 35, 70);
        assert_eq!(t[1], data[70]);
        assert_eq!(transpose(&t, 70, 35), data);
    }

    #[test]
    fn deinterleave_moves_pairs_to_halves() {
        // One head of dim 4, one column: rows [a0, b0, a1, b1] -> [a0, a1, b0, b1].
        let rows = [0.0, 10.0, 1.0, 11.0];
        assert_eq!(deinterleave_heads(&rows, 1, 4, 1), vec![0.0, 1.0, 10.0, 11.0]);
    }
}
