//! Writes a synthetic model in a real vocabulary (`espalier_model::synthetic`) and
//! prints its checksum: the file `scripts/synthetic/byo_golden.py` runs llama.cpp on.
//!
//! `cargo run --release -p espalier-model --example synthetic_model -- VOCAB.gguf qwen2|llama OUT.gguf`

use espalier_model::synthetic::{checksum, model_from_vocab, SyntheticSpec};
use espalier_model::Gguf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [vocab, arch, out] = args.as_slice() else {
        return Err("usage: synthetic_model VOCAB.gguf qwen2|llama OUT.gguf".into());
    };
    let spec = match arch.as_str() {
        "qwen2" => SyntheticSpec::qwen2(),
        "llama" => SyntheticSpec::llama_untied(),
        other => return Err(format!("architecture {other}: qwen2 or llama").into()),
    };
    let bytes = model_from_vocab(&Gguf::open(vocab)?, &spec)?.to_bytes();
    std::fs::write(out, &bytes)?;
    println!("{out} {} bytes checksum {}", bytes.len(), checksum(&bytes));
    Ok(())
}
