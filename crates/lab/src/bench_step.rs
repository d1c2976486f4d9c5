//! The model's decode step alone (`espalier bench decode`'s `step` figures): greedy steps
//! after the prompt, unconstrained, each timed in two parts: the host's time to record
//! the step, or replay a recorded one (the call to [`LlamaModel::forward_device`]; since
//! stop 50 the pass is not submitted there: an unconstrained step sends it with the
//! draw's read) and the time until its answer came back (the submit, the masked argmax
//! on the device, 4 bytes read). The first step is reported apart: on a GPU with the
//! block kernels it records the step that the others replay (`espalier_model`'s
//! `gpu_replay.rs`).
//!
//! The host's cost is also taken on CPU clocks (`host_cpu_ms_*`, [`HostClock`]: this
//! thread's and cubecl's device threads', over the whole step: enqueueing, recording or
//! replaying, submitting, the argmax and its read): on a CPU adapter (lavapipe) the
//! "device" runs on the same cores, so wall times include waiting for a core (Linux only;
//! null elsewhere).

use std::time::Instant;

use espalier_constraint::timing::{median, thread_cpu_ns};
use espalier_decode::LanguageModel;
use espalier_engine::LlamaModel;

use crate::bench_clock::round3;
use crate::host_clock::HostClock;

/// Runs `prompt` then `steps + 1` greedy steps on `model` (its cache emptied before and
/// after) and returns the figures as JSON: `steps`, `host_ms_median`, `host_ms_max`,
/// `host_cpu_ms_median`, `host_cpu_ms_max`, `host_cpu_caller_ms_median` (this thread's
/// part), `host_threads`, `answer_ms_median`, `first_step_ms`, `replay`
/// (the cache's replay state after).
pub fn step_times(
    model: &mut LlamaModel,
    prompt: &[u32],
    steps: usize,
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    model.truncate(0);
    model.cached.clear();
    let n = model.vocab_size();
    let mut logits = model.forward_device(prompt)?;
    let clock = HostClock::of_this_thread_and_devices();
    let (mut host, mut answer, mut first) = (Vec::new(), Vec::new(), 0.0);
    let (mut host_cpu, mut caller_cpu) = (Vec::new(), Vec::new());
    for step in 0..=steps {
        let next = logits.argmax(n, None, &[])?.ok_or("no finite logit")?;
        let cpu_start = clock.as_ref().map(HostClock::now_ns);
        let caller_start = thread_cpu_ns();
        let start = Instant::now();
        logits = model.forward_device(&[next])?;
        let submitted = start.elapsed().as_secs_f64() * 1e3;
        logits.argmax(n, None, &[])?;
        let answered = start.elapsed().as_secs_f64() * 1e3 - submitted;
        let ms = |(a, b): (u64, u64)| b.saturating_sub(a) as f64 / 1e6;
        let on_cpu = cpu_start.zip(clock.as_ref().map(HostClock::now_ns)).map(ms);
        let on_caller = caller_start.zip(thread_cpu_ns()).map(ms);
        if step == 0 {
            first = submitted + answered;
        } else {
            host.push(submitted);
            host_cpu.extend(on_cpu);
            caller_cpu.extend(on_caller);
            answer.push(answered);
        }
    }
    let replay = format!("{:?}", model.replay_state());
    model.truncate(0);
    Ok(serde_json::json!({
        "steps": steps,
        "host_ms_median": round3(median(&host)),
        "host_ms_max": round3(max(&host)),
        "host_cpu_ms_median": median_of(&host_cpu),
        "host_cpu_ms_max": (!host_cpu.is_empty()).then(|| round3(max(&host_cpu))),
        "host_cpu_caller_ms_median": median_of(&caller_cpu),
        "answer_ms_median": round3(median(&answer)),
        "first_step_ms": round3(first),
        "replay": replay,
        "host_threads": clock.map(|c| c.threads()),
    }))
}

/// The rounded median of `samples`, or `None` (JSON null) when there are none.
fn median_of(samples: &[f64]) -> Option<f64> {
    (!samples.is_empty()).then(|| round3(median(samples)))
}

/// The largest of `samples` (0 for none).
fn max(samples: &[f64]) -> f64 {
    samples.iter().cloned().fold(0.0, f64::max)
}
