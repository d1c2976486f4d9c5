//! espalier-kernels: the CPU kernels of Espalier's model, over ggml's quantized blocks
//! as a GGUF file stores them. espalier-model's CPU backends run their linear layers
//! ([`HostMatrix`]) and attention ([`attend`], [`HostKv`], [`RopeTable`]) on them; the
//! GGUF reader there decodes tensors with [`GgmlType`] and the block layouts of
//! [`formats`].
//!
//! Why hand-written: no crate does ggml's block formats (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1,
//! Q4_K, Q5_K, Q6_K) with run-time ISA dispatch for x86-64 AVX2 and wasm simd128.
//! `gemm` / `matrixmultiply` (behind burn's CPU backends) multiply f32 / f16 matrices
//! only and pack the weight matrix on every call; burn's quantized matmul dequantizes
//! the whole matrix first, and its quantization is symmetric, so Q4_1's `d * q + m`
//! cannot be one; the GGUF crates with ggml's quantized dot products pull in a
//! framework (candle) or C code (llama.cpp). `host_kernels.rs` and `host_matrix.rs`
//! give the measurements.
//!
//! Each kernel exists as a portable version (the reference, and what CPUs without AVX2
//! run), an x86-64 AVX2 + FMA version chosen at run time ([`Isa::detect`]) and, for
//! the playground's types, a wasm simd128 version. The SIMD versions are `unsafe`
//! (raw-pointer loads, `get_unchecked`): [`kernel_check::run`] and the unit tests
//! compare every one with its portable twin and with exact sums, and the kernel check
//! (`scripts/test.sh`, profile `kernel-check` in the workspace's Cargo.toml) runs
//! those tests with debug assertions and overflow checks, so that std's checks of
//! `get_unchecked` / `from_raw_parts` preconditions run inside the kernels. This crate
//! has no burn, which keeps that second build short; under node the same check runs
//! in wasm (`bench/model-wasm-kernels`).
//!
//! Module map: [`formats`] (block layouts and decoders, the block sizes [`QK`] and
//! [`QK_K`]; imports nothing of the crate), [`GgmlType`], [`Isa`]; the kernels with f32
//! activations ([`host_kernels`]: f32, f16, Q8_0, Q4_1; [`block_kernels`]: the other
//! block types), the 8-bit activations ([`q8_activations`]) and the integer kernels on
//! them ([`int_dot`], with `int_dot_avx2.rs`), `wasm_simd.rs` (simd128); on top of them
//! [`HostMatrix`] (a weight matrix and its products) and [`host_attention`].

#[cfg(target_arch = "x86_64")]
mod avx2;
pub mod block_kernels;
pub mod formats;
mod ggml_type;
pub mod host_attention;
pub mod host_kernels;
mod host_matrix;
pub mod int_dot;
#[cfg(target_arch = "x86_64")]
mod int_dot_avx2;
mod isa;
pub mod kernel_check;
mod q4_1_rows;
mod q4_k_rows;
mod q8_0_rows;
pub mod q8_activations;
mod test_data;
mod tile_width;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm_simd;

pub use formats::{QK, QK_K};
pub use ggml_type::{BlockDecoder, GgmlType};
pub use host_attention::{attend, Heads, HostKv, RopeTable};
pub use host_matrix::{HostFormat, HostMatrix};
pub use isa::Isa;
pub use q4_1_rows::Q4_1Rows;
pub use q4_k_rows::Q4KRows;
pub use q8_0_rows::Q8_0Rows;
pub use q8_activations::ActivationFormat;
