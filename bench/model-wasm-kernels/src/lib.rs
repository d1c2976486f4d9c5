//! espalier-kernels (crates/kernels) for wasm32 (see Cargo.toml): the kernels' self-check
//! and the timing of one token's products, exported to node without wasm-bindgen, so
//! that checking and timing the kernels in wasm does not need a wasm build of burn.
//!
//! ```text
//! cargo build --release --target wasm32-unknown-unknown \
//!     --manifest-path bench/model-wasm-kernels/Cargo.toml   # from the repository root
//! node bench/model-wasm-kernels/run.mjs [ROUNDS]
//! ```

pub use espalier_kernels::kernel_check;
pub mod token;

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
