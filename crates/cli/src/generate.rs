//! `espalier generate`: run SmolLM2 on a prompt, optionally under a constraint, and
//! stream the text. Stdout carries only the generated text (or, with `--json`, one
//! JSON object with `ids`, `text`, `prefill_tps`, `decode_tps`); progress and speed go
//! to stderr. The model is opened and the task prepared by `espalier_engine`.

use std::path::PathBuf;
use std::process::ExitCode;

use espalier_decode::{
    Framing, GenerateConfig, Kits, Lang, Mode, SamplingConfig, StopReason, Task,
};
use espalier_engine::{generate, prompt_ids, ModelArgs, WrapUpArgs, STORE_DIR};

/// Arguments of `espalier generate`.
#[derive(clap::Args)]
pub struct Args {
    /// The prompt. Without `--lang` it is the user message of a chat (the GGUF's chat
    /// template); with `--lang python` it is code to continue; with `--lang slua` it is
    /// the task, asked with the language document and API in the user message.
    #[arg(long, required_unless_present = "fim_prefix", default_value = "")]
    pub prompt: String,
    /// Feed the prompt as is, without the chat template (plain completion).
    #[arg(long)]
    pub raw: bool,
    /// Token budget.
    #[arg(long, default_value_t = 128)]
    pub max_tokens: usize,
    /// Sampling temperature; 0 is greedy.
    #[arg(long, default_value_t = 0.0)]
    pub temperature: f32,
    /// Keep the k most likely tokens (0: all).
    #[arg(long, default_value_t = 0)]
    pub top_k: usize,
    /// Nucleus sampling mass (1: off).
    #[arg(long, default_value_t = 1.0)]
    pub top_p: f32,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print one JSON object instead of the text.
    #[arg(long)]
    pub json: bool,
    /// Constrain the output to a language of the registry.
    #[arg(long, value_parser = crate::lang_parser())]
    pub lang: Option<Lang>,
    /// Constraint mode: none, mask, rejection, syncode, names (Python: a name read must be bound) (default: mask with --lang, none without).
    #[arg(long)]
    pub mode: Option<Mode>,
    /// Write the per-step trace as JSON lines to this file.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// For `--lang slua`: the kind of script, `talent` or `effect`.
    #[arg(long, default_value = "talent")]
    pub kind: String,
    /// Extra stop strings (repeatable).
    #[arg(long = "stop")]
    pub stop: Vec<String>,
    #[command(flatten)]
    pub wrap_up: WrapUpArgs,
    /// Fill in the middle (Python): the code before the cursor (`crate::fim`).
    #[arg(long, requires = "fim_suffix")]
    pub fim_prefix: Option<PathBuf>,
    /// Fill in the middle: the code after the cursor.
    #[arg(long, requires = "fim_prefix")]
    pub fim_suffix: Option<PathBuf>,
    /// Run the generation once, unmeasured, before the one reported: a GPU backend
    /// compiles each kernel at its first launch (0.48 s for SmolLM2's prompt and 0.19 s
    /// for its first step on CUDA, on 2 cores), which the reported speeds then leave out.
    #[arg(long, conflicts_with = "fim_prefix")]
    pub warm_up: bool,
}

impl Args {
    /// The sampler's settings of the command line.
    pub fn sampling(&self) -> SamplingConfig {
        SamplingConfig {
            temperature: self.temperature,
            top_k: self.top_k,
            top_p: self.top_p,
            seed: self.seed,
        }
    }
}

/// Runs `espalier generate`.
pub fn run_generate(args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let mode = args.mode.unwrap_or(if args.lang.is_some() { Mode::Mask } else { Mode::None });
    let mut task = Task::new(args.lang, mode, args.prompt.clone()).kind(args.kind.clone());
    if args.raw && args.lang.is_none() {
        task = task.framing(Framing::Raw);
    }
    if let Some(lang) = args.lang {
        lang.check_mode(mode)?;
    }
    let mut loaded = args.model.load()?;
    eprintln!("model loaded ({} backend)", loaded.backend.name());

    let config = task.configure(
        GenerateConfig {
            sampling: args.sampling(),
            max_tokens: args.max_tokens,
            stop_strings: args.stop.clone(),
            trace: args.trace.is_some(),
            ..GenerateConfig::default()
        }
        .with_wrap_up(args.wrap_up.wrap_up, args.wrap_up.no_wrap_up),
    );
    let mut kits = Kits::new(loaded.vocab.clone()).with_store_dir(STORE_DIR);
    let ids = prompt_ids(&loaded.tokenizer, &task)?.ids;
    if args.warm_up {
        let constraint = task.constraint(&mut kits)?;
        generate(&mut loaded, constraint, &ids, config.clone(), None, false)?;
        // The measured run starts from an empty cache: its prompt pass is measured too.
        loaded.model.cached.clear();
        eprintln!("warm-up run done");
    }
    let constraint = task.constraint(&mut kits)?;
    let (generator, timing) =
        generate(&mut loaded, constraint, &ids, config, args.trace.as_deref(), !args.json)?;

    let stop = generator.stop_reason().cloned().unwrap_or(StopReason::MaxTokens);
    if args.json {
        let out = serde_json::json!({
            "ids": generator.tokens(),
            "text": generator.text(),
            "prefill_tps": timing.prefill_tps(),
            "decode_tps": timing.decode_tps(),
            "prefill_tokens": timing.prefill_tokens,
            "weights": loaded.model.weight_format().name(),
            "decode_tokens": timing.decode_tokens,
            "stop": stop,
            "mode": mode,
            "stats": generator.stats(),
            "warm_up": args.warm_up,
        });
        println!("{out}");
    }
    eprintln!(
        "prefill: {} tokens, {:.1} tokens/s; decode: {} tokens, {:.1} tokens/s; stop: {}",
        timing.prefill_tokens,
        timing.prefill_tps(),
        timing.decode_tokens,
        timing.decode_tps(),
        stop.name()
    );
    if let StopReason::Repetition { period, span } = stop {
        eprintln!("stopped by the repetition guard: the last {span} tokens repeat with a period of {period}");
    }
    if let Some(l) = &generator.stats().loop_detected {
        eprintln!(
            "the repetition guard found a loop ({}): wrapped up instead of stopping",
            l.name()
        );
    }
    if let Some(step) = generator.stats().wrap_up_from {
        eprintln!(
            "wrap-up: in force from step {step}, narrowed the mask at {} steps",
            generator.stats().wrap_up_steps
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Entry point used by `main.rs`.
pub fn run(args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    run_generate(args)
}
