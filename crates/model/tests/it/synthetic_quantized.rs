//! The random Q4_K_M models of `espalier_model::synthetic` (what a user's own quantized
//! model costs to run, where its weights cannot be fetched): the file holds llama.cpp's
//! Q4_K_M mix of types, loads, and runs to finite, spread logits on the CPU.
#![cfg(feature = "ndarray")]

use espalier_model::gguf::GgmlType;
use espalier_model::synthetic::{model_from_vocab, vocab_only, SyntheticSpec, SyntheticWeights};
use espalier_model::{BackendKind, Gguf, Llama};

const SMOLLM2: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/models/SmolLM2-135M-Instruct.Q4_1.gguf");
const VOCAB: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/models/vocab/ggml-vocab-qwen2.gguf");

#[test]
fn a_random_q4_k_m_model_has_the_mix_and_runs() {
    let vocab = Gguf::open(espalier_testkit::require(
        VOCAB,
        "the qwen2 vocabulary",
        Some("bash scripts/fetch-vocabs.sh"),
    ))
    .expect("vocabulary parses");
    let spec = SyntheticSpec {
        hidden: 256,
        heads: 4,
        ffn: 512,
        ..SyntheticSpec::qwen25_coder_1_5b_q4_k_m()
    };
    let spec = SyntheticSpec { layers: 2, ..spec };
    let gguf = Gguf::from_bytes(model_from_vocab(&vocab, &spec).unwrap().to_bytes()).unwrap();
    let ty = |name: &str| gguf.tensor_info(name).unwrap().ggml_type;
    for (name, want) in [
        ("token_embd.weight", GgmlType::Q6_K),
        ("blk.0.attn_q.weight", GgmlType::Q4_K),
        ("blk.0.attn_v.weight", GgmlType::Q6_K),
        ("blk.1.attn_v.weight", GgmlType::Q4_K),
        ("blk.0.ffn_down.weight", GgmlType::Q6_K),
        ("blk.1.ffn_gate.weight", GgmlType::Q4_K),
        ("blk.0.attn_q.bias", GgmlType::F32),
    ] {
        assert_eq!(ty(name), want, "{name}");
    }
    let model = Llama::load(&gguf, &BackendKind::Ndarray.device().unwrap()).unwrap();
    let mut cache = model.new_cache();
    let logits = model.forward(&[9707, 11, 1879, 0, 151_643], &mut cache).unwrap();
    let n = logits.len() as f32;
    let mean = logits.iter().sum::<f32>() / n;
    let sd = (logits.iter().map(|l| (l - mean).powi(2)).sum::<f32>() / n).sqrt();
    assert!(logits.iter().all(|l| l.is_finite()), "finite logits");
    assert!(sd > 0.1 && sd < 100.0, "logits spread {sd}");

    // Widths that are not whole super-blocks are refused, by name.
    let bad = SyntheticSpec { hidden: 192, ..spec };
    let err = model_from_vocab(&vocab, &bad).err().expect("refused");
    assert!(err.contains("hidden 192"), "{err}");
    assert_eq!(SyntheticSpec::qwen2().weights, SyntheticWeights::F32);
}

/// SmolLM2-135M's shape in random Q4_1 blocks, from a vocabulary-only file written from
/// the real model: the real file's tensor types and shapes (bytes for bytes but the
/// trained values and the metadata beyond the tokenizer), and logits that spread.
#[test]
fn a_random_smollm2_shape_matches_the_real_file() {
    let real = Gguf::open(espalier_testkit::require(
        SMOLLM2,
        "SmolLM2-135M-Instruct Q4_1",
        Some("bash scripts/fetch-model.sh"),
    ))
    .expect("the model parses");
    let vocab = Gguf::from_bytes(vocab_only(&real).to_bytes()).unwrap();
    assert!(vocab.tensors().is_empty(), "no tensors");
    let spec = SyntheticSpec::smollm2_135m_q4_1();
    let gguf = Gguf::from_bytes(model_from_vocab(&vocab, &spec).unwrap().to_bytes()).unwrap();
    let names = |g: &Gguf| {
        let mut names: Vec<String> = g.tensors().iter().map(|t| t.name.clone()).collect();
        names.sort();
        names
    };
    assert_eq!(names(&gguf), names(&real));
    for name in &names(&gguf) {
        let (a, b) = (gguf.tensor_info(name).unwrap(), real.tensor_info(name).unwrap());
        assert_eq!((a.ggml_type, &a.dims), (b.ggml_type, &b.dims), "{name}");
    }
    let model = Llama::load(&gguf, &BackendKind::Ndarray.device().unwrap()).unwrap();
    let logits = model.forward(&[1, 504, 2181, 30], &mut model.new_cache()).unwrap();
    let n = logits.len() as f32;
    let mean = logits.iter().sum::<f32>() / n;
    let sd = (logits.iter().map(|l| (l - mean).powi(2)).sum::<f32>() / n).sqrt();
    assert!(logits.iter().all(|l| l.is_finite()), "finite logits");
    assert!(sd > 0.1 && sd < 100.0, "logits spread {sd}");
}
