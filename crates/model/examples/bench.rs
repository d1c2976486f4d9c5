//! Prefill and decode speed of the model (a benchmark, not a test).
//!
//! ```text
//! RAYON_NUM_THREADS=2 cargo run --release -p espalier-model --example bench -- \
//!     [--backend ndarray|flex|wgpu|cuda] [--weights burn-f32|f32|f16|q8_0|q4_1|gguf|gpu-blocks] \
//!     [--prompt-tokens 64] [--decode 32] [--rounds 3] [--model PATH] [--activations int8|f32]
//! ```
//! Prints one JSON object per round on stdout: `prefill_tokens`, `prefill_tps`,
//! `decode_tokens`, `decode_tps` (greedy decoding, logits read back every step),
//! `weights` (the format; default: the backend's, [`WeightFormat::default_for`]),
//! `activations` (how the CPU kernels take a decode step's activations: `int8`, the
//! default, rounded to 8 bits for integer dot products, or `f32`),
//! `weight_mb` and `rss_mb` (the process's resident memory after loading, Linux only),
//! `prefill_cpu_tps` and `decode_cpu_tps` (the same rates over the process's on-CPU
//! time, all threads: comparable on a loaded machine, see `process_cpu_s`).
//! `scripts/bench-llamacpp.py` runs it beside llama.cpp and reports ratios.

use std::time::Instant;

use espalier_model::{
    greedy, ActivationFormat, BackendKind, Gguf, Llama, Tokenizer, WeightFormat, DEFAULT_MODEL_PATH,
};

/// Source text the prompt is cut from (repeated when more tokens are asked for).
const TEXT: &str = "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n\n\nclass Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, item):\n        self.items.append(item)\n\n    def pop(self):\n        return self.items.pop()\n";

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> Result<T, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(default),
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{name} needs a valid value")),
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let backend: BackendKind = arg(&args, "--backend", BackendKind::Ndarray)?;
    let prompt_tokens: usize = arg(&args, "--prompt-tokens", 64)?;
    let decode: usize = arg(&args, "--decode", 32)?;
    let rounds: usize = arg(&args, "--rounds", 3)?;
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    let model_path: String = arg(&args, "--model", format!("{root}{DEFAULT_MODEL_PATH}"))?;

    let t0 = Instant::now();
    let gguf = Gguf::open(&model_path)?;
    let tok = Tokenizer::from_gguf(&gguf)?;
    let device = backend.device()?;
    let weights: WeightFormat = arg(&args, "--weights", WeightFormat::default_for(&device))?;
    let mut model = Llama::load_with(&gguf, &device, weights)?;
    let activations = match arg(&args, "--activations", "int8".to_string())?.as_str() {
        "int8" => ActivationFormat::Int8,
        "f32" => ActivationFormat::F32,
        other => return Err(format!("--activations {other}: expected int8 or f32").into()),
    };
    model.set_activation_format(activations);
    let activations = if activations == ActivationFormat::Int8 { "int8" } else { "f32" };
    drop(gguf);
    let weight_mb = model.weight_bytes() as f64 / 1e6;
    let rss_mb = rss_mb();
    eprintln!(
        "loaded {model_path} on {backend} ({weights}) in {:.2} s",
        t0.elapsed().as_secs_f64()
    );

    let mut ids = Vec::new();
    while ids.len() < prompt_tokens {
        ids.extend(tok.encode(TEXT)?);
    }
    ids.truncate(prompt_tokens.max(1));

    // Warm-up: first calls allocate and (on GPUs) compile kernels.
    let mut cache = model.new_cache();
    let logits = model.forward(&ids[..ids.len().min(8)], &mut cache)?;
    model.forward(&[argmax(&logits)?], &mut cache)?;

    for round in 0..rounds {
        let mut cache = model.new_cache();
        let (t, c) = (Instant::now(), process_cpu_s());
        let mut logits = model.forward(&ids, &mut cache)?;
        let (prefill, prefill_cpu) = (t.elapsed().as_secs_f64(), process_cpu_s() - c);
        let (t, c) = (Instant::now(), process_cpu_s());
        for _ in 0..decode {
            logits = model.forward(&[argmax(&logits)?], &mut cache)?;
        }
        let (dec, dec_cpu) = (t.elapsed().as_secs_f64(), process_cpu_s() - c);
        println!(
            "{{\"round\":{round},\"backend\":\"{backend}\",\"weights\":\"{weights}\",\"activations\":\"{activations}\",\"weight_mb\":{weight_mb:.1},\"rss_mb\":{rss_mb:.1},\"prefill_tokens\":{},\"prefill_tps\":{:.2},\"decode_tokens\":{decode},\"decode_tps\":{:.2},\"prefill_cpu_tps\":{:.2},\"decode_cpu_tps\":{:.2}}}",
            ids.len(),
            ids.len() as f64 / prefill,
            decode as f64 / dec,
            ids.len() as f64 / prefill_cpu,
            decode as f64 / dec_cpu
        );
    }
    Ok(())
}

/// On-CPU time of the whole process (all threads), in seconds: on a loaded machine
/// the wall-clock rates include waiting for a core; these do not (with one thread
/// they are the work itself; with more they include the threads' spinning). 0 where
/// unavailable.
fn process_cpu_s() -> f64 {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
        if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } == 0 {
            return ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9;
        }
    }
    0.0
}

/// Resident set size in MB from /proc/self/status (0 where unavailable).
fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(0.0, |kb| kb / 1e3)
}

/// The greedy id of `logits` (an error where no logit is finite).
fn argmax(logits: &[f32]) -> Result<u32, &'static str> {
    greedy(logits).ok_or("no finite logit")
}
