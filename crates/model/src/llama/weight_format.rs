//! How the linear layers' weights are held and multiplied, chosen per backend at load
//! time ([`super::Llama::load_with`]); [`WeightFormat::default_for`] is the measured
//! choice (figures in results/model/README.md).

use burn::tensor::Device;

use espalier_kernels::HostFormat;

/// Storage and kernel of the linear layers (Q/K/V, attention output, FFN, the output
/// projection).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WeightFormat {
    /// f32 burn tensors multiplied by burn's matmul: runs on every backend; the GPU
    /// default, and the reference the CPU kernels are tested against.
    BurnF32,
    /// f32 in host memory, the CPU kernels (CPU backends only).
    F32,
    /// f16 in host memory, the CPU kernels (CPU backends only).
    F16,
    /// ggml Q8_0 blocks in host memory, the CPU kernels (CPU backends only);
    /// Q4_1 matrices are re-quantized (~0.6% relative RMS error per weight). The tied
    /// output projection is the GGUF's own Q8_0 embedding.
    Q8_0,
    /// The GGUF's Q4_1 blocks kept as they are (exact, the smallest), this crate's CPU
    /// kernel (CPU backends only): the CPU default. Matrices stored in another type are
    /// held as Q8_0; the tied output projection is the GGUF's own Q8_0 embedding.
    Q4_1,
    /// Every matrix kept in the GGUF's own encoding, whatever its type (F32, F16, Q8_0,
    /// Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K; mixed files such as Q4_K_M included),
    /// this crate's CPU kernels (CPU backends only): the CPU default. Identical to
    /// `q4_1` on a Q4_1 file.
    Gguf,
    /// The GGUF's Q4_1 and Q8_0 blocks kept on the GPU, multiplied by this crate's
    /// kernel that dequantizes inside the product (`gpu_quantized.rs`; cubecl devices
    /// only, features `wgpu` and `cuda`): the wgpu and cuda default. Matrices in other
    /// types are f32 burn tensors as with `burn-f32`.
    GpuBlocks,
}

impl WeightFormat {
    /// Every format, in the order a CLI lists them.
    pub const ALL: [WeightFormat; 7] = [
        WeightFormat::BurnF32,
        WeightFormat::F32,
        WeightFormat::F16,
        WeightFormat::Q8_0,
        WeightFormat::Q4_1,
        WeightFormat::Gguf,
        WeightFormat::GpuBlocks,
    ];

    /// The name a CLI flag spells.
    pub fn name(self) -> &'static str {
        match self {
            WeightFormat::BurnF32 => "burn-f32",
            WeightFormat::F32 => "f32",
            WeightFormat::F16 => "f16",
            WeightFormat::Q8_0 => "q8_0",
            WeightFormat::Q4_1 => "q4_1",
            WeightFormat::Gguf => "gguf",
            WeightFormat::GpuBlocks => "gpu-blocks",
        }
    }

    /// The best format for `device`: the GGUF's own blocks (Q4_1 for SmolLM2) with the
    /// CPU kernels on the CPU backends (ndarray, flex), the same blocks with the GPU
    /// kernel on wgpu and cuda (a fifth of f32's GPU memory), burn f32 tensors
    /// elsewhere. Figures in results/model/README.md and results/cuda/README.md.
    pub fn default_for(device: &Device) -> WeightFormat {
        if is_host_device(device) {
            WeightFormat::Gguf
        } else if is_gpu_block_device(device) {
            WeightFormat::GpuBlocks
        } else {
            WeightFormat::BurnF32
        }
    }

    /// The host storage format, `None` for the burn path.
    pub(crate) fn host(self) -> Option<HostFormat> {
        match self {
            WeightFormat::BurnF32 | WeightFormat::GpuBlocks => None,
            WeightFormat::F32 => Some(HostFormat::F32),
            WeightFormat::F16 => Some(HostFormat::F16),
            WeightFormat::Q8_0 => Some(HostFormat::Q8_0),
            WeightFormat::Q4_1 => Some(HostFormat::Q4_1),
            WeightFormat::Gguf => Some(HostFormat::Gguf),
        }
    }
}

/// Whether tensors on `device` live in host memory (the CPU backends), where the host
/// kernels can read them without a transfer.
pub(crate) fn is_host_device(device: &Device) -> bool {
    #[cfg(feature = "ndarray")]
    #[allow(deprecated)] // the ndarray backend is still offered (the web app uses it)
    if *device == Device::ndarray() {
        return true;
    }
    #[cfg(feature = "flex")]
    if *device == Device::flex() {
        return true;
    }
    let _ = device;
    false
}

/// Whether [`WeightFormat::GpuBlocks`] runs on `device`: a wgpu or CUDA device, with
/// the `wgpu` or `cuda` feature compiled in.
pub(crate) fn is_gpu_block_device(device: &Device) -> bool {
    #[cfg(any(feature = "wgpu", feature = "cuda"))]
    return super::gpu_quantized::is_block_kernel_device(device);
    #[cfg(not(any(feature = "wgpu", feature = "cuda")))]
    {
        let _ = device;
        false
    }
}

impl std::str::FromStr for WeightFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        WeightFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| format!("unknown weight format {s:?}; expected one of burn-f32, f32, f16, q8_0, q4_1, gguf, gpu-blocks"))
    }
}

impl std::fmt::Display for WeightFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
