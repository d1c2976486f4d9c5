//! Writes a synthetic model in a real vocabulary (`espalier_model::synthetic`) and
//! prints its checksum: the file `scripts/synthetic/byo_golden.py` runs llama.cpp on.
//!
//! `cargo run --release -p espalier-model --example synthetic_model -- VOCAB.gguf qwen2|llama OUT.gguf`
//!
//! `qwen2.5-coder-1.5b-q4_k_m` writes Qwen2.5-Coder-1.5B's shape in random Q4_K_M blocks
//! (a 986 MB file; `scripts/gpu-bench.sh` times it), from the qwen2 vocabulary;
//! `smollm2-135m-q4_1` SmolLM2-135M's shape in random Q4_1 blocks (from SmolLM2's
//! vocabulary: the playground's model at its cost, where its 98 MB cannot travel);
//! `vocab` the vocabulary alone (a model's `tokenizer.*` keys, no tensors).

use espalier_model::synthetic::{checksum, model_from_vocab, vocab_only, SyntheticSpec};
use espalier_model::Gguf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [vocab, arch, out] = args.as_slice() else {
        return Err(
            "usage: synthetic_model VOCAB.gguf qwen2|llama|qwen2.5-coder-1.5b-q4_k_m|smollm2-135m-q4_1|vocab OUT.gguf"
                .into(),
        );
    };
    let spec = match arch.as_str() {
        "qwen2" => SyntheticSpec::qwen2(),
        "llama" => SyntheticSpec::llama_untied(),
        "qwen2.5-coder-1.5b-q4_k_m" => SyntheticSpec::qwen25_coder_1_5b_q4_k_m(),
        "smollm2-135m-q4_1" => SyntheticSpec::smollm2_135m_q4_1(),
        "vocab" => {
            let bytes = vocab_only(&Gguf::open(vocab)?).to_bytes();
            std::fs::write(out, &bytes)?;
            println!("{out} {} bytes (the vocabulary alone)", bytes.len());
            return Ok(());
        }
        other => {
            return Err(format!(
                "model {other}: qwen2, llama, qwen2.5-coder-1.5b-q4_k_m, smollm2-135m-q4_1 or vocab"
            )
            .into())
        }
    };
    let bytes = model_from_vocab(&Gguf::open(vocab)?, &spec)?.to_bytes();
    std::fs::write(out, &bytes)?;
    println!("{out} {} bytes checksum {}", bytes.len(), checksum(&bytes));
    Ok(())
}
