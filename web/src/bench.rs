//! The in-browser model benchmark (`scripts/bench-browser.sh` sends
//! [`crate::protocol::ToWorker::Bench`]): the model alone, on the worker's engine, with
//! no constraint and no sampler: the prompt's ids in one pass, then greedy tokens (the
//! arg max, chosen on the device: on WebGPU only the id is read back), each fed back in
//! its own pass, end of sequence or not, so every run does the same work as the
//! reference engine it is compared with.

use crate::{engine::Engine, protocol::BenchResult, yield_now::now_ms};

/// Runs `prompt` and `tokens` greedy tokens; times the prompt's pass and the tokens'.
pub async fn run(engine: &mut Engine, prompt: &str, tokens: usize) -> Result<BenchResult, String> {
    let prompt_ids = engine
        .tokenizer
        .encode(prompt)
        .map_err(|e| format!("could not tokenize the prompt: {e}"))?;
    if prompt_ids.is_empty() {
        return Err("the prompt has no tokens".into());
    }
    let none = || "the model returned no finite logit".to_owned();
    let t0 = now_ms();
    let mut next = engine.greedy(0, &prompt_ids).await?.ok_or_else(none)?;
    let prefill_ms = now_ms() - t0;
    let mut generated_ids = Vec::with_capacity(tokens);
    let t1 = now_ms();
    for _ in 0..tokens {
        generated_ids.push(next);
        let keep = prompt_ids.len() + generated_ids.len() - 1;
        next = engine.greedy(keep, &[next]).await?.ok_or_else(none)?;
    }
    let decode_ms = now_ms() - t1;
    let text =
        engine.tokenizer.decode(&generated_ids).unwrap_or_else(|e| format!("(not decodable: {e})"));
    Ok(BenchResult { prompt_ids, generated_ids, text, prefill_ms, decode_ms })
}
