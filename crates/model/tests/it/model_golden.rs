//! Golden model tests against llama.cpp (`../shared/golden/smollm2-llamacpp.json`):
//! for both golden prompts the greedy ids match for at least 12 steps, and the top-5
//! logits of the first 3 steps agree within 1.0 (llama.cpp multiplies Q4_1 weights by
//! 8-bit activations and keeps the KV cache in f16, so exact equality is not
//! expected; ours round them to 8 bits too, by default). Also checks that KV-cache
//! rollback, split prefills and single steps reproduce the same logits, and that
//! failed steps leave the cache unchanged: those run with f32 activations, because
//! 8-bit rounding is discontinuous (a 1e-6 difference in summation order between a
//! prompt's attention and a step's flips a rounding and moves logits by up to 0.7 on
//! this model), which would hide a cache bug behind a loose tolerance. Runs on the CPU
//! backend (feature `ndarray`).
#![cfg(feature = "ndarray")]

use crate::common::argmax;
use espalier_model::{ActivationFormat, BackendKind, Gguf, Llama, Tokenizer};

const MODEL: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/models/SmolLM2-135M-Instruct.Q4_1.gguf");
const GOLDEN: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/golden/smollm2-llamacpp.json");
/// Greedy steps compared in CI; `ESPALIER_SLOW=1` compares all 128 and asserts that
/// every chat-prompt step matches (BENCHMARKS.md's figure).
const STEPS: usize = 12;
/// The chat prompt's golden steps, all of which must match when slow.
const CHAT_STEPS: usize = 128;

fn load() -> (Tokenizer, Llama, serde_json::Value) {
    let gguf = Gguf::open(MODEL).expect("model missing: run scripts/fetch-model.sh");
    let tok = Tokenizer::from_gguf(&gguf).unwrap();
    let device = BackendKind::Ndarray.device().unwrap();
    let model = Llama::load(&gguf, &device).unwrap();
    let golden =
        serde_json::from_str(&std::fs::read_to_string(GOLDEN).expect("golden file")).unwrap();
    (tok, model, golden)
}

fn ids(v: &serde_json::Value) -> Vec<u32> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect()
}

/// Compares greedy ids and top-5 logits with llama.cpp's; returns how many leading
/// steps match.
fn check_prompt(tok: &Tokenizer, model: &Llama, case: &serde_json::Value, name: &str) -> usize {
    let prompt = case["prompt"].as_str().unwrap();
    let prompt_ids = ids(&case["prompt_tokens"]);
    assert_eq!(tok.encode(prompt).unwrap(), prompt_ids, "{name}: prompt tokens");
    let want = ids(&case["generated_ids"]);
    let steps = if espalier_testkit::slow() { want.len() } else { STEPS };

    let mut cache = model.new_cache();
    let mut logits = model.forward(&prompt_ids, &mut cache).unwrap();
    let mut got = Vec::new();
    let mut max_diff = 0f32;
    for step in 0..steps {
        if let Some(top) = case["first_steps_top5"].as_array().unwrap().get(step) {
            for entry in top["top5"].as_array().unwrap() {
                let id = entry["id"].as_u64().unwrap() as usize;
                let want_logit = entry["logit"].as_f64().unwrap() as f32;
                let diff = (logits[id] - want_logit).abs();
                max_diff = max_diff.max(diff);
                assert!(
                    diff < 1.0,
                    "{name} step {step} token {id}: logit {} vs llama.cpp {want_logit}",
                    logits[id]
                );
            }
        }
        let next = argmax(&logits);
        if next != want[step] && got.iter().zip(&want).all(|(a, b)| a == b) {
            eprintln!(
                "{name} step {step}: ours picks {next} (logit {:.3}), llama.cpp {} (our logit {:.3})",
                logits[next as usize],
                want[step],
                logits[want[step] as usize]
            );
        }
        got.push(next);
        // Feed llama.cpp's token so a late divergence does not hide later matches.
        logits = model.forward(&[want[step]], &mut cache).unwrap();
    }
    let first_diff = got.iter().zip(&want).position(|(a, b)| a != b);
    eprintln!("{name}: {steps} steps, first divergence {first_diff:?}, max top-5 logit diff {max_diff:.3}");
    let matched = first_diff.unwrap_or(steps);
    assert!(
        matched >= STEPS.min(steps),
        "{name}: greedy ids diverge at step {matched}: got {got:?}, want {:?}",
        &want[..steps]
    );
    matched
}

#[test]
fn greedy_ids_and_logits_match_llama_cpp() {
    let (tok, model, golden) = load();
    check_prompt(&tok, &model, &golden["golden"], "golden");
    let chat = check_prompt(&tok, &model, &golden["golden_chat"], "golden_chat");
    if espalier_testkit::slow() {
        // BENCHMARKS.md's figure: all 128 chat-prompt steps match llama.cpp's greedy ids.
        let all = golden["golden_chat"]["generated_ids"].as_array().unwrap().len();
        assert_eq!(all, CHAT_STEPS, "the golden file's chat steps");
        assert_eq!(
            chat, CHAT_STEPS,
            "golden_chat: greedy ids match llama.cpp for {chat} of {CHAT_STEPS} steps"
        );
    }
}

#[test]
fn cache_rollback_reproduces_logits() {
    let (tok, mut model, _) = load();
    model.set_activation_format(ActivationFormat::F32);
    let ids = tok.encode("def add(a, b):\n    return").unwrap();
    let mut cache = model.new_cache();
    let full = model.forward(&ids, &mut cache).unwrap();
    // Prefill all but the last two tokens, then step one at a time.
    let mut c2 = model.new_cache();
    model.forward(&ids[..ids.len() - 2], &mut c2).unwrap();
    model.forward(&ids[ids.len() - 2..ids.len() - 1], &mut c2).unwrap();
    let stepped = model.forward(&ids[ids.len() - 1..], &mut c2).unwrap();
    assert_close(&full, &stepped, 1e-3, "prefill vs step");
    // Roll back one position and run a different token, then the right one again.
    c2.truncate(ids.len() - 1);
    model.forward(&[tok.encode(" x").unwrap()[0]], &mut c2).unwrap();
    c2.truncate(ids.len() - 1);
    assert_eq!(c2.len(), ids.len() - 1);
    let again = model.forward(&ids[ids.len() - 1..], &mut c2).unwrap();
    assert_close(&full, &again, 1e-3, "after rollback");
    // Failed steps leave the cache as it was.
    assert!(model.forward(&[], &mut c2).is_err());
    assert!(model.forward(&[5, 49152], &mut c2).is_err());
    assert_eq!(c2.len(), ids.len());
    c2.truncate(ids.len() - 1);
    let after_errors = model.forward(&ids[ids.len() - 1..], &mut c2).unwrap();
    assert_close(&full, &after_errors, 1e-3, "after failed steps");
}

#[test]
fn long_prefill_matches_split_prefill_and_steps() {
    // 150 tokens: the prefill attends in blocks of 64 rows by sgemm; the same positions
    // reached by a 100-token prefill, a 40-token prefill with 100 positions cached and
    // ten single steps (dot-product kernel) give the same logits, also after a rollback
    // into the cached prefix and a different continuation.
    let (tok, mut model, _) = load();
    model.set_activation_format(ActivationFormat::F32);
    let text = "def fibonacci(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n\n";
    let mut ids = Vec::new();
    while ids.len() < 150 {
        ids.extend(tok.encode(text).unwrap());
    }
    ids.truncate(150);
    let mut full_cache = model.new_cache();
    let full = model.forward(&ids, &mut full_cache).unwrap();

    let mut cache = model.new_cache();
    model.forward(&ids[..100], &mut cache).unwrap();
    model.forward(&ids[100..140], &mut cache).unwrap();
    let mut stepped = Vec::new();
    for &id in &ids[140..] {
        stepped = model.forward(&[id], &mut cache).unwrap();
    }
    assert_close(&full, &stepped, 1e-3, "150-token prefill vs 100 + 40 + 10 steps");

    cache.truncate(70);
    model.forward(&ids[20..60], &mut cache).unwrap(); // a different continuation
    cache.truncate(70);
    let again = model.forward(&ids[70..], &mut cache).unwrap();
    assert_eq!(cache.len(), 150);
    assert_close(&full, &again, 1e-3, "after rollback to 70 and a different continuation");
}

fn assert_close(a: &[f32], b: &[f32], tol: f32, what: &str) {
    let max = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
    assert!(max < tol, "{what}: max abs diff {max}");
}
