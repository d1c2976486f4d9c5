//! espalier-model's CPU kernels alone for wasm32 (see Cargo.toml). The kernel files are
//! the model crate's own, compiled here by path (the same source, not a copy), so that
//! checking and timing them in wasm does not need a wasm build of burn:
//! `host_kernels.rs` (portable + AVX2), `wasm_simd.rs` (simd128), `host_attention.rs`
//! (attention, which the check covers), the integer kernels (`int_dot*.rs`,
//! `q8_activations.rs`, with the GGUF block decoders they read) and `kernel_check.rs`
//! (the self-check).
//!
//! ```text
//! cargo build --release --target wasm32-unknown-unknown \
//!     --manifest-path bench/model-wasm-kernels/Cargo.toml   # from the repository root
//! node bench/model-wasm-kernels/run.mjs [ROUNDS]
//! ```

#![allow(dead_code)]

#[path = "../../../crates/model/src/llama/host_attention.rs"]
mod host_attention;
#[path = "../../../crates/model/src/llama/host_kernels.rs"]
mod host_kernels;
#[path = "../../../crates/model/src/llama/int_dot.rs"]
mod int_dot;
#[cfg(target_arch = "x86_64")]
#[path = "../../../crates/model/src/llama/int_dot_avx2.rs"]
mod int_dot_avx2;
#[path = "../../../crates/model/src/llama/q8_activations.rs"]
mod q8_activations;

// The GGUF block types and decoders the integer kernels read (`gguf/ggml_type.rs`,
// `gguf/formats/`), without the rest of the reader, under the paths the model crate
// gives them (`crate::gguf::...`; `ggml_type.rs` reads `super::formats`).
#[path = "../../../crates/model/src/gguf/formats/mod.rs"]
mod formats;
#[path = "../../../crates/model/src/gguf/ggml_type.rs"]
mod ggml_type;
mod gguf {
    pub(crate) use super::formats;
    pub(crate) use super::ggml_type::GgmlType;
}
#[path = "../../../crates/model/src/llama/kernel_check.rs"]
pub mod kernel_check;
pub mod token;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[path = "../../../crates/model/src/llama/wasm_simd.rs"]
mod wasm_simd;

/// The kernels' self-check: failures (0 when every case agrees).
#[no_mangle]
pub extern "C" fn check_failures() -> u32 {
    kernel_check::run().failures.len() as u32
}

/// Comparisons the self-check makes.
#[no_mangle]
pub extern "C" fn check_cases() -> u32 {
    kernel_check::run().cases as u32
}

/// The self-check's largest error relative to `1 + |exact|`.
#[no_mangle]
pub extern "C" fn check_max_error() -> f64 {
    kernel_check::run().max_error
}

/// 1 when an implementation other than the portable one is compiled in (simd128).
#[no_mangle]
pub extern "C" fn has_simd() -> u32 {
    (kernel_check::run().isa != "portable") as u32
}
