//! `generate --warm-up`: the generation is run once unmeasured, then again from an empty
//! cache, so the reported run is the same generation (the same ids) with its whole
//! prompt measured (its cache is not reused from the warm-up), and the flag is refused
//! where it does not apply (fill in the middle).

use std::path::Path;
use std::process::Output;

use crate::common::{espalier_on, stderr};

const MODEL: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/models/SmolLM2-135M-Instruct.Q4_1.gguf");

fn generate(extra: &[&str]) -> Output {
    let model = espalier_testkit::require(MODEL, "the model", Some("bash scripts/fetch-model.sh"));
    let mut args = vec![
        "generate",
        "--backend",
        "ndarray",
        "--raw",
        "--prompt",
        "def add(a, b):",
        "--max-tokens",
        "6",
        "--json",
    ];
    args.extend_from_slice(extra);
    espalier_on(&args, Path::new(&model))
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "espalier failed: {}", stderr(out));
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.lines().last().expect("a JSON line")).unwrap()
}

#[test]
fn a_warmed_up_run_is_the_same_generation_with_its_whole_prompt_measured() {
    let cold = json(&generate(&[]));
    let warm_out = generate(&["--warm-up"]);
    let warm = json(&warm_out);
    assert!(stderr(&warm_out).contains("warm-up run done"), "{}", stderr(&warm_out));
    assert_eq!(warm["ids"], cold["ids"]);
    assert_eq!(warm["warm_up"], true);
    assert_eq!(cold["warm_up"], false);
    // Reusing the warm-up's cache would leave the measured run a prompt of one token.
    assert!(cold["prefill_tokens"].as_u64().unwrap() > 1);
    assert_eq!(warm["prefill_tokens"], cold["prefill_tokens"]);
    assert_eq!(warm["decode_tokens"], cold["decode_tokens"]);
}

#[test]
fn warm_up_is_refused_with_fill_in_the_middle() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let (prefix, suffix) = (dir.join("warm-up-prefix.py"), dir.join("warm-up-suffix.py"));
    std::fs::write(&prefix, "def f(x):\n    return ").unwrap();
    std::fs::write(&suffix, "\n").unwrap();
    let out = generate(&[
        "--warm-up",
        "--fim-prefix",
        prefix.to_str().unwrap(),
        "--fim-suffix",
        suffix.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--warm-up"), "{}", stderr(&out));
}
