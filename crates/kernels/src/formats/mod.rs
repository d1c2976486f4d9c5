//! Block decoders of the ggml quantized types beyond the original four (F32, F16,
//! Q8_0, Q4_1 live in `ggml_type.rs`): one file per type, each decoding one block
//! exactly as ggml's `dequantize_row_*` does (`ggml-quants.c`), in the same order of
//! float operations. [`crate::GgmlType::dequantize`] and the CPU kernels
//! (`block_kernels.rs`, `int_dot.rs`) call them; espalier-model's
//! `crates/model/tests/it/quant_reference.rs` checks them against vectors written by gguf-py's
//! `gguf.quants` (a separate implementation, numpy).
//!
//! The block sizes every kernel shares live here too ([`QK`], [`QK_K`]): this module
//! imports nothing of the crate, so the kernel modules that read them import no one
//! another for a constant.

pub mod q4_0;
pub mod q4_k;
pub mod q5_0;
pub mod q5_1;
pub mod q5_k;
pub mod q6_k;

use half::f16;

/// Elements per block of the 32-value types (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1; `QK8_0`,
/// `QK4_1`, ... in ggml), and per block of the kernels' 8-bit activations.
pub const QK: usize = 32;

/// Elements per K-quant super-block (`QK_K` in ggml).
pub const QK_K: usize = 256;

/// The f16 at `b[i..i + 2]` as f32.
#[inline]
pub fn f16_at(b: &[u8], i: usize) -> f32 {
    f16::from_le_bytes([b[i], b[i + 1]]).to_f32()
}
