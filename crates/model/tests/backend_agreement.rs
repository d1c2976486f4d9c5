//! The same forward pass on ndarray (CPU) and a GPU backend (wgpu, cuda) agrees within
//! tolerance. Compiled only with a GPU feature:
//! `cargo test --release -p espalier-model --features wgpu --test backend_agreement`
//! (fails, naming the package, when no wgpu adapter exists; natively Mesa's lavapipe,
//! package `mesa-vulkan-drivers`, is enough), or `--features cuda` (fails with the CUDA
//! probe's reason without a driver or device; `scripts/check-cuda-gpu.sh` runs it).
//! `ESPALIER_MODEL` names the GGUF when the test binary runs away from this checkout
//! (carried to a GPU machine without Rust).
//!
//! The CPU side runs its default format (Q4_1 on this crate's kernels, host attention
//! and cache), the GPU side burn's f32 matmuls and the device cache, so this also
//! checks the device cache's growth (a prompt longer than its initial capacity) and
//! rollback on a GPU backend.
#![cfg(all(feature = "ndarray", any(feature = "wgpu", feature = "cuda")))]

use espalier_model::{BackendKind, Gguf, Llama, Tokenizer};

const MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/models/SmolLM2-135M-Instruct.Q4_1.gguf");
/// Largest logit difference allowed: the formats differ only in summation order (f32
/// against the file's exact Q4_1 values), measured at ~1e-3 between the CPU paths.
const TOL: f32 = 0.05;

#[cfg(feature = "wgpu")]
#[test]
fn ndarray_and_wgpu_agree() {
    agree(BackendKind::Wgpu, "install one (natively Mesa's lavapipe: apt-get install -y mesa-vulkan-drivers libvulkan1)");
}

#[cfg(feature = "cuda")]
#[test]
fn ndarray_and_cuda_agree() {
    agree(BackendKind::Cuda, "run this on a machine with an NVIDIA GPU and driver 580+");
}

fn agree(backend: BackendKind, hint: &str) {
    let path = std::env::var("ESPALIER_MODEL").unwrap_or_else(|_| MODEL.to_string());
    let gguf = Gguf::open(&path).unwrap_or_else(|e| panic!("{path}: {e}; run scripts/fetch-model.sh or set ESPALIER_MODEL"));
    let tok = Tokenizer::from_gguf(&gguf).unwrap();
    let gpu = match backend.device() {
        Ok(d) => d,
        Err(e) => panic!("no {backend} device ({e}): {hint}"),
    };
    let cpu_model = Llama::load(&gguf, &BackendKind::Ndarray.device().unwrap()).unwrap();
    let gpu_model = Llama::load(&gguf, &gpu).unwrap();
    eprintln!("cpu weights {}, {backend} weights {}", cpu_model.weight_format(), gpu_model.weight_format());
    let compare = |a: &[f32], b: &[f32], what: &str| {
        let max = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
        eprintln!("{what}: max |ndarray - {backend}| = {max}");
        assert!(max < TOL, "{what}: logits differ by {max}");
        assert_eq!(argmax(a), argmax(b), "{what}: greedy token differs");
    };
    // 70 tokens: more than the device cache's initial capacity (64 rows).
    let mut ids = Vec::new();
    while ids.len() < 70 {
        ids.extend(tok.encode("def fibonacci(n):\n    a, b = 0, 1\n    for _ in range(n):\n").unwrap());
    }
    ids.truncate(70);
    let (mut c1, mut c2) = (cpu_model.new_cache(), gpu_model.new_cache());
    let mut a = cpu_model.forward(&ids, &mut c1).unwrap();
    let mut b = gpu_model.forward(&ids, &mut c2).unwrap();
    let mut fed = Vec::new();
    for step in 0..4 {
        compare(&a, &b, &format!("step {step}"));
        let next = argmax(&a);
        fed.push(next);
        a = cpu_model.forward(&[next], &mut c1).unwrap();
        b = gpu_model.forward(&[next], &mut c2).unwrap();
    }
    compare(&a, &b, "step 4");
    // Roll both back to just after the prompt's first step and replay it.
    c1.truncate(ids.len() + 1);
    c2.truncate(ids.len() + 1);
    let a = cpu_model.forward(&fed[1..2], &mut c1).unwrap();
    let b = gpu_model.forward(&fed[1..2], &mut c2).unwrap();
    compare(&a, &b, "after rollback");
    assert_eq!((c1.len(), c2.len()), (ids.len() + 2, ids.len() + 2));
}

fn argmax(l: &[f32]) -> u32 {
    (0..l.len()).max_by(|&i, &j| l[i].total_cmp(&l[j])).unwrap() as u32
}
