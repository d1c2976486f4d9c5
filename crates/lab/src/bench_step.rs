//! The model's decode step alone (`espalier bench decode`'s `step` figures): greedy steps
//! after the prompt, each timed in two parts: the host's time to record and submit the
//! step (the call to [`LlamaModel::forward_device`]: on a GPU the pass is submitted, not
//! waited for) and the time until its answer came back (the masked argmax on the device,
//! 4 bytes read). The first step is reported apart: on a GPU with the block kernels it
//! records the step that the others replay (`espalier_model`'s `gpu_replay.rs`).

use std::time::Instant;

use espalier_constraint::timing::median;
use espalier_decode::LanguageModel;
use espalier_engine::LlamaModel;

use crate::bench_clock::round3;

/// Runs `prompt` then `steps + 1` greedy steps on `model` (its cache emptied before and
/// after) and returns the figures as JSON: `steps`, `host_ms_median`, `host_ms_max`,
/// `answer_ms_median`, `first_step_ms`, `replay` (the cache's replay state after).
pub fn step_times(
    model: &mut LlamaModel,
    prompt: &[u32],
    steps: usize,
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    model.truncate(0);
    model.cached.clear();
    let n = model.vocab_size();
    let mut logits = model.forward_device(prompt)?;
    let (mut host, mut answer, mut first) = (Vec::new(), Vec::new(), 0.0);
    for step in 0..=steps {
        let next = logits.argmax(n, None, &[])?.ok_or("no finite logit")?;
        let start = Instant::now();
        logits = model.forward_device(&[next])?;
        let submitted = start.elapsed().as_secs_f64() * 1e3;
        logits.argmax(n, None, &[])?;
        let answered = start.elapsed().as_secs_f64() * 1e3 - submitted;
        if step == 0 {
            first = submitted + answered;
        } else {
            host.push(submitted);
            answer.push(answered);
        }
    }
    let replay = format!("{:?}", model.replay_state());
    model.truncate(0);
    Ok(serde_json::json!({
        "steps": steps,
        "host_ms_median": round3(median(&host)),
        "host_ms_max": round3(host.iter().cloned().fold(0.0, f64::max)),
        "answer_ms_median": round3(median(&answer)),
        "first_step_ms": round3(first),
        "replay": replay,
    }))
}
