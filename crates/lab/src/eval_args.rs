//! [`Args`]: the command line of `espalier eval` (shared by the problem benchmarks,
//! sLua's and the infilling sets), and the generation settings it makes.

use std::path::PathBuf;

use espalier_decode::{GenerateConfig, Mode, SamplingConfig, Task};
use espalier_engine::{ModelArgs, WrapUpArgs};

/// Arguments of `espalier eval`.
#[derive(clap::Args)]
pub struct Args {
    /// The benchmark, one of a language of the registry: humaneval, mbpp (Python),
    /// slua, ...
    pub dataset: String,
    /// Constraint modes, comma-separated (e.g. `none,mask,rejection`), run in turn
    /// (`eval fim` also takes `checked`, see `crate::eval_fim`).
    #[arg(long = "mode", value_delimiter = ',', default_value = "mask")]
    pub mode_names: Vec<String>,
    /// The parsed `--mode` (filled by [`run`]).
    #[arg(skip)]
    pub mode: Vec<Mode>,
    /// Evaluate only the first N problems (after --offset).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Skip the first N problems.
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// Write per-sample records (JSON lines) here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Samples per problem (pass@1 is averaged over them).
    #[arg(long, default_value_t = 1)]
    pub samples: usize,
    /// Sampling temperature (0: greedy).
    #[arg(long, default_value_t = 0.0)]
    pub temperature: f32,
    /// Nucleus mass when sampling.
    #[arg(long, default_value_t = 0.95)]
    pub top_p: f32,
    /// Seed of the first sample (sample i uses seed + i).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Token budget per completion.
    #[arg(long, default_value_t = 300)]
    pub max_tokens: usize,
    /// Seconds allowed to each test run.
    #[arg(long, default_value_t = 10)]
    pub timeout: u64,
    /// The data file (default: the benchmark's file in ../shared/data, e.g.
    /// HumanEval.jsonl.gz or mxeval-mbpp_release_v1.jsonl).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// The interpreter or tool the language's oracle runs for checks (Python: default
    /// /usr/bin/python3.11; Go: the `go` command, default /usr/bin/go, with `gofmt`
    /// beside it).
    #[arg(long)]
    pub python: Option<PathBuf>,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub wrap_up: WrapUpArgs,
    /// `eval fim`: the infilling set, singleline, randomspan, stack-boundary or
    /// stack-randspan (`crate::eval_fim`).
    #[arg(long)]
    pub set: Option<String>,
}

/// The generation settings of `--temperature`, `--top-p`, `--max-tokens` and the
/// wrap-up flags, with the task's own (stop strings, budget) applied.
pub(crate) fn generate_config(args: &Args, task: &Task, seed: u64) -> GenerateConfig {
    task.configure(
        GenerateConfig {
            sampling: SamplingConfig {
                temperature: args.temperature,
                top_k: 0,
                top_p: if args.temperature > 0.0 { args.top_p } else { 1.0 },
                seed,
            },
            max_tokens: args.max_tokens,
            ..GenerateConfig::default()
        }
        .with_wrap_up(args.wrap_up.wrap_up, args.wrap_up.no_wrap_up),
    )
}
