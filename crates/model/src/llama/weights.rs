//! Turns GGUF tensors into the tensors the forward pass uses, in the layout it wants.
//!
//! Weight format ([`WeightFormat`]): every matrix is dequantized to f32 from the GGUF,
//! then either kept as a transposed `[in, out]` f32 burn tensor (burn's matmul, every
//! backend) or handed to a [`HostMatrix`] in f32, f16 or Q8_0 (the CPU kernels). burn
//! 0.22's quantized tensors are symmetric only (Q4_1's affine `d * q + m` does not fit)
//! and its quantized matmul dequantizes then multiplies in float, so the compact
//! formats live outside burn. The token embedding is a [`HostMatrix`] in its GGUF
//! encoding when that is Q8_0 (28 MB instead of 113 MB as f32), dequantized row by row
//! at lookup; with [`WeightFormat::Q8_0`] or [`WeightFormat::Q4_1`] the tied output
//! projection is that same matrix, exactly llama.cpp's weights. With
//! [`WeightFormat::Q4_1`] the blocks' Q4_1 matrices are not dequantized at all: their
//! GGUF blocks are kept (rows reordered, Q's scale folded into each block's `d` and
//! `m`), so every weight is exactly the file's.
//!
//! Three load-time rewrites save work at every step:
//! - Q, K and V are one fused `[hidden, q + 2 kv]` matrix; gate and up one
//!   `[hidden, 2 ffn]` matrix (fewer, larger matmuls).
//! - Q and K rows are permuted within each head from GGUF's interleaved RoPE pairs
//!   `(2i, 2i + 1)` to halves `(i, i + d/2)`: the dot products q·k are unchanged (both
//!   sides are permuted alike) and RoPE becomes two contiguous slices.
//! - Q is pre-scaled by `1 / sqrt(head_dim)` (RoPE is linear, so this commutes).
//!
//! `qwen2` files already hold Q and K in RoPE's half order (llama.cpp's "NEOX" RoPE),
//! so their rows stay in place; their Q/K/V biases are reordered and scaled like the
//! rows. With [`WeightFormat::Gguf`] every matrix keeps the file's own encoding (any
//! supported type; a fused matrix of parts in different types is a stack of them).
//! With [`WeightFormat::GpuBlocks`] the same rows (reordered, Q's scale as a per-row
//! factor) go to the GPU as the file's blocks (`gpu_blocks.rs`: every quantized type), the
//! tied output projection as the embedding's blocks.

use burn::tensor::{Device, Tensor, TensorData};

use crate::gguf::{GgmlType, Gguf, GgufError, TensorInfo, QK};

use super::config::Architecture;

use super::linear::Linear;
use super::{LlamaConfig, WeightFormat};
use espalier_kernels::{HostFormat, HostMatrix};

/// Row-major `[out][in]` f32 data of a GGUF matrix, checked against its expected shape.
pub(crate) fn matrix_rows(
    gguf: &Gguf,
    name: &str,
    rows_out: usize,
    cols_in: usize,
) -> Result<Vec<f32>, GgufError> {
    gguf.tensor_f32_shaped(name, &[cols_in as u64, rows_out as u64])
}

/// For each destination row, the source row that moves a head's rows from interleaved
/// RoPE pairs to halves (the identity when the file already has halves: `qwen2`).
fn head_row_order(
    heads: usize,
    head_dim: usize,
    arch: Architecture,
) -> impl Iterator<Item = usize> {
    let half = head_dim / 2;
    let interleaved = arch.rope_interleaved();
    (0..heads).flat_map(move |h| {
        (0..head_dim).map(move |j| {
            h * head_dim
                + match (interleaved, j < half) {
                    (false, _) => j,
                    (true, true) => 2 * j,
                    (true, false) => 2 * (j - half) + 1,
                }
        })
    })
}

/// Permutes the rows of each head from interleaved pairs to halves (as
/// [`head_row_order`] says for `arch`).
pub(crate) fn deinterleave_heads(
    rows: &[f32],
    heads: usize,
    head_dim: usize,
    cols: usize,
    arch: Architecture,
) -> Vec<f32> {
    let mut out = Vec::with_capacity(rows.len());
    for src in head_row_order(heads, head_dim, arch) {
        out.extend_from_slice(&rows[src * cols..(src + 1) * cols]);
    }
    out
}

/// Rows taken with no factor.
fn plain<'a>(rows: &[&'a [u8]]) -> Vec<(&'a [u8], f32)> {
    rows.iter().map(|&r| (r, 1.0)).collect()
}

/// The rows of a GGUF Q4_1 matrix `[out][in]` as slices of block bytes, checked against
/// the expected shape; `None` when the tensor is stored in another type.
fn q4_1_rows<'g>(
    gguf: &'g Gguf,
    name: &str,
    out: usize,
    inp: usize,
) -> Result<Option<Vec<&'g [u8]>>, GgufError> {
    let (info, bytes) = matrix_bytes(gguf, name, out, inp)?;
    if info.ggml_type != GgmlType::Q4_1 {
        return Ok(None);
    }
    // The reader checked that `bytes` holds exactly `out * inp / 32` blocks, and Q4_1
    // rows are whole blocks (the type's byte length of `inp` elements exists).
    let row_bytes = inp / QK * GgmlType::Q4_1.block_bytes();
    Ok(Some(bytes.chunks_exact(row_bytes).collect()))
}

/// The rows of a GGUF matrix `[out][in]` of any supported type as (type, block bytes),
/// checked against the expected shape.
fn typed_rows<'g>(
    gguf: &'g Gguf,
    name: &str,
    out: usize,
    inp: usize,
) -> Result<Vec<(GgmlType, &'g [u8])>, GgufError> {
    let (info, bytes) = matrix_bytes(gguf, name, out, inp)?;
    // The reader checked that rows are whole blocks and `bytes` is exactly their size.
    let row_bytes = info.ggml_type.byte_len(inp as u64).unwrap_or(0) as usize;
    if row_bytes == 0 {
        return Err(unexpected_shape(info, out, inp));
    }
    Ok(bytes.chunks_exact(row_bytes).map(|r| (info.ggml_type, r)).collect())
}

/// The tensor `name` and its bytes, checked to be a matrix `[out][in]`.
fn matrix_bytes<'g>(
    gguf: &'g Gguf,
    name: &str,
    out: usize,
    inp: usize,
) -> Result<(&'g TensorInfo, &'g [u8]), GgufError> {
    let (info, bytes) = gguf.tensor_bytes(name)?;
    if info.dims != [inp as u64, out as u64] {
        return Err(unexpected_shape(info, out, inp));
    }
    Ok((info, bytes))
}

fn unexpected_shape(info: &TensorInfo, out: usize, inp: usize) -> GgufError {
    GgufError::UnexpectedShape {
        tensor: info.name.clone(),
        expected: vec![inp as u64, out as u64],
        found: info.dims.clone(),
    }
}

/// Rows with a factor.
fn with_factor<'a>(
    rows: impl IntoIterator<Item = (GgmlType, &'a [u8])>,
    factor: f32,
) -> Vec<(GgmlType, &'a [u8], f32)> {
    rows.into_iter().map(|(t, r)| (t, r, factor)).collect()
}

/// A matrix `[out][in]` kept in the file's own encoding.
pub(crate) fn own_matrix(
    gguf: &Gguf,
    name: &str,
    out: usize,
    inp: usize,
) -> Result<HostMatrix, GgufError> {
    Ok(HostMatrix::from_gguf_rows(&with_factor(typed_rows(gguf, name, out, inp)?, 1.0), inp))
}

/// A 1-D f32 vector (norm weights) of length `len`.
pub(crate) fn vector(
    gguf: &Gguf,
    name: &str,
    len: usize,
    device: &Device,
) -> Result<Tensor<2>, GgufError> {
    let data = gguf.tensor_f32_shaped(name, &[len as u64])?;
    Ok(Tensor::from_data(TensorData::new(data, [1, len]), device))
}

/// The token embedding `[vocab][hidden]` on the host: the GGUF's own blocks when it is
/// quantized or f16 (a Q8_0 embedding is 28 MB instead of 113 MB as f32), f32 otherwise.
pub(crate) fn embedding(gguf: &Gguf, config: &LlamaConfig) -> Result<HostMatrix, GgufError> {
    let name = "token_embd.weight";
    let (info, bytes) = gguf.tensor_bytes(name)?;
    let want = [config.hidden as u64, config.vocab_size as u64];
    if info.dims != want {
        return Err(GgufError::UnexpectedShape {
            tensor: info.name.clone(),
            expected: want.to_vec(),
            found: info.dims.clone(),
        });
    }
    if info.ggml_type == GgmlType::Q8_0 {
        // Shape checked above, so the byte length is exactly vocab * hidden / 32 blocks.
        return Ok(HostMatrix::from_q8_0_blocks(bytes, config.vocab_size, config.hidden));
    }
    if info.ggml_type != GgmlType::F32 {
        return own_matrix(gguf, name, config.vocab_size, config.hidden);
    }
    let rows = matrix_rows(gguf, name, config.vocab_size, config.hidden)?;
    Ok(HostMatrix::from_rows(&rows, config.vocab_size, config.hidden, HostFormat::F32))
}

/// The output projection: `output.weight` when the file has one, else the tied
/// embedding (shared, not copied, when both are Q8_0 on the host).
pub(crate) fn output(
    gguf: &Gguf,
    config: &LlamaConfig,
    embedding: &HostMatrix,
    format: WeightFormat,
    device: &Device,
) -> Result<Linear, GgufError> {
    let (vocab, hidden) = (config.vocab_size, config.hidden);
    if format == WeightFormat::GpuBlocks {
        // The file's own blocks on the GPU: `output.weight`, or the tied embedding's.
        let name = if gguf.tensor_info("output.weight").is_ok() {
            "output.weight"
        } else {
            "token_embd.weight"
        };
        return Ok(Linear::from_gguf_rows_on_gpu(
            &with_factor(typed_rows(gguf, name, vocab, hidden)?, 1.0),
            hidden,
            device,
        ));
    }
    if gguf.tensor_info("output.weight").is_ok() {
        if format == WeightFormat::Gguf {
            return Ok(Linear::Host(own_matrix(gguf, "output.weight", vocab, hidden)?));
        }
        let rows = matrix_rows(gguf, "output.weight", vocab, hidden)?;
        return Ok(Linear::from_rows(&rows, vocab, hidden, format, device));
    }
    // The block-quantized formats share the embedding's own blocks (Q8_0 in this
    // model); f32 / f16 / burn-f32 get the dequantized values in their own format.
    let shares = match format.host() {
        Some(HostFormat::Gguf) => true,
        Some(HostFormat::Q8_0 | HostFormat::Q4_1) => {
            matches!(embedding.format(), HostFormat::Q8_0 | HostFormat::Q4_1)
        }
        Some(host) => host == embedding.format(),
        None => false,
    };
    if shares {
        return Ok(Linear::Host(embedding.clone()));
    }
    let mut rows = vec![0f32; vocab * hidden];
    for (r, row) in rows.chunks_exact_mut(hidden).enumerate() {
        embedding.row_f32(r, row);
    }
    Ok(Linear::from_rows(&rows, vocab, hidden, format, device))
}

/// One transformer block's weights.
#[derive(Clone, Debug)]
pub(crate) struct BlockWeights {
    pub attn_norm: Tensor<2>,
    /// `hidden -> (heads + 2 kv_heads) * head_dim`: Q (scaled, de-interleaved), K, V.
    pub qkv: Linear,
    /// `heads * head_dim -> hidden`.
    pub attn_out: Linear,
    pub ffn_norm: Tensor<2>,
    /// `hidden -> 2 ffn`: gate then up.
    pub gate_up: Linear,
    /// `ffn -> hidden`.
    pub down: Linear,
    /// The biases of the fused QKV projection (`qwen2`), in its row order and scale.
    pub qkv_bias: Option<QkvBias>,
}

/// The fused QKV projection's bias, on the host (host attention) and as a `[1, width]`
/// tensor (burn path).
#[derive(Clone, Debug)]
pub(crate) struct QkvBias {
    pub host: Vec<f32>,
    pub tensor: Tensor<2>,
}

impl QkvBias {
    /// The biases `blk.i.attn_{q,k,v}.bias` of an architecture that has them, reordered
    /// and scaled like the rows; `None` for one that has none.
    fn load(
        gguf: &Gguf,
        c: &LlamaConfig,
        i: usize,
        device: &Device,
    ) -> Result<Option<Self>, GgufError> {
        if !c.arch.qkv_bias() {
            return Ok(None);
        }
        let n = |s: &str| format!("blk.{i}.{s}.bias");
        let (d, scale) = (c.head_dim, 1.0 / (c.head_dim as f32).sqrt());
        let q = gguf.tensor_f32_shaped(&n("attn_q"), &[(c.heads * d) as u64])?;
        let k = gguf.tensor_f32_shaped(&n("attn_k"), &[(c.kv_heads * d) as u64])?;
        let v = gguf.tensor_f32_shaped(&n("attn_v"), &[(c.kv_heads * d) as u64])?;
        let mut host: Vec<f32> = head_row_order(c.heads, d, c.arch).map(|r| q[r] * scale).collect();
        host.extend(head_row_order(c.kv_heads, d, c.arch).map(|r| k[r]));
        host.extend(v);
        let tensor = Tensor::from_data(TensorData::new(host.clone(), [1, host.len()]), device);
        Ok(Some(Self { host, tensor }))
    }
}

impl BlockWeights {
    pub(crate) fn load(
        gguf: &Gguf,
        c: &LlamaConfig,
        i: usize,
        format: WeightFormat,
        device: &Device,
    ) -> Result<Self, GgufError> {
        // The file's own encoding: rows reordered and Q's scale applied per row as the
        // f32 path does to the values (a host matrix of GGUF rows), or, for GpuBlocks,
        // its quantized matrices kept as the file's blocks on the GPU (float ones as f32
        // burn tensors), Q's scale folded into each row's factor the same way.
        if format == WeightFormat::Gguf {
            return Self::load_rows(gguf, c, i, device, |rows, inp| {
                Linear::Host(HostMatrix::from_gguf_rows(rows, inp))
            });
        }
        if format == WeightFormat::GpuBlocks {
            return Self::load_rows(gguf, c, i, device, |rows, inp| {
                Linear::from_gguf_rows_on_gpu(rows, inp, device)
            });
        }
        if format == WeightFormat::Q4_1 {
            if let Some(block) = Self::load_q4_1(gguf, c, i, device)? {
                return Ok(block);
            }
        }
        let n = |s: &str| format!("blk.{i}.{s}.weight");
        let (h, d) = (c.hidden, c.head_dim);
        let q_out = c.heads * d;
        let kv_out = c.kv_heads * d;
        let scale = 1.0 / (d as f32).sqrt();
        let mut q =
            deinterleave_heads(&matrix_rows(gguf, &n("attn_q"), q_out, h)?, c.heads, d, h, c.arch);
        q.iter_mut().for_each(|x| *x *= scale);
        let k = deinterleave_heads(
            &matrix_rows(gguf, &n("attn_k"), kv_out, h)?,
            c.kv_heads,
            d,
            h,
            c.arch,
        );
        let v = matrix_rows(gguf, &n("attn_v"), kv_out, h)?;
        let qkv_rows: Vec<f32> = [q, k, v].concat();
        let mut gate_up = matrix_rows(gguf, &n("ffn_gate"), c.ffn, h)?;
        gate_up.extend(matrix_rows(gguf, &n("ffn_up"), c.ffn, h)?);
        Ok(Self {
            attn_norm: vector(gguf, &n("attn_norm"), h, device)?,
            qkv: Linear::from_rows(&qkv_rows, q_out + 2 * kv_out, h, format, device),
            attn_out: Linear::from_rows(
                &matrix_rows(gguf, &n("attn_output"), h, q_out)?,
                h,
                q_out,
                format,
                device,
            ),
            ffn_norm: vector(gguf, &n("ffn_norm"), h, device)?,
            gate_up: Linear::from_rows(&gate_up, 2 * c.ffn, h, format, device),
            down: Linear::from_rows(
                &matrix_rows(gguf, &n("ffn_down"), h, c.ffn)?,
                h,
                c.ffn,
                format,
                device,
            ),
            qkv_bias: QkvBias::load(gguf, c, i, device)?,
        })
    }

    /// The block from its matrices' GGUF rows (type, bytes, factor), each turned into a
    /// layer by `layer(rows, in)`: Q, K (de-interleaved, Q scaled) and V fused, gate and
    /// up fused, the attention output and down as they are.
    fn load_rows(
        gguf: &Gguf,
        c: &LlamaConfig,
        i: usize,
        device: &Device,
        layer: impl Fn(&[(GgmlType, &[u8], f32)], usize) -> Linear,
    ) -> Result<Self, GgufError> {
        let n = |s: &str| format!("blk.{i}.{s}.weight");
        let (h, d) = (c.hidden, c.head_dim);
        let (q_out, kv_out) = (c.heads * d, c.kv_heads * d);
        let scale = 1.0 / (d as f32).sqrt();
        let q = typed_rows(gguf, &n("attn_q"), q_out, h)?;
        let k = typed_rows(gguf, &n("attn_k"), kv_out, h)?;
        let v = typed_rows(gguf, &n("attn_v"), kv_out, h)?;
        let mut qkv = with_factor(head_row_order(c.heads, d, c.arch).map(|r| q[r]), scale);
        qkv.extend(with_factor(head_row_order(c.kv_heads, d, c.arch).map(|r| k[r]), 1.0));
        qkv.extend(with_factor(v, 1.0));
        let mut gate_up = with_factor(typed_rows(gguf, &n("ffn_gate"), c.ffn, h)?, 1.0);
        gate_up.extend(with_factor(typed_rows(gguf, &n("ffn_up"), c.ffn, h)?, 1.0));
        let attn_out = with_factor(typed_rows(gguf, &n("attn_output"), h, q_out)?, 1.0);
        let down = with_factor(typed_rows(gguf, &n("ffn_down"), h, c.ffn)?, 1.0);
        Ok(Self {
            attn_norm: vector(gguf, &n("attn_norm"), h, device)?,
            qkv: layer(&qkv, h),
            attn_out: layer(&attn_out, q_out),
            ffn_norm: vector(gguf, &n("ffn_norm"), h, device)?,
            gate_up: layer(&gate_up, h),
            down: layer(&down, c.ffn),
            qkv_bias: QkvBias::load(gguf, c, i, device)?,
        })
    }

    /// The block with its matrices kept as the GGUF's Q4_1 blocks (rows reordered and
    /// Q's scale folded into `d` and `m` exactly as the f32 path does to the values);
    /// `None` when one of them is not Q4_1.
    fn load_q4_1(
        gguf: &Gguf,
        c: &LlamaConfig,
        i: usize,
        device: &Device,
    ) -> Result<Option<Self>, GgufError> {
        let n = |s: &str| format!("blk.{i}.{s}.weight");
        let (h, d) = (c.hidden, c.head_dim);
        let (q_out, kv_out) = (c.heads * d, c.kv_heads * d);
        let scale = 1.0 / (d as f32).sqrt();
        let (Some(q), Some(k), Some(v), Some(o), Some(gate), Some(up), Some(down)) = (
            q4_1_rows(gguf, &n("attn_q"), q_out, h)?,
            q4_1_rows(gguf, &n("attn_k"), kv_out, h)?,
            q4_1_rows(gguf, &n("attn_v"), kv_out, h)?,
            q4_1_rows(gguf, &n("attn_output"), h, q_out)?,
            q4_1_rows(gguf, &n("ffn_gate"), c.ffn, h)?,
            q4_1_rows(gguf, &n("ffn_up"), c.ffn, h)?,
            q4_1_rows(gguf, &n("ffn_down"), h, c.ffn)?,
        ) else {
            return Ok(None);
        };
        let mut qkv: Vec<(&[u8], f32)> =
            head_row_order(c.heads, d, c.arch).map(|r| (q[r], scale)).collect();
        qkv.extend(head_row_order(c.kv_heads, d, c.arch).map(|r| (k[r], 1.0)));
        qkv.extend(v.iter().map(|&r| (r, 1.0)));
        let gate_up = [plain(&gate), plain(&up)].concat();
        Ok(Some(Self {
            attn_norm: vector(gguf, &n("attn_norm"), h, device)?,
            qkv: Linear::Host(HostMatrix::from_q4_1_rows(&qkv, h)),
            attn_out: Linear::Host(HostMatrix::from_q4_1_rows(&plain(&o), q_out)),
            ffn_norm: vector(gguf, &n("ffn_norm"), h, device)?,
            gate_up: Linear::Host(HostMatrix::from_q4_1_rows(&gate_up, h)),
            down: Linear::Host(HostMatrix::from_q4_1_rows(&plain(&down), c.ffn)),
            qkv_bias: QkvBias::load(gguf, c, i, device)?,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::linear::transpose;
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
        assert_eq!(
            deinterleave_heads(&rows, 1, 4, 1, Architecture::Llama),
            vec![0.0, 1.0, 10.0, 11.0]
        );
        assert_eq!(deinterleave_heads(&rows, 1, 4, 1, Architecture::Qwen2), rows.to_vec());
    }
}
