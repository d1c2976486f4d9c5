//! Block decoders of the ggml quantized types beyond the original four (F32, F16,
//! Q8_0, Q4_1 live in `ggml_type.rs`): one file per type, each decoding one block
//! exactly as ggml's `dequantize_row_*` does (`ggml-quants.c`), in the same order of
//! float operations. [`super::GgmlType::dequantize`] and the CPU kernels
//! (`llama/block_matrix.rs`) call them; `tests/quant_reference.rs` checks them against
//! vectors written by gguf-py's `gguf.quants` (a separate implementation, numpy).

pub(crate) mod q4_0;
pub(crate) mod q4_k;
pub(crate) mod q5_0;
pub(crate) mod q5_1;
pub(crate) mod q5_k;
pub(crate) mod q6_k;

use half::f16;

/// Elements per K-quant super-block (`QK_K` in ggml).
pub const QK_K: usize = 256;

/// The f16 at `b[i..i + 2]` as f32.
#[inline]
pub(crate) fn f16_at(b: &[u8], i: usize) -> f32 {
    f16::from_le_bytes([b[i], b[i + 1]]).to_f32()
}
