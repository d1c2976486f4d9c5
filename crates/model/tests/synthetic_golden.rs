//! Golden tests of every (architecture, weight format) pair against llama.cpp on tiny
//! random-weight GGUFs (`scripts/synthetic/make-models.sh`: written by gguf-py,
//! quantized by llama.cpp's own quantizer, logits recorded by llama.cpp with an F32 KV
//! cache): a 32-token prompt, then 16 steps fed llama.cpp's greedy token. At every step
//! our logits must agree with llama.cpp's within the format's tolerance over llama.cpp's
//! top 5, and our top-5 ids must equal llama.cpp's except for near ties (two tokens
//! whose llama.cpp logits are closer than the tolerance may trade places).
//!
//! Tolerances: F32 matrices are multiplied by llama.cpp in f32 (differences are
//! summation order only); F16 weights multiply f16-rounded activations there; every
//! quantized type multiplies 8-bit-quantized activations (Q8_0 blocks of 32, or Q8_K
//! blocks of 256 for the K-quants), where we keep f32 activations. Measured largest
//! differences are printed (`--nocapture`) and listed in the crate README.
//!
//! Slow suite (needs llama.cpp built for this CPU, ~15 minutes once):
//! `bash scripts/synthetic/make-models.sh` then
//! `ESPALIER_SLOW=1 cargo nextest run --release -p espalier-model --test synthetic_golden --no-capture`.
#![cfg(feature = "ndarray")]

use std::path::PathBuf;

use espalier_model::{BackendKind, Gguf, Llama};

fn dir() -> PathBuf {
    match std::env::var_os("ESPALIER_SYNTHETIC_GGUF") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/synthetic-gguf")),
    }
}

/// Largest accepted |ours - llama.cpp| over llama.cpp's top-5 logits, per file format.
fn tolerance(format: &str) -> f32 {
    match format {
        "F32" => 1e-3,
        "F16" => 0.05,
        "Q8_0" => 0.1,
        "Q6_K" | "Q5_K" | "Q5_0" | "Q5_1" => 0.15,
        "Q4_0" | "Q4_1" | "Q4_K" | "Q4_K_M" => 0.25,
        other => panic!("no tolerance for format {other}"),
    }
}

fn top(logits: &[f32], k: usize) -> Vec<usize> {
    let mut ids: Vec<usize> = (0..logits.len()).collect();
    ids.sort_by(|&a, &b| logits[b].total_cmp(&logits[a]));
    ids.truncate(k);
    ids
}

/// Compares one step; returns the largest difference over llama.cpp's top 5.
fn compare(ours: &[f32], want: &[f32], tol: f32, what: &str) -> f32 {
    assert_eq!(ours.len(), want.len(), "{what}: logits length");
    let (t_ours, t_want) = (top(ours, 5), top(want, 5));
    let diff = t_want.iter().map(|&i| (ours[i] - want[i]).abs()).fold(0f32, f32::max);
    assert!(diff <= tol, "{what}: top-5 logits differ by {diff} > {tol}");
    for (rank, (&a, &b)) in t_ours.iter().zip(&t_want).enumerate() {
        // A different id at this rank is a near tie only if llama.cpp's own logits of
        // the two tokens are within the tolerance.
        assert!(a == b || (want[a] - want[b]).abs() <= tol, "{what}: rank {rank}: ours {a}, llama.cpp {b} ({} vs {})", want[a], want[b]);
    }
    diff
}

#[test]
fn every_architecture_and_format_agrees_with_llama_cpp() {
    if !espalier_testkit::slow() {
        return;
    }
    let dir = dir();
    let golden = dir.join("golden.json");
    let text = std::fs::read_to_string(&golden)
        .unwrap_or_else(|e| panic!("{}: {e}; run `bash scripts/synthetic/make-models.sh`", golden.display()));
    let golden: serde_json::Value = serde_json::from_str(&text).unwrap();
    let device = BackendKind::Ndarray.device().unwrap();
    let cases = golden["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 22, "2 architectures x 11 formats");
    for case in cases {
        let (arch, format) = (case["arch"].as_str().unwrap(), case["format"].as_str().unwrap());
        let tol = tolerance(format);
        let gguf = Gguf::open(dir.join(case["file"].as_str().unwrap())).unwrap();
        let model = Llama::load(&gguf, &device).unwrap();
        assert_eq!(model.config().arch.name(), arch);
        let prompt: Vec<u32> = case["prompt"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
        assert_eq!(prompt.len(), 32);
        let steps = case["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 17, "the prompt's logits and 16 greedy steps");
        let mut cache = model.new_cache();
        let mut logits = model.forward(&prompt, &mut cache).unwrap();
        let mut worst = 0f32;
        for (k, step) in steps.iter().enumerate() {
            let want: Vec<f32> = step["logits"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
            worst = worst.max(compare(&logits, &want, tol, &format!("{arch} {format} step {k}")));
            if k + 1 < steps.len() {
                logits = model.forward(&[step["token"].as_u64().unwrap() as u32], &mut cache).unwrap();
            }
        }
        println!("{arch:6} {format:7} largest top-5 logit difference {worst:.5} (tolerance {tol})");
    }
}
