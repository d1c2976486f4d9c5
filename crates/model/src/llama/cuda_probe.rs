//! Whether the CUDA backend can run here, asked before burn-cuda is touched.
//!
//! burn-cuda (cubecl-cuda) unwraps every driver call when it starts its device server:
//! without the driver library (`libcuda.so`, which cudarc loads at run time), without a
//! device, or with a driver older than the API the bindings were built for, the first
//! tensor operation panics. This probe makes the same calls through the same cudarc and
//! turns each failure into a sentence, so `BackendKind::Cuda.device()` returns an error
//! the CLI can print (or fall back from) instead.

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;

/// The oldest driver API the build's bindings target: `.cargo/config.toml` pins cudarc to
/// CUDA 13.0 (`CUDARC_CUDA_VERSION=13000`), which needs driver 580 or newer.
const MIN_DRIVER: i32 = 13000;

/// The device the CUDA backend will use (ordinal 0), as the driver describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaDeviceInfo {
    /// The device's name (`cuDeviceGetName`).
    pub name: String,
    /// Compute capability, major and minor (9.0 for H100).
    pub compute_capability: (i32, i32),
    /// The driver's CUDA version as `cuDriverGetVersion` reports it (13.0 is 13000).
    pub driver_version: i32,
}

/// Checks the driver library, the driver version and device 0; `Err` says what is missing.
pub fn probe() -> Result<CudaDeviceInfo, String> {
    // cudarc panics on a symbol the driver lacks; a probe must answer, not abort.
    std::panic::catch_unwind(probe_driver).unwrap_or_else(|_| {
        Err("the CUDA driver library lacks a function the bindings need (driver too old?)".into())
    })
}

/// The error's code (`CUDA_ERROR_NO_DEVICE`). Not its `Display`: that asks the driver
/// for the text, one more call into a library that may be the problem.
fn code(e: DriverError) -> String {
    format!("{:?}", e.0)
}

fn probe_driver() -> Result<CudaDeviceInfo, String> {
    // SAFETY: only tries to open the library by its usual names.
    if !unsafe { sys::is_culib_present() } {
        return Err(
            "no CUDA driver: libcuda.so was not found (install the NVIDIA driver, 580 or newer)"
                .into(),
        );
    }
    result::init().map_err(|e| format!("the CUDA driver did not initialise: {}", code(e)))?;
    let driver_version = driver_version()?;
    if driver_version < MIN_DRIVER {
        return Err(format!(
            "the CUDA driver supports CUDA {}, this build needs {} or newer (driver 580+)",
            cuda_version_text(driver_version),
            cuda_version_text(MIN_DRIVER)
        ));
    }
    let count = result::device::get_count()
        .map_err(|e| format!("cannot count CUDA devices: {}", code(e)))?;
    if count == 0 {
        return Err("the CUDA driver reports no device".into());
    }
    let device =
        result::device::get(0).map_err(|e| format!("cannot open CUDA device 0: {}", code(e)))?;
    let name = result::device::get_name(device)
        .map_err(|e| format!("cannot name CUDA device 0: {}", code(e)))?;
    let attribute = |a| {
        // SAFETY: `device` came from `cuDeviceGet` above.
        unsafe { result::device::get_attribute(device, a) }
            .map_err(|e| format!("cannot query CUDA device 0: {}", code(e)))
    };
    let major = attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
    let minor = attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
    Ok(CudaDeviceInfo { name, compute_capability: (major, minor), driver_version })
}

fn driver_version() -> Result<i32, String> {
    let mut version = 0;
    // SAFETY: writes one integer into `version`, which outlives the call.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(|e| format!("cannot read the CUDA driver version: {}", code(e)))?;
    Ok(version)
}

/// 13000 -> "13.0".
fn cuda_version_text(v: i32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

impl std::fmt::Display for CudaDeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (major, minor) = self.compute_capability;
        write!(
            f,
            "{} (sm_{major}{minor}), driver CUDA {}",
            self.name,
            cuda_version_text(self.driver_version)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_read_as_cuda_spells_them() {
        assert_eq!(cuda_version_text(13000), "13.0");
        assert_eq!(cuda_version_text(12080), "12.8");
    }
}
