//! Tokenizers of other code-model families against llama.cpp's own test vectors: the
//! vocabulary-only GGUFs `ggml-vocab-{qwen2,deepseek-coder,starcoder}.gguf` with their
//! `.inp` (texts separated by `\n__ggml_vocab_test__\n`) and `.out` (one line of ids per
//! text) from llama.cpp's `models/` (`bash scripts/fetch-vocabs.sh` places them in
//! `static/models/vocab/`; `scripts/setup.sh` runs it). Also the fill-in-the-middle
//! tokens found in each vocabulary.

use espalier_model::{FimTokens, Gguf, Tokenizer};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/models/vocab");

fn vocab(name: &str) -> (Tokenizer, Vec<(String, Vec<u32>)>) {
    let path = format!("{DIR}/ggml-vocab-{name}.gguf");
    let path = espalier_testkit::require(
        &path,
        "llama.cpp's vocabulary files",
        Some("bash scripts/fetch-vocabs.sh"),
    );
    let tok =
        Tokenizer::from_gguf(&Gguf::open(path).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let inp = std::fs::read_to_string(format!("{DIR}/ggml-vocab-{name}.gguf.inp")).unwrap();
    let out = std::fs::read_to_string(format!("{DIR}/ggml-vocab-{name}.gguf.out")).unwrap();
    // As llama.cpp's test-tokenizer-0 reads it: a separator at the very end starts no text.
    let mut texts: Vec<&str> = inp.split("\n__ggml_vocab_test__\n").collect();
    if inp.ends_with("\n__ggml_vocab_test__\n") {
        texts.pop();
    }
    let ids: Vec<Vec<u32>> =
        out.lines().map(|l| l.split_whitespace().map(|t| t.parse().unwrap()).collect()).collect();
    assert_eq!(texts.len(), ids.len(), "{name}: .inp and .out differ in length");
    (tok, texts.into_iter().map(str::to_owned).zip(ids).collect())
}

/// Every vector's ids, and the bytes of those ids give back the text.
fn check(name: &str) -> Tokenizer {
    let (tok, cases) = vocab(name);
    let mut failures = Vec::new();
    for (i, (text, want)) in cases.iter().enumerate() {
        let got = tok.encode(text).unwrap();
        if &got != want {
            failures.push(format!("#{i} {text:?}\n  want {want:?}\n  got  {got:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{name}: {} of {} differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    for (text, want) in &cases {
        // llama.cpp's vectors keep a text's bytes exactly, except where the
        // vocabulary's pre-tokenizer normalizes (none of these three does).
        assert_eq!(tok.decode_bytes(want).unwrap(), text.as_bytes(), "{name}: {text:?} round trip");
    }
    println!("{name}: {} texts equal llama.cpp's ids", cases.len());
    tok
}

#[test]
fn qwen2_matches_llama_cpp() {
    let tok = check("qwen2");
    assert_eq!(tok.vocab_size(), 151_936);
    // This vocabulary (Qwen1.5's) has no fill-in-the-middle tokens; Qwen2.5-Coder's has.
    assert_eq!(tok.fim_tokens(), None);
    assert!(
        tok.fim_prompt("x = ", "\n").is_none(),
        "no FIM tokens: the caller writes a chat prompt"
    );
}

#[test]
fn deepseek_coder_matches_llama_cpp() {
    let tok = check("deepseek-coder");
    assert_eq!(tok.fim_tokens(), Some(FimTokens { prefix: 32016, suffix: 32015, middle: 32017 }));
    // The infilling prompt: BOS (this vocabulary adds one), then prefix-suffix-middle
    // in that order around the two sides of the cursor.
    let (before, after) = ("def add(a, b):\n    return ", "\n\nprint(add(1, 2))\n");
    let mut want = vec![tok.bos_id(), 32016];
    want.extend(tok.encode(before).unwrap());
    want.push(32015);
    want.extend(tok.encode(after).unwrap());
    want.push(32017);
    assert!(tok.adds_bos());
    assert_eq!(tok.fim_prompt(before, after).unwrap().unwrap(), want);
}

#[test]
fn starcoder_matches_llama_cpp() {
    let tok = check("starcoder");
    assert_eq!(tok.fim_tokens(), Some(FimTokens { prefix: 1, suffix: 3, middle: 2 }));
}
