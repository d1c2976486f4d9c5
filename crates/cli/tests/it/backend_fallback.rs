//! `espalier generate --backend cuda` on a machine without a CUDA driver or device: a
//! clear error (exit 2, the reason, no panic), and `--backend cuda,ndarray` falls back to
//! the CPU with the same greedy tokens. Runs in both builds: in the default one CUDA is
//! "not compiled in"; in the `--features cuda` one (`scripts/check-cuda-build.sh`) the
//! probe must name the missing driver or device. On a machine with the NVIDIA driver
//! loaded the cuda build must instead run on the GPU (`scripts/check-cuda-gpu.sh` compares
//! its logits with the CPU's).

use std::path::Path;
use std::process::Output;

use crate::common::{espalier_on, stderr};

const MODEL: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/models/SmolLM2-135M-Instruct.Q4_1.gguf");

fn espalier(backend: &str) -> Output {
    espalier_with(&["--backend", backend])
}

/// `espalier generate` of 4 greedy tokens with `args` (backend, weights).
fn espalier_with(args: &[&str]) -> Output {
    let model = espalier_testkit::require(MODEL, "the model", Some("bash scripts/fetch-model.sh"));
    let mut all = vec!["generate", "--prompt", "Say hi.", "--max-tokens", "4", "--json"];
    all.extend_from_slice(args);
    espalier_on(&all, &model)
}

fn ids(out: &Output) -> serde_json::Value {
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("one JSON object on stdout");
    json["ids"].clone()
}

/// The NVIDIA kernel driver is loaded (a GPU machine).
fn nvidia_driver_loaded() -> bool {
    Path::new("/proc/driver/nvidia/version").exists()
}

#[test]
fn cuda_alone_is_a_clear_error_without_a_device() {
    let out = espalier("cuda");
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "a panic instead of an error:\n{err}");
    if cfg!(feature = "cuda") && nvidia_driver_loaded() {
        assert!(out.status.success(), "the cuda build failed on a GPU machine:\n{err}");
        assert!(
            err.contains("cuda device: ") && err.contains("model loaded (cuda backend)"),
            "{err}"
        );
        return;
    }
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("error: no backend of \"cuda\" could start: backend cuda: "), "{err}");
    assert!(err.contains("`--backend cuda,ndarray` falls back to the CPU"), "{err}");
    let reason = if cfg!(feature = "cuda") {
        // This machine has no NVIDIA driver: the probe must say so, not burn-cuda panic.
        "no CUDA driver: libcuda.so was not found"
    } else {
        "not compiled in; rebuild with `--features cuda`"
    };
    assert!(err.contains(reason), "expected {reason:?} in:\n{err}");
    assert!(out.stdout.is_empty(), "nothing generated, nothing on stdout");
}

#[test]
fn cuda_then_ndarray_falls_back_to_the_cpu_with_the_same_tokens() {
    let out = espalier("cuda,ndarray");
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    if cfg!(feature = "cuda") && nvidia_driver_loaded() {
        assert!(err.contains("model loaded (cuda backend)"), "{err}");
        return;
    }
    assert!(err.contains("cuda backend unavailable (backend cuda: "), "{err}");
    assert!(err.contains("); falling back to ndarray"), "{err}");
    assert!(err.contains("model loaded (ndarray backend)"), "{err}");
    let cpu = espalier("ndarray");
    assert!(cpu.status.success(), "{}", stderr(&cpu));
    assert_eq!(ids(&out), ids(&cpu), "the fallback runs the same model on the CPU");
    assert_eq!(ids(&out).as_array().map(Vec::len), Some(4), "four greedy tokens");
}

/// `--weights` names the format; one the chosen backend cannot run (the GPU blocks on
/// the CPU) is an error naming it, not a panic and not a silent switch to another format.
#[test]
fn a_weight_format_the_backend_cannot_run_is_a_clear_error() {
    let out = espalier_with(&["--backend", "ndarray", "--weights", "gpu-blocks"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "a panic instead of an error:\n{err}");
    assert!(
        err.contains("weight format gpu-blocks runs only on the wgpu and cuda backends"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing generated, nothing on stdout");

    let out = espalier_with(&["--backend", "ndarray", "--weights", "q4_1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("one JSON object on stdout");
    assert_eq!(json["weights"], "q4_1", "the JSON names the format asked for");
    assert!(stderr(&out).contains("weights: q4_1, "), "{}", stderr(&out));

    let out = espalier_with(&["--backend", "ndarray", "--weights", "q3"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("unknown weight format \"q3\""), "{}", stderr(&out));
}
