//! Which implementation of the CPU kernels runs: the portable one, AVX2 (x86-64,
//! detected at run time) or simd128 (wasm, fixed at compile time). Every kernel entry
//! point takes an [`Isa`] and dispatches on it; holding one is the proof that the CPU
//! runs the instructions its kernels use (it is only made by [`Isa::detect`],
//! [`Isa::best`] or as [`Isa::Portable`]).

/// Which implementation the kernels use on this CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// Portable Rust (autovectorised for the compilation target).
    Portable,
    /// x86-64 with AVX2, FMA and F16C, detected at run time.
    #[cfg(target_arch = "x86_64")]
    #[non_exhaustive] // made only by `best` (after detection): other crates cannot forge it
    Avx2,
    /// wasm32 built with `simd128` (known at compile time: wasm has no detection).
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    #[non_exhaustive]
    Simd128,
}

impl Isa {
    /// The best implementation this CPU runs.
    pub fn detect() -> Isa {
        // The `portable-kernels` feature (benchmarks only) keeps the portable versions.
        if cfg!(feature = "portable-kernels") {
            return Isa::Portable;
        }
        Self::best()
    }

    /// The fastest implementation compiled in and supported by this CPU, whatever the
    /// `portable-kernels` feature says (the kernel check compares it to the portable one).
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    pub fn best() -> Isa {
        Isa::Simd128
    }

    /// See the wasm `best` above.
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    pub fn best() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
                && std::arch::is_x86_feature_detected!("f16c")
            {
                return Isa::Avx2;
            }
        }
        Isa::Portable
    }

    /// The implementation's name (reports, benchmarks).
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => "avx2",
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Isa::Simd128 => "simd128",
        }
    }
}
