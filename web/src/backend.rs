//! Chooses where the model runs: burn's wgpu backend on WebGPU when the browser
//! offers an adapter, burn's ndarray backend on the CPU otherwise. The page shows the
//! choice and why, and a small matmul checks the device computes correctly before
//! the model is placed on it. Whether WebGPU is also faster than the CPU is decided
//! once the model is placed (`backend_race`).

use burn::tensor::{Device, Tensor, TensorData};
use js_sys::Reflect;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

/// Which kind of device was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// burn wgpu on the browser's WebGPU adapter.
    WebGpu,
    /// burn ndarray on the CPU (WebAssembly, one thread).
    Cpu,
}

impl BackendKind {
    /// The short name the page (and the browser test) reads: `webgpu` or `cpu`.
    pub fn key(self) -> &'static str {
        match self {
            BackendKind::WebGpu => "webgpu",
            BackendKind::Cpu => "cpu",
        }
    }
}

/// The chosen device and a human-readable account of the choice.
#[derive(Clone, Debug)]
pub struct Backend {
    /// The burn device the model's tensors live on.
    pub device: Device,
    /// WebGPU or CPU.
    pub kind: BackendKind,
    /// What the page says about it (adapter, or why WebGPU was not used).
    pub detail: String,
}

fn get(value: &JsValue, key: &str) -> Option<JsValue> {
    Reflect::get(value, &JsValue::from_str(key)).ok().filter(|v| !v.is_undefined() && !v.is_null())
}

/// Asks the browser for a WebGPU adapter and describes it, or says why there is none.
async fn webgpu_adapter() -> Result<String, String> {
    let gpu = Some(crate::host::navigator_gpu())
        .filter(|g| !g.is_null() && !g.is_undefined())
        .ok_or("this browser offers no WebGPU (navigator.gpu is missing)")?;
    let request = get(&gpu, "requestAdapter").ok_or("navigator.gpu.requestAdapter is missing")?;
    let request: js_sys::Function = request.into();
    let promise: js_sys::Promise =
        request.call0(&gpu).map_err(|e| format!("requestAdapter failed: {e:?}"))?.into();
    let adapter =
        JsFuture::from(promise).await.map_err(|e| format!("requestAdapter failed: {e:?}"))?;
    if adapter.is_null() || adapter.is_undefined() {
        return Err("WebGPU offers no adapter".into());
    }
    let info = get(&adapter, "info");
    let field = |k: &str| {
        info.as_ref().and_then(|i| get(i, k)).and_then(|v| v.as_string()).filter(|s| !s.is_empty())
    };
    let parts: Vec<String> =
        ["vendor", "architecture", "description"].into_iter().filter_map(field).collect();
    Ok(if parts.is_empty() { "adapter".to_owned() } else { parts.join(" / ") })
}

/// Multiplies two small matrices on `device` and compares with the same product in
/// plain Rust; returns the largest absolute difference.
pub async fn matmul_check(device: &Device) -> Result<f32, String> {
    let (m, k, n) = (8usize, 16usize, 4usize);
    let a: Vec<f32> = (0..m * k).map(|i| ((i * 7 % 13) as f32 - 6.0) / 4.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| ((i * 5 % 11) as f32 - 5.0) / 2.0).collect();
    let mut want = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            want[i * n + j] = (0..k).map(|x| a[i * k + x] * b[x * n + j]).sum();
        }
    }
    let ta = Tensor::<2>::from_data(TensorData::new(a, [m, k]), device);
    let tb = Tensor::<2>::from_data(TensorData::new(b, [k, n]), device);
    let got = ta
        .matmul(tb)
        .into_data_async()
        .await
        .map_err(|e| format!("reading the result back failed: {e:?}"))?
        .try_to_vec::<f32>()
        .map_err(|e| format!("the result has an unexpected type: {e:?}"))?;
    if got.len() != want.len() {
        return Err(format!("expected {} values, got {}", want.len(), got.len()));
    }
    Ok(got.iter().zip(&want).map(|(g, w)| (g - w).abs()).fold(0.0, f32::max))
}

/// burn's wgpu runtime on the browser's adapter, recording a whole decode step into one
/// command buffer ([`espalier_model::WGPU_TASKS_MAX`]: one submit a token, not ~11).
#[cfg(feature = "webgpu")]
async fn init_wgpu() -> Result<Device, String> {
    espalier_model::BackendKind::Wgpu.device_async().await.map_err(|e| e.to_string())
}

#[cfg(not(feature = "webgpu"))]
async fn init_wgpu() -> Result<Device, String> {
    Err("built without the webgpu feature".into())
}

/// Picks the device: WebGPU when an adapter exists and burn's wgpu runtime comes up
/// on it and computes a matmul correctly; the CPU otherwise. `force_cpu` skips WebGPU
/// (the `?backend=cpu` URL parameter).
pub async fn choose(force_cpu: bool) -> Backend {
    #[allow(deprecated)] // ndarray is what the model crate's CPU feature builds on
    let cpu =
        |why: String| Backend { device: Device::ndarray(), kind: BackendKind::Cpu, detail: why };
    if force_cpu {
        return cpu("CPU (ndarray): WebGPU skipped by ?backend=cpu".into());
    }
    if !cfg!(feature = "webgpu") {
        return cpu(
            "CPU (ndarray): this build has no WebGPU backend (built without the webgpu feature)"
                .into(),
        );
    }
    let adapter = match webgpu_adapter().await {
        Ok(adapter) => adapter,
        Err(why) => return cpu(format!("CPU (ndarray): {why}")),
    };
    let device = match init_wgpu().await {
        Ok(device) => device,
        Err(e) => {
            return cpu(format!("CPU (ndarray): burn wgpu could not start on {adapter}: {e}"))
        }
    };
    match matmul_check(&device).await {
        Ok(err) if err < 1e-3 => Backend {
            device,
            kind: BackendKind::WebGpu,
            detail: format!("WebGPU (burn wgpu) on {adapter}"),
        },
        Ok(err) => cpu(format!("CPU (ndarray): WebGPU matmul check off by {err}")),
        Err(e) => cpu(format!("CPU (ndarray): WebGPU matmul check failed: {e}")),
    }
}
