//! The warm-up race: WebGPU is used only where it is faster than the CPU fallback.
//!
//! An adapter alone says nothing about speed: SwiftShader (WebGPU on the CPU) or a weak
//! integrated GPU can be many times slower than the WebAssembly CPU path, and a small
//! model is launch-bound on any GPU. So when the page did not ask for a backend
//! (`?backend=webgpu` / `?backend=cpu`), the model placed on WebGPU runs a few decode
//! steps against a CPU copy of the same file, and the faster one is kept; the page
//! says which and by how much ([`Race::detail`]).
//!
//! Each side first runs one token untimed (WebGPU compiles its pipelines there, the
//! CPU path fills its caches), then single-token steps are timed, each a forward pass
//! and the greedy choice where the logits are (on WebGPU the device's argmax, 4 bytes
//! read back). The CPU goes first; WebGPU stops early once one of its steps took
//! [`HOPELESS`] times the CPU's, so a slow adapter costs two of its steps, not
//! [`STEPS`] + 1.

#[cfg(target_arch = "wasm32")]
use {
    crate::backend::{Backend, BackendKind},
    crate::model_bridge::Model,
    crate::yield_now::{now_ms, yield_to_paint},
    burn::tensor::Device,
    espalier_model::Gguf,
};

/// Timed single-token steps per side (after the untimed first one).
pub const STEPS: usize = 3;

/// A WebGPU step this many times slower than the CPU's median ends the race.
pub const HOPELESS: f64 = 2.0;

/// Whether the page asked for WebGPU whatever its speed (`?backend=webgpu`).
#[cfg(target_arch = "wasm32")]
pub fn forced_webgpu() -> bool {
    crate::page_params::get("backend").as_deref() == Some("webgpu")
}

/// Milliseconds per decoded token on each side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Race {
    /// Median of the CPU's timed steps.
    pub cpu_ms: f64,
    /// Median of WebGPU's timed steps (fewer than [`STEPS`] when it lost early).
    pub gpu_ms: f64,
}

impl Race {
    /// Whether WebGPU won: only when strictly faster.
    pub fn gpu_wins(&self) -> bool {
        self.gpu_ms < self.cpu_ms
    }

    /// What the page says about the choice, after the adapter's description.
    pub fn detail(&self) -> String {
        format!("warm-up: WebGPU {:.0} ms a token, CPU {:.0} ms a token", self.gpu_ms, self.cpu_ms)
    }
}

/// The median of `times` (the upper one of an even count); 0 for none.
pub fn median(times: &[f64]) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied().unwrap_or(0.0)
}

#[cfg(target_arch = "wasm32")]
/// Runs `ids[0]` untimed, then up to [`STEPS`] single tokens timed; stops after a step
/// slower than `give_up_ms`. Returns the step times in milliseconds.
async fn time_steps(model: &mut Model, ids: &[u32], give_up_ms: f64) -> Result<Vec<f64>, String> {
    model.greedy(0, &ids[..1]).await?;
    let mut times = Vec::with_capacity(STEPS);
    for (pos, &id) in ids.iter().enumerate().skip(1).take(STEPS) {
        yield_to_paint().await;
        let t = now_ms();
        model.greedy(pos, &[id]).await?;
        times.push(now_ms() - t);
        if times[times.len() - 1] > give_up_ms {
            break;
        }
    }
    Ok(times)
}

#[cfg(target_arch = "wasm32")]
/// Times `gpu` (already placed on WebGPU) against a CPU copy of `gguf` over the token
/// `ids` (at least [`STEPS`] + 1 of them) and returns the faster model with its
/// backend. When the CPU copy cannot be made (`cpu_fits` says why not) or a side
/// fails, WebGPU is kept and the detail says why.
pub async fn race(
    gguf: &Gguf,
    gpu: Model,
    backend: Backend,
    ids: &[u32],
    cpu_fits: Result<(), String>,
) -> (Model, Backend) {
    let keep_gpu = |gpu: Model, backend: Backend, why: String| {
        let detail = format!("{}; {why}", backend.detail);
        (gpu, Backend { detail, ..backend })
    };
    if ids.len() <= STEPS {
        return keep_gpu(gpu, backend, format!("no warm-up: {} tokens to time", ids.len()));
    }
    if let Err(why) = cpu_fits {
        return keep_gpu(gpu, backend, format!("no warm-up against the CPU: {why}"));
    }
    #[allow(deprecated)] // ndarray is what the model crate's CPU feature builds on
    let cpu_device = Device::ndarray();
    let mut cpu = match Model::load(gguf, &cpu_device).await {
        Ok(model) => model,
        Err(e) => return keep_gpu(gpu, backend, format!("no warm-up: the CPU copy failed: {e}")),
    };
    let cpu_times = match time_steps(&mut cpu, ids, f64::INFINITY).await {
        Ok(times) => times,
        Err(e) => return keep_gpu(gpu, backend, format!("no warm-up: the CPU failed: {e}")),
    };
    let cpu_ms = median(&cpu_times);
    let mut gpu = gpu;
    let gpu_times = match time_steps(&mut gpu, ids, HOPELESS * cpu_ms).await {
        Ok(times) => times,
        Err(e) => return keep_gpu(gpu, backend, format!("no warm-up: WebGPU failed: {e}")),
    };
    let race = Race { cpu_ms, gpu_ms: median(&gpu_times) };
    crate::yield_now::console_log(&format!(
        "backend race: CPU steps {cpu_times:?} ms, WebGPU steps {gpu_times:?} ms"
    ));
    match race.gpu_wins() {
        true => keep_gpu(gpu, backend, format!("faster than the CPU ({})", race.detail())),
        false => {
            drop(gpu);
            let detail = format!(
                "CPU (ndarray): faster than {} ({})",
                backend.detail.trim_start_matches("WebGPU (burn wgpu) on "),
                race.detail()
            );
            (cpu, Backend { device: cpu_device, kind: BackendKind::Cpu, detail })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_takes_the_middle_and_the_upper_of_two() {
        assert_eq!(median(&[]), 0.0);
        assert_eq!(median(&[5.0]), 5.0);
        assert_eq!(median(&[9.0, 1.0, 4.0]), 4.0);
        assert_eq!(median(&[1.0, 3.0]), 3.0);
    }

    #[test]
    fn webgpu_wins_only_when_strictly_faster() {
        assert!(Race { cpu_ms: 80.0, gpu_ms: 20.0 }.gpu_wins());
        assert!(!Race { cpu_ms: 80.0, gpu_ms: 80.0 }.gpu_wins());
        assert!(!Race { cpu_ms: 80.0, gpu_ms: 15000.0 }.gpu_wins());
        let detail = Race { cpu_ms: 80.4, gpu_ms: 15000.0 }.detail();
        assert_eq!(detail, "warm-up: WebGPU 15000 ms a token, CPU 80 ms a token");
    }
}
