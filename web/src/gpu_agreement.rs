//! How closely the model on WebGPU agrees with the CPU path, measured in the page
//! (asked for by the page's `?check=cpu` URL parameter; the browser test sets it):
//! the same GGUF is loaded a second time on the CPU (ndarray, the CPU path's own
//! format), a fixed chat prompt is run through both, then a few greedy steps (each
//! side fed the CPU's argmax), and every step's logits are compared. Reported: the
//! largest |logit difference| against the CPU with f32 activations (the exact twin of
//! the GPU arithmetic) and with the CPU path's default 8-bit activations, and how many
//! steps picked the same greedy token. The CPU twin is dropped afterwards.

use burn::tensor::Device;
use espalier_model::{ActivationFormat, Gguf, Llama, Tokenizer, WeightFormat};

/// Greedy steps compared after the prompt.
const STEPS: usize = 4;

/// The prompt both sides run (chat format of the default model).
const PROMPT: &str = "Write a Python function add(a, b) that returns the sum.";

/// What the comparison found.
pub struct Agreement {
    /// Steps compared (the prompt's last position, then the greedy steps).
    pub steps: usize,
    /// Largest |GPU - CPU| logit over every step, CPU with f32 activations.
    pub max_diff_f32: f32,
    /// The same against the CPU path's default (8-bit) activations.
    pub max_diff_int8: f32,
    /// Steps whose argmax was the same on the GPU and on the CPU (f32 activations).
    pub same_argmax: usize,
}

impl Agreement {
    /// One line for the page (the browser test reads it).
    pub fn line(&self) -> String {
        format!(
            "CPU agreement over {} steps: max |Δlogit| {:.3e} (CPU f32 activations), {:.3e} (CPU int8 activations), greedy token equal {}/{}",
            self.steps, self.max_diff_f32, self.max_diff_int8, self.same_argmax, self.steps
        )
    }
}

/// Whether the page asked for the comparison (`?check=cpu`).
pub fn requested() -> bool {
    crate::page_params::get("check").as_deref() == Some("cpu")
}

fn argmax(xs: &[f32]) -> u32 {
    xs.iter()
        .enumerate()
        .fold((0, f32::NEG_INFINITY), |best, (i, &x)| if x > best.1 { (i, x) } else { best })
        .0 as u32
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// Runs the comparison of `gpu` (loaded from `gguf`) against a CPU twin.
pub async fn measure(gguf: &Gguf, gpu: &Llama) -> Result<Agreement, String> {
    let tokenizer = Tokenizer::from_gguf(gguf).map_err(|e| e.to_string())?;
    let prompt =
        tokenizer.encode_prompt(&Tokenizer::chat_prompt("", PROMPT)).map_err(|e| e.to_string())?;
    #[allow(deprecated)] // ndarray is the CPU path's backend
    let cpu_device = Device::ndarray();
    let mut cpu = Llama::load_with(gguf, &cpu_device, WeightFormat::default_for(&cpu_device))
        .map_err(|e| e.to_string())?;
    let (mut gpu_cache, mut cpu_cache) = (gpu.new_cache(), cpu.new_cache());
    let mut agreement =
        Agreement { steps: 0, max_diff_f32: 0.0, max_diff_int8: 0.0, same_argmax: 0 };
    let mut input = prompt;
    for _ in 0..=STEPS {
        let keep = cpu_cache.len();
        let g = gpu.forward_async(&input, &mut gpu_cache).await.map_err(|e| e.to_string())?;
        cpu.set_activation_format(ActivationFormat::Int8);
        let c8 = cpu.forward_async(&input, &mut cpu_cache).await.map_err(|e| e.to_string())?;
        cpu_cache.truncate(keep);
        cpu.set_activation_format(ActivationFormat::F32);
        let c = cpu.forward_async(&input, &mut cpu_cache).await.map_err(|e| e.to_string())?;
        agreement.steps += 1;
        agreement.max_diff_f32 = agreement.max_diff_f32.max(max_diff(&g, &c));
        agreement.max_diff_int8 = agreement.max_diff_int8.max(max_diff(&g, &c8));
        let next = argmax(&c);
        agreement.same_argmax += usize::from(argmax(&g) == next);
        input = vec![next];
    }
    Ok(agreement)
}
