//! Golden tokenizer tests: our tokenizer against llama.cpp's ids on 330 texts, and
//! round trips of the 164 HumanEval prompts. Needs the fetched model
//! (`scripts/fetch-model.sh`) and `../shared/` beside the checkout.

use espalier_model::{Gguf, Tokenizer};

const MODEL: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/models/SmolLM2-135M-Instruct.Q4_1.gguf");
const GOLDEN: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/golden/smollm2-tokenization.json");
const HUMANEVAL_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data");

fn tokenizer() -> Tokenizer {
    let gguf = Gguf::open(MODEL).expect("model missing: run scripts/fetch-model.sh");
    Tokenizer::from_gguf(&gguf).expect("tokenizer")
}

#[test]
fn matches_llama_cpp_on_golden_texts() {
    let tok = tokenizer();
    let golden: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(GOLDEN).expect("golden file")).unwrap();
    let cases = golden.as_array().expect("array of cases");
    assert_eq!(cases.len(), 330);
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let text = case["text"].as_str().unwrap();
        let want: Vec<u32> =
            case["ids"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
        let got = tok.encode(text).unwrap();
        if got != want {
            failures.push(format!("#{i} {text:?}\n  want {want:?}\n  got  {got:?}"));
        }
        // Raw bytes of the ids give back the text exactly.
        assert_eq!(tok.decode_bytes(&want).unwrap(), text.as_bytes(), "#{i} bytes round trip");
    }
    assert!(failures.is_empty(), "{} of 330 differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn special_tokens_and_ids() {
    let tok = tokenizer();
    assert_eq!(tok.vocab_size(), 49152);
    assert_eq!(tok.bos_id(), 1);
    assert_eq!(tok.eos_id(), 2);
    assert_eq!(tok.special_ids(), (0..=16).collect::<Vec<u32>>());
    assert_eq!(tok.token_bytes(2), b"<|im_end|>");
    assert!(tok.is_special(0) && !tok.is_special(17));
    assert_eq!(tok.token_bytes(216), b" ");
    assert!(tok.chat_template().unwrap().contains("<|im_start|>"));
    assert_eq!(tok.encode("<|im_start|>user\n").unwrap()[0], 1);
    assert!(tok.decode(&[49152]).is_err());
}

#[test]
fn humaneval_prompts_round_trip() {
    let tok = tokenizer();
    let prompts = humaneval_prompts();
    assert_eq!(prompts.len(), 164);
    for (name, prompt) in prompts {
        let ids = tok.encode(&prompt).unwrap();
        assert_eq!(tok.decode(&ids).unwrap(), prompt, "{name}");
    }
}

/// The `prompt` field of every HumanEval task (gzipped JSON lines).
fn humaneval_prompts() -> Vec<(String, String)> {
    use std::io::Read;
    let path = format!("{HUMANEVAL_DIR}/HumanEval.jsonl.gz");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file).read_to_string(&mut text).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["task_id"].as_str().unwrap_or("?").to_owned(),
                v["prompt"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}
