//! `espalier bench decode --lang LANG --modes none,mask,rejection`: what a language's
//! constraint costs the decode loop, measured in one run on one machine.
//!
//! The model is loaded once and the prompt prefilled once (later generations keep the
//! prompt in the KV cache), then every round generates `--tokens` greedy tokens in
//! each mode, one after another, with the mode order rotated from round to round so
//! that a drifting machine load does not favour a mode. Stop strings and the
//! repetition guard are off, so every mode decodes the same number of tokens from the
//! same prompt (a constrained generation may still end earlier at an allowed EOS).
//!
//! Contract: the last line of stdout is one JSON object with `lang`, `rounds`,
//! `tokens`, `load_avg_1m` (also `backend` and `weights`, the weight format), and `modes`: per mode the median decode tokens/s over the
//! rounds (`decode_tps`), `vs_none` (the median over rounds of the round's ratio to
//! `none`), the mean milliseconds per token in the model, the constraint and the
//! sampler, and the per-round tokens/s; `step`: the model's decode step alone
//! (`bench_step.rs`: the host's milliseconds to record and submit a step, the wait for its
//! answer, the first step apart). One line per generation goes to stderr.

use std::process::ExitCode;

use espalier_constraint::timing::median;
use espalier_decode::{
    GenerateConfig, Kits, Lang, LangConstraint, Mode, SamplingConfig, Task, Unconstrained,
};

use espalier_engine::{chat_of, generate, Loaded, ModelArgs, STORE_DIR};

use crate::bench_clock::{load_avg_1m, round3};

/// Steps of the model's decode step timed alone (`step`).
const STEPS_ALONE: usize = 16;

/// Arguments of `espalier bench decode`.
#[derive(clap::Args)]
pub struct DecodeArgs {
    /// The language whose constraint is timed.
    #[arg(long, default_value = "python", value_parser = crate::lang_parser())]
    lang: Lang,
    /// Modes to compare, comma-separated; `none` is the baseline of the ratios.
    #[arg(long, value_delimiter = ',', default_value = "none,mask,rejection")]
    modes: Vec<Mode>,
    /// Rounds (every mode once per round).
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Tokens generated per generation.
    #[arg(long, default_value_t = 64)]
    tokens: usize,
    /// Python: the code to continue; sLua: the task (default: the language's sample
    /// request).
    #[arg(long)]
    prompt: Option<String>,
    /// For `--lang slua`: `talent` or `effect`.
    #[arg(long, default_value = "talent")]
    kind: String,
    #[command(flatten)]
    model: ModelArgs,
}

/// One generation's figures.
struct Run {
    tps: f64,
    tokens: usize,
    model_s: f64,
    constraint_s: f64,
    sample_s: f64,
}

/// Runs `espalier bench decode`.
pub fn bench_decode(a: DecodeArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    if a.rounds == 0 || a.tokens == 0 || a.modes.is_empty() {
        return Err("--rounds, --tokens and --modes must be non-empty".into());
    }
    for &mode in &a.modes {
        a.lang.check_mode(mode)?;
    }
    let mut loaded = a.model.load()?;
    let request =
        a.prompt.clone().unwrap_or_else(|| a.lang.prompting().sample_request().to_string());
    let bench = Bench { a: &a, request };
    let text = bench.task(Mode::None).prompt_with(&chat_of(&loaded.tokenizer))?;
    let mut kits = Kits::new(loaded.vocab.clone()).with_store_dir(STORE_DIR);
    // Builds the kits (and a SynCode store) now, and refuses a prompt that is not a
    // valid prefix before any round.
    for &mode in &a.modes {
        bench.task(mode).constraint(&mut kits)?;
    }
    let prompt_ids = loaded.tokenizer.encode_prompt(&text)?;
    eprintln!(
        "bench decode: {} on {}, prompt {} tokens, {} rounds x {:?}, {} tokens each",
        a.lang.name(),
        loaded.backend.name(),
        prompt_ids.len(),
        a.rounds,
        a.modes.iter().map(|m| m.name()).collect::<Vec<_>>(),
        a.tokens
    );
    // Warm-up: prefill the prompt into the cache, so that no round pays for it.
    let warm = GenerateConfig { max_tokens: 1, ..GenerateConfig::default() };
    generate(&mut loaded, LangConstraint::None(Unconstrained), &prompt_ids, warm, None, false)?;
    let runs = bench.rounds(&mut loaded, &mut kits, &prompt_ids)?;
    // A fixed count: two runs' counted work (scripts/check-gpu-lavapipe.sh) differs only
    // in the rounds' tokens.
    let step = crate::bench_step::step_times(&mut loaded.model, &prompt_ids, STEPS_ALONE)?;
    eprintln!("model step alone: {step}");
    let summary = serde_json::json!({
        "lang": a.lang.name(),
        "backend": loaded.backend.name(),
        "weights": loaded.model.weight_format().name(),
        "prompt_tokens": prompt_ids.len(),
        "rounds": a.rounds,
        "tokens": a.tokens,
        "load_avg_1m": load_avg_1m(),
        "modes": modes_json(&a.modes, &runs),
        "step": step,
    });
    println!("{summary}");
    Ok(ExitCode::SUCCESS)
}

/// The arguments and the request every generation continues.
struct Bench<'a> {
    a: &'a DecodeArgs,
    request: String,
}

impl Bench<'_> {
    /// The task of one generation in `mode`.
    fn task(&self, mode: Mode) -> Task {
        Task::new(Some(self.a.lang), mode, self.request.clone()).kind(self.a.kind.clone())
    }

    /// Every round: each mode once, the order rotated from round to round; the runs
    /// per mode (in `--modes` order).
    fn rounds(
        &self,
        loaded: &mut Loaded,
        kits: &mut Kits,
        prompt_ids: &[u32],
    ) -> Result<Vec<Vec<Run>>, Box<dyn std::error::Error>> {
        let modes = &self.a.modes;
        let mut runs: Vec<Vec<Run>> = (0..modes.len()).map(|_| Vec::new()).collect();
        for round in 0..self.a.rounds {
            for k in 0..modes.len() {
                let m = (round + k) % modes.len();
                let run = self.generation(loaded, kits, prompt_ids, modes[m])?;
                eprintln!(
                    "round {round} {}: {} tokens, {:.1} tok/s (model {:.2} ms, constraint {:.3} ms, sampler {:.3} ms per token)",
                    modes[m],
                    run.tokens,
                    run.tps,
                    per_token_ms(run.model_s, run.tokens),
                    per_token_ms(run.constraint_s, run.tokens),
                    per_token_ms(run.sample_s, run.tokens)
                );
                runs[m].push(run);
            }
        }
        Ok(runs)
    }

    /// One greedy generation of `--tokens` tokens in `mode`.
    fn generation(
        &self,
        loaded: &mut Loaded,
        kits: &mut Kits,
        prompt_ids: &[u32],
        mode: Mode,
    ) -> Result<Run, Box<dyn std::error::Error>> {
        let t = self.task(mode);
        let constraint = t.constraint(kits)?;
        // No stop strings: every mode decodes the same number of tokens.
        let config = GenerateConfig {
            stop_strings: Vec::new(),
            ..t.configure(GenerateConfig {
                sampling: SamplingConfig { temperature: 0.0, top_k: 0, top_p: 1.0, seed: 0 },
                max_tokens: self.a.tokens,
                repetition: None,
                ..GenerateConfig::default()
            })
        };
        let (g, timing) = generate(loaded, constraint, prompt_ids, config, None, false)?;
        let s = g.stats();
        Ok(Run {
            tps: timing.decode_tps(),
            tokens: timing.decode_tokens,
            model_s: s.model_s,
            constraint_s: s.constraint_s,
            sample_s: s.sample_s,
        })
    }
}

/// Per mode: the median tokens/s, its ratio to `none`, the time per token in each
/// part, the rounds' tokens/s.
fn modes_json(modes: &[Mode], runs: &[Vec<Run>]) -> serde_json::Map<String, serde_json::Value> {
    let none = modes.iter().position(|&m| m == Mode::None);
    modes
        .iter()
        .zip(runs)
        .map(|(mode, rs)| {
            let tps: Vec<f64> = rs.iter().map(|r| r.tps).collect();
            let tokens: usize = rs.iter().map(|r| r.tokens).sum();
            let vs_none = none.map(|n| {
                let ratios: Vec<f64> =
                    rs.iter().zip(&runs[n]).map(|(r, b)| r.tps / b.tps).collect();
                round3(median(&ratios))
            });
            let ms =
                |part: fn(&Run) -> f64| round3(per_token_ms(rs.iter().map(part).sum(), tokens));
            let v = serde_json::json!({
                "decode_tps": round3(median(&tps)),
                "vs_none": vs_none,
                "tokens": tokens,
                "model_ms_per_token": ms(|r| r.model_s),
                "constraint_ms_per_token": ms(|r| r.constraint_s),
                "sample_ms_per_token": ms(|r| r.sample_s),
                "rounds_tps": tps.iter().map(|&t| round3(t)).collect::<Vec<_>>(),
            });
            (mode.name().to_string(), v)
        })
        .collect()
}

fn per_token_ms(secs: f64, tokens: usize) -> f64 {
    if tokens == 0 {
        0.0
    } else {
        secs * 1e3 / tokens as f64
    }
}
