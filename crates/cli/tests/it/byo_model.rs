//! Bring your own model, end to end through the real `espalier` binary: small
//! random-weight GGUFs in real vocabularies (`espalier_model::synthetic`: a `qwen2`
//! file in Qwen2's vocabulary, 151,936 embedding rows of which the last 290 are
//! `[PADn]` padding, tied output; a `llama` file in DeepSeek-Coder's vocabulary, linear
//! RoPE scaling, untied output), written here from llama.cpp's vocabulary-only GGUFs
//! (`bash scripts/fetch-vocabs.sh`, run by `scripts/setup.sh`).
//!
//! - `generate --raw` gives llama.cpp's greedy tokens on the same bytes
//!   (`tests/data/byo-golden.json`, recorded by `scripts/synthetic/byo-golden.sh`; the
//!   file's checksum ties the record to the writer), and the prompt is tokenized as
//!   llama.cpp tokenizes it (BOS included where the vocabulary asks for it).
//! - `generate --lang python` (exact mask) with those vocabularies: the text is a
//!   valid Python prefix and no control or padding token is ever chosen.
//! - `eval humaneval --model FILE` runs one problem with the mask.
//! - An unsupported architecture and a missing tensor are clear errors naming them.

use std::path::{Path, PathBuf};
use std::process::Output;

use espalier_model::gguf::MetadataValue;
use espalier_model::synthetic::{checksum, model_from_vocab, SyntheticSpec};
use espalier_model::{Gguf, Tokenizer};

use crate::common::{espalier_on as espalier, stderr, ROOT};

fn vocab(name: &str) -> Gguf {
    let path = format!("{ROOT}/static/models/vocab/ggml-vocab-{name}.gguf");
    let path = espalier_testkit::require(
        &path,
        "llama.cpp's vocabulary files",
        Some("bash scripts/fetch-vocabs.sh"),
    );
    Gguf::open(path).unwrap()
}

/// The synthetic model of `arch` (`qwen2` or `llama`) in its vocabulary, with `edit`
/// applied, written under a name of its own (tests run in parallel processes).
fn model_file(
    arch: &str,
    name: &str,
    edit: impl FnOnce(&mut espalier_model::gguf::GgufWriter),
) -> (PathBuf, u64) {
    let (vocab_name, spec) = match arch {
        "qwen2" => ("qwen2", SyntheticSpec::qwen2()),
        _ => ("deepseek-coder", SyntheticSpec::llama_untied()),
    };
    let mut w = model_from_vocab(&vocab(vocab_name), &spec).unwrap();
    edit(&mut w);
    let bytes = w.to_bytes();
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("byo-{name}-{arch}.gguf"));
    std::fs::write(&path, &bytes).unwrap();
    (path, checksum(&bytes))
}

/// The JSON object on the last line of stdout.
fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "espalier failed: {}", stderr(out));
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_else(|| panic!("no output; stderr: {}", stderr(out)));
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {last}"))
}

fn ids(v: &serde_json::Value) -> Vec<u32> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect()
}

#[test]
fn raw_generation_gives_llama_cpps_greedy_tokens() {
    let golden: serde_json::Value = serde_json::from_str(include_str!("../data/byo-golden.json"))
        .expect("tests/data/byo-golden.json");
    let cases = golden["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2, "qwen2 and llama");
    for case in cases {
        let arch = case["arch"].as_str().unwrap();
        let (path, sum) = model_file(arch, "greedy", |_| {});
        assert_eq!(
            sum.to_string(),
            case["checksum"].as_str().unwrap(),
            "{arch}: the synthetic file is not the one llama.cpp ran; run `bash scripts/synthetic/byo-golden.sh`"
        );
        let prompt = case["prompt"].as_str().unwrap();
        let tok = Tokenizer::from_gguf(&Gguf::open(&path).unwrap()).unwrap();
        assert_eq!(
            tok.encode_prompt(prompt).unwrap(),
            ids(&case["prompt_ids"]),
            "{arch}: prompt tokens"
        );

        let out = json(&espalier(
            &["generate", "--raw", "--prompt", prompt, "--max-tokens", "16", "--json"],
            &path,
        ));
        let (ours, want, gaps) =
            (ids(&out["ids"]), ids(&case["greedy"]), case["gaps"].as_array().unwrap());
        assert_eq!(
            out["prefill_tokens"].as_u64().unwrap() as usize,
            case["prompt_ids"].as_array().unwrap().len()
        );
        assert!(ours.len() >= 8, "{arch}: only {} tokens ({})", ours.len(), out["stop"]);
        for (k, (&a, &b)) in ours.iter().zip(&want).enumerate() {
            if a != b {
                // Only a near tie in llama.cpp's own logits may differ (then the rest
                // follows another path and is not compared).
                let gap = gaps[k].as_f64().unwrap();
                assert!(gap < 1e-3, "{arch}: step {k}: ours {a}, llama.cpp {b} (its gap {gap}); ours {ours:?}, llama.cpp {want:?}");
                break;
            }
        }
        eprintln!("{arch}: {} greedy tokens equal llama.cpp's ({:?})", ours.len(), out["stop"]);
    }
}

#[test]
fn python_masks_work_with_the_qwen2_and_deepseek_vocabularies() {
    let python = espalier_grammar::python().unwrap();
    for arch in ["qwen2", "llama"] {
        let (path, _) = model_file(arch, "python", |_| {});
        let tok = Tokenizer::from_gguf(&Gguf::open(&path).unwrap()).unwrap();
        let prompt = "def add(a, b):\n";
        let args =
            ["generate", "--lang", "python", "--prompt", prompt, "--max-tokens", "24", "--json"];
        let out = json(&espalier(&args, &path));
        let ours = ids(&out["ids"]);
        assert!(!ours.is_empty(), "{arch}: nothing generated ({})", out["stop"]);
        for &id in &ours {
            assert!(
                !tok.is_special(id) || id == tok.eos_id(),
                "{arch}: control or padding token {id} chosen"
            );
        }
        let text = out["text"].as_str().unwrap();
        let mut r = python.recognizer();
        let program = format!("{prompt}{text}");
        assert!(
            r.push_bytes(program.as_bytes()).is_ok(),
            "{arch}: not a Python prefix: {program:?}"
        );
        eprintln!("{arch}: {} tokens under the Python mask: {text:?}", ours.len());
    }
    // The padding rows are marked, so that no mask ever holds them.
    let tok = Tokenizer::from_gguf(&vocab("qwen2")).unwrap();
    assert_eq!(tok.vocab_size(), 151_936);
    assert!((151_646..151_936).all(|id| tok.is_special(id)), "the [PADn] rows");
    assert!(!tok.is_special(151_642));
}

#[test]
fn chat_prompts_take_the_files_template_or_the_vocabularys_family() {
    // qwen2: the file's own template (ChatML with Qwen's default system turn);
    // DeepSeek-Coder's vocabulary has none: its family's format, BOS written by it.
    let cases = [
        ("qwen2", "<|im_start|>system\nYou are a helpful assistant<|im_end|>\n<|im_start|>user\nSay hi.<|im_end|>\n<|im_start|>assistant\n"),
        ("llama", "<\u{ff5c}begin\u{2581}of\u{2581}sentence\u{ff5c}>You are an AI programming assistant, utilizing the Deepseek Coder model, developed by Deepseek Company, and you only answer questions related to computer science. For politically sensitive questions, security and privacy issues, and other non-computer science questions, you will refuse to answer\n### Instruction:\nSay hi.\n### Response:\n"),
    ];
    for (arch, text) in cases {
        let (path, _) = model_file(arch, "chat", |_| {});
        let tok = Tokenizer::from_gguf(&Gguf::open(&path).unwrap()).unwrap();
        let want = tok.encode_prompt(text).unwrap();
        if arch == "llama" {
            assert_eq!(
                (want[0], want.iter().filter(|&&id| id == tok.bos_id()).count()),
                (tok.bos_id(), 1),
                "one BOS"
            );
        }
        let out = json(&espalier(
            &["generate", "--prompt", "Say hi.", "--max-tokens", "2", "--json"],
            &path,
        ));
        assert_eq!(
            out["prefill_tokens"].as_u64().unwrap() as usize,
            want.len(),
            "{arch}: the chat prompt's tokens"
        );
    }
}

#[test]
fn eval_runs_a_user_model() {
    let (path, _) = model_file("qwen2", "eval", |_| {});
    let args = ["eval", "humaneval", "--limit", "1", "--max-tokens", "16", "--mode", "mask"];
    let out = json(&espalier(&args, &path));
    assert_eq!(out["problems"], 1, "{out}");
    assert_eq!(out["refused"], 0, "{out}");
    assert_eq!(out["syntax_errors_finished"], 0, "{out}");
}

#[test]
fn an_unsupported_architecture_or_a_missing_tensor_is_a_clear_error() {
    let (path, _) = model_file("llama", "gemma", |w| {
        w.metadata("general.architecture", MetadataValue::String("gemma".into()));
    });
    let out = espalier(&["generate", "--prompt", "hi", "--max-tokens", "2"], &path);
    let err = stderr(&out);
    assert!(
        !out.status.success() && err.contains("gemma") && err.contains("architecture"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");

    let (path, _) = model_file("qwen2", "missing", |w| {
        w.remove_tensor("blk.1.ffn_up.weight");
    });
    let out = espalier(&["generate", "--prompt", "hi", "--max-tokens", "2"], &path);
    let err = stderr(&out);
    assert!(!out.status.success() && err.contains("blk.1.ffn_up.weight"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
