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
//! blocks of 256 for the K-quants); ours round them to 8 bits too (Q8_0-style blocks of
//! 32, `ActivationFormat::Int8`, the default), so the two roundings differ. Measured
//! largest differences are printed (`--nocapture`) and listed in results/model/README.md.
//!
//! Slow suite (needs llama.cpp built for this CPU, ~15 minutes once):
//! `bash scripts/synthetic/make-models.sh` then
//! `ESPALIER_SLOW=1 cargo nextest run --release -p espalier-model --test synthetic_golden --no-capture`.
#![cfg(feature = "ndarray")]

use std::path::PathBuf;

use espalier_model::{ActivationFormat, BackendKind, Gguf, Llama, WeightFormat};

fn dir() -> PathBuf {
    match std::env::var_os("ESPALIER_SYNTHETIC_GGUF") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/synthetic-gguf")),
    }
}

/// Largest accepted |ours - llama.cpp| over llama.cpp's top-5 logits, per file format.
/// F32: summation order only (measured 2e-5). F16: llama.cpp rounds the activations to
/// f16 (relative error 2^-11; measured 0.021). Every quantized type: llama.cpp
/// quantizes the activations to 8 bits per block (relative error of a dot product
/// ~0.7%, amplified by these high-gain random blocks; measured 0.11-0.64), the same
/// bound of 1.0 as SmolLM2's golden test. That the quantized weights themselves are
/// exact is checked apart, tightly: the same file through the `gguf` kernels with f32
/// activations and through burn's f32 matmul on the reference-tested dequantization
/// agree within 2e-3.
fn tolerance(format: &str) -> f32 {
    match format {
        "F32" => 1e-3,
        "F16" => 0.05,
        "Q8_0" | "Q6_K" | "Q5_K" | "Q5_0" | "Q5_1" | "Q4_0" | "Q4_1" | "Q4_K" | "Q4_K_M" => 1.0,
        other => panic!("no tolerance for format {other}"),
    }
}

fn top(logits: &[f32], k: usize) -> Vec<usize> {
    let mut ids: Vec<usize> = (0..logits.len()).collect();
    ids.sort_by(|&a, &b| logits[b].total_cmp(&logits[a]));
    ids.truncate(k);
    ids
}

/// Compares one step: the largest difference over llama.cpp's top 5, and the
/// failures (added to `failures`).
fn compare(ours: &[f32], want: &[f32], tol: f32, what: &str, failures: &mut Vec<String>) -> f32 {
    assert_eq!(ours.len(), want.len(), "{what}: logits length");
    let (t_ours, t_want) = (top(ours, 5), top(want, 5));
    let diff = t_want.iter().map(|&i| (ours[i] - want[i]).abs()).fold(0f32, f32::max);
    if diff > tol {
        failures.push(format!("{what}: top-5 logits differ by {diff} > {tol}"));
    }
    for (rank, (&a, &b)) in t_ours.iter().zip(&t_want).enumerate() {
        // A different id at this rank is a near tie only if llama.cpp's own logits of
        // the two tokens are within the tolerance.
        if a != b && (want[a] - want[b]).abs() > tol {
            failures.push(format!(
                "{what}: rank {rank}: ours {a}, llama.cpp {b} ({} vs {})",
                want[a], want[b]
            ));
        }
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
    let text = std::fs::read_to_string(&golden).unwrap_or_else(|e| {
        panic!("{}: {e}; run `bash scripts/synthetic/make-models.sh`", golden.display())
    });
    let golden: serde_json::Value = serde_json::from_str(&text).unwrap();
    let device = BackendKind::Ndarray.device().unwrap();
    let cases = golden["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 22, "2 architectures x 11 formats");
    let mut failures = Vec::new();
    for case in cases {
        let (arch, format) = (case["arch"].as_str().unwrap(), case["format"].as_str().unwrap());
        let tol = tolerance(format);
        let gguf = Gguf::open(dir.join(case["file"].as_str().unwrap())).unwrap();
        let model = Llama::load(&gguf, &device).unwrap();
        assert_eq!(model.config().arch.name(), arch);
        let prompt: Vec<u32> =
            case["prompt"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
        assert_eq!(prompt.len(), 32);
        let steps = case["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 17, "the prompt's logits and 16 greedy steps");
        // The same file dequantized to f32 and multiplied by burn: the twin of our
        // kernels with f32 activations.
        let reference = Llama::load_with(&gguf, &device, WeightFormat::BurnF32).unwrap();
        let mut exact = model.clone();
        exact.set_activation_format(ActivationFormat::F32);
        let (mut cache, mut ref_cache, mut exact_cache) =
            (model.new_cache(), reference.new_cache(), exact.new_cache());
        let mut logits = model.forward(&prompt, &mut cache).unwrap();
        let mut ref_logits = reference.forward(&prompt, &mut ref_cache).unwrap();
        let mut exact_logits = exact.forward(&prompt, &mut exact_cache).unwrap();
        let (mut worst, mut worst_twin) = (0f32, 0f32);
        for (k, step) in steps.iter().enumerate() {
            let want: Vec<f32> = step["logits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap() as f32)
                .collect();
            worst = worst.max(compare(
                &logits,
                &want,
                tol,
                &format!("{arch} {format} step {k}"),
                &mut failures,
            ));
            let twin = exact_logits
                .iter()
                .zip(&ref_logits)
                .map(|(a, b)| (a - b).abs())
                .fold(0f32, f32::max);
            if twin > 2e-3 {
                failures.push(format!(
                    "{arch} {format} step {k}: gguf kernels vs burn f32 differ by {twin}"
                ));
            }
            worst_twin = worst_twin.max(twin);
            if k + 1 < steps.len() {
                let next = [step["token"].as_u64().unwrap() as u32];
                logits = model.forward(&next, &mut cache).unwrap();
                ref_logits = reference.forward(&next, &mut ref_cache).unwrap();
                exact_logits = exact.forward(&next, &mut exact_cache).unwrap();
            }
        }
        println!(
            "{arch:6} {format:7} largest top-5 logit difference to llama.cpp {worst:.5} (tolerance {tol}); \
             gguf kernels (f32 activations) vs burn f32 {worst_twin:.6}"
        );
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
