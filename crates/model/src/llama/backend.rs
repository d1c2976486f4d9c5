//! Which burn backend runs the model, chosen at run time at the edge (a CLI flag, the
//! browser's capabilities) and compiled in by Cargo features: `ndarray` (CPU, also in
//! wasm), `wgpu` (WebGPU in the browser, Vulkan/Metal natively), `cuda` (NVIDIA).

use burn::tensor::Device;

use super::ModelError;

/// Compute tasks cubecl-wgpu records into one command buffer before it submits it
/// (`tasks_max`; cubecl's default is 32). A decode step in this crate's kernels is
/// 9 launches a block plus the final norm, the head and the argmax (SmolLM2's 30 blocks:
/// 273; Qwen2.5-1.5B's 28: 255), so at 32 one token was ~11 submits; at this value it is
/// one, plus the read-back's (issue 33). cubecl still submits before every upload and
/// read-back, which end a step anyway.
pub const WGPU_TASKS_MAX: usize = 1024;

/// A backend the caller may ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BackendKind {
    /// burn-ndarray on the CPU (feature `ndarray`).
    Ndarray,
    /// burn-flex on the CPU (feature `flex`): burn 0.22's successor of ndarray.
    Flex,
    /// burn-wgpu: WebGPU in the browser, Vulkan / Metal natively (feature `wgpu`).
    Wgpu,
    /// burn-cuda on an NVIDIA GPU (feature `cuda`).
    Cuda,
}

impl BackendKind {
    /// All backends, in the order a CLI lists them.
    pub const ALL: [BackendKind; 4] =
        [BackendKind::Ndarray, BackendKind::Flex, BackendKind::Wgpu, BackendKind::Cuda];

    /// The backend's name as a CLI flag spells it.
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Ndarray => "ndarray",
            BackendKind::Flex => "flex",
            BackendKind::Wgpu => "wgpu",
            BackendKind::Cuda => "cuda",
        }
    }

    /// Whether the backend's Cargo feature was compiled in.
    pub fn is_compiled(self) -> bool {
        match self {
            BackendKind::Ndarray => cfg!(feature = "ndarray"),
            BackendKind::Flex => cfg!(feature = "flex"),
            BackendKind::Wgpu => cfg!(feature = "wgpu"),
            BackendKind::Cuda => cfg!(feature = "cuda"),
        }
    }

    fn not_compiled(self) -> ModelError {
        ModelError::Backend {
            backend: self.name(),
            reason: format!("not compiled in; rebuild with `--features {}`", self.name()),
        }
    }

    /// Creates the device natively. wgpu initialises its adapter here and reports a
    /// missing adapter as an error; the others as [`BackendKind::device_without_adapter`].
    #[cfg(not(target_family = "wasm"))]
    pub fn device(self) -> Result<Device, ModelError> {
        #[cfg(feature = "wgpu")]
        if self == BackendKind::Wgpu {
            return Device::wgpu_options().tasks_max(WGPU_TASKS_MAX).init().map_err(wgpu_error);
        }
        self.device_without_adapter()
    }

    /// Creates the device asynchronously: the only way for WebGPU in the browser, where
    /// a missing adapter comes back as an error.
    pub async fn device_async(self) -> Result<Device, ModelError> {
        #[cfg(feature = "wgpu")]
        if self == BackendKind::Wgpu {
            return Device::wgpu_options()
                .tasks_max(WGPU_TASKS_MAX)
                .init_async()
                .await
                .map_err(wgpu_error);
        }
        self.device_without_adapter()
    }

    /// The devices with no adapter to set up (sync and async alike): the CPU backends,
    /// and natively CUDA, probed first (driver library, driver version, device 0:
    /// `cuda_probe`), since burn-cuda panics on first use without them.
    fn device_without_adapter(self) -> Result<Device, ModelError> {
        match self {
            #[cfg(feature = "ndarray")]
            #[allow(deprecated)]
            // burn 0.22 deprecates ndarray for flex; ndarray is what we measured
            BackendKind::Ndarray => Ok(Device::ndarray()),
            #[cfg(feature = "flex")]
            BackendKind::Flex => Ok(Device::flex()),
            #[cfg(all(feature = "cuda", not(target_family = "wasm")))]
            BackendKind::Cuda => {
                super::cuda_probe::probe()
                    .map_err(|reason| ModelError::Backend { backend: "cuda", reason })?;
                Ok(Device::cuda(0usize))
            }
            // wgpu, compiled in, is set up by the callers before.
            #[allow(unreachable_patterns)]
            other => Err(other.not_compiled()),
        }
    }
}

/// wgpu's missing or failing adapter as the model's error.
#[cfg(feature = "wgpu")]
fn wgpu_error(e: impl std::fmt::Display) -> ModelError {
    ModelError::Backend { backend: "wgpu", reason: e.to_string() }
}

/// The CPU device for unit tests that compare with burn on the CPU: ndarray, else flex.
/// burn's default device is a GPU's when `wgpu` or `cuda` is compiled in, which would
/// make those tests need a GPU (and stop being bit-for-bit CPU comparisons).
#[cfg(all(test, not(target_family = "wasm")))]
pub(crate) fn cpu_test_device() -> Device {
    [BackendKind::Ndarray, BackendKind::Flex]
        .into_iter()
        .find_map(|b| b.device().ok())
        .expect("the model's unit tests need the ndarray or flex feature")
}

impl std::str::FromStr for BackendKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BackendKind::ALL.into_iter().find(|b| b.name() == s).ok_or_else(|| {
            format!("unknown backend {s:?}; expected one of ndarray, flex, wgpu, cuda")
        })
    }
}

impl std::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
