//! The real model and data the slow suites read: SmolLM2's GGUF (its tokenizer and
//! vocabulary) and HumanEval's problems from `../shared/data`.

use std::io::Read;

use espalier_constraint::Vocab;
use espalier_model::{Gguf, Tokenizer};

/// The model every real-model suite loads.
pub const MODEL: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/models/SmolLM2-135M-Instruct.Q4_1.gguf");
const HUMANEVAL: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/HumanEval.jsonl.gz");

/// [`MODEL`] opened (a panic that says how to fetch it when it is missing).
pub fn gguf() -> Gguf {
    Gguf::open(MODEL).unwrap_or_else(|e| panic!("{MODEL}: {e} (run scripts/fetch-model.sh)"))
}

/// The model's tokenizer.
pub fn tokenizer() -> Tokenizer {
    Tokenizer::from_gguf(&gguf()).unwrap()
}

/// The model's vocabulary.
pub fn vocab() -> Vocab {
    espalier_engine::vocab_of(&tokenizer())
}

/// HumanEval's problems, one JSON object each (a panic that says how to fetch the
/// data set when it is missing, see [`espalier_testkit::require`]).
pub fn humaneval() -> Vec<serde_json::Value> {
    let path = espalier_testkit::require(HUMANEVAL, "HumanEval (../shared/data)", None);
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
