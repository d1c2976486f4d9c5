//! What the constraint crate's examples share: the SmolLM2 tokenizer and vocabulary
//! (the model file `scripts/fetch-model.sh` fetches), and `main`'s error exit.

#![allow(dead_code)] // not every example uses every helper

use espalier_constraint::Vocab;
use espalier_model::{Gguf, Tokenizer};

/// The model file the set-up step fetched.
pub const MODEL: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/models/SmolLM2-135M-Instruct.Q4_1.gguf");

/// An example's result.
pub type Outcome = Result<(), Box<dyn std::error::Error>>;

/// The SmolLM2 tokenizer, and the vocabulary built from its raw token bytes.
pub fn smollm2() -> Result<(Tokenizer, Vocab), Box<dyn std::error::Error>> {
    let gguf =
        Gguf::open(MODEL).map_err(|e| format!("{MODEL}: {e} (run scripts/fetch-model.sh)"))?;
    let tok = Tokenizer::from_gguf(&gguf)?;
    let vocab = Vocab::new(tok.all_token_bytes().to_vec(), &tok.special_ids(), tok.eos_id());
    Ok((tok, vocab))
}

/// Runs the example `name`: an error is printed after its name, and the process exits
/// with status 2.
pub fn main_of(name: &str, run: fn() -> Outcome) {
    if let Err(e) = run() {
        eprintln!("{name}: {e}");
        std::process::exit(2);
    }
}
