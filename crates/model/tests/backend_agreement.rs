//! The same forward pass on ndarray (CPU) and wgpu agrees within tolerance. Compiled
//! only with both features (`cargo test --release -p espalier-model --features wgpu
//! --test backend_agreement`); skips with a message when no wgpu adapter exists.
#![cfg(all(feature = "ndarray", feature = "wgpu"))]

use espalier_model::{BackendKind, Gguf, Llama, Tokenizer};

const MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/models/SmolLM2-135M-Instruct.Q4_1.gguf");

#[test]
fn ndarray_and_wgpu_agree() {
    let gguf = Gguf::open(MODEL).expect("model missing: run scripts/fetch-model.sh");
    let tok = Tokenizer::from_gguf(&gguf).unwrap();
    let gpu = match BackendKind::Wgpu.device() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("skipped: no wgpu adapter ({e})");
            return;
        }
    };
    let cpu_model = Llama::load(&gguf, &BackendKind::Ndarray.device().unwrap()).unwrap();
    let gpu_model = Llama::load(&gguf, &gpu).unwrap();
    let ids = tok.encode("def fibonacci(n):").unwrap();
    let (mut c1, mut c2) = (cpu_model.new_cache(), gpu_model.new_cache());
    let mut a = cpu_model.forward(&ids, &mut c1).unwrap();
    let mut b = gpu_model.forward(&ids, &mut c2).unwrap();
    for step in 0..4 {
        let max = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
        eprintln!("step {step}: max |ndarray - wgpu| = {max}");
        assert!(max < 0.05, "step {step}: logits differ by {max}");
        let next = argmax(&a);
        assert_eq!(next, argmax(&b), "step {step}: greedy token differs");
        a = cpu_model.forward(&[next], &mut c1).unwrap();
        b = gpu_model.forward(&[next], &mut c2).unwrap();
    }
}

fn argmax(l: &[f32]) -> u32 {
    (0..l.len()).max_by(|&i, &j| l[i].total_cmp(&l[j])).unwrap() as u32
}
