//! `espalier slua ...`: sLua tools (the random-walk fuzzer, the vocabulary dump, the
//! API summary). `espalier check --lang slua` lives with the language
//! (`espalier_decode::languages::slua`).
//!
//! `espalier slua fuzz --scripts N --turns T --seed S` walks N random scripts through
//! the tree of parsers, checks, translates and runs each for T game turns, prints one
//! line per problem found and, as its last line, one JSON object with at least
//! `scripts`, `finished`, `type_ok`, `translated`, `runtime_errors`, `dead_ends`.
//! `espalier slua vocab-hex [--model GGUF]` prints the model's vocabulary for the
//! sLua mask benchmark (`crates/slua/examples/mask_speed.rs`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use espalier_decode::languages::slua::load_api;
use espalier_game::fuzz::{fuzz, FuzzConfig};

/// Arguments of `espalier slua`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Random scripts from the tree of parsers: check, translate, run in the game.
    Fuzz {
        /// Number of scripts.
        #[arg(long, default_value_t = 100)]
        scripts: usize,
        /// Game turns per script.
        #[arg(long, default_value_t = 100)]
        turns: usize,
        /// Random seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// API file (JSON); the bundled dungeon API when left out.
        #[arg(long)]
        api: Option<PathBuf>,
        /// Also check A1 on every segment regex (slower).
        #[arg(long)]
        check_a1: bool,
    },
    /// Print the model's vocabulary as hex bytes, one token a line (`special` for
    /// control tokens): the input of `cargo run --release -p espalier-slua
    /// --example mask_speed -- VOCAB.hex`.
    VocabHex {
        /// GGUF model file; the fetched SmolLM2 when left out.
        #[arg(long)]
        model: Option<PathBuf>,
    },
    /// Print the API summary used in prompts.
    Api {
        /// API file (JSON); the bundled dungeon API when left out.
        #[arg(long)]
        api: Option<PathBuf>,
    },
}

/// Runs `espalier slua`.
pub fn run(args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    match args.command {
        Command::Fuzz { scripts, turns, seed, api, check_a1 } => {
            let api = load_api(api.as_deref())?;
            let cfg =
                FuzzConfig { scripts, turns, seed, check_a1, time_limit: Duration::from_secs(20) };
            let stats = fuzz(&api, &cfg);
            for e in &stats.examples {
                println!("problem: {}", e.lines().next().unwrap_or(""));
            }
            let mut json = serde_json::to_value(&stats)?;
            if let Some(o) = json.as_object_mut() {
                o.remove("examples");
            }
            println!("{json}");
            let ok = stats.dead_ends == 0
                && stats.runtime_errors == 0
                && stats.timeouts == 0
                && stats.a1_failures == 0
                && stats.type_ok == stats.finished
                && stats.translated == stats.type_ok;
            Ok(if ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        Command::VocabHex { model } => {
            let path = espalier_engine::model_path(model.as_deref())?;
            let gguf = espalier_model::Gguf::open(&path)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let tokenizer = espalier_model::Tokenizer::from_gguf(&gguf)?;
            let special = tokenizer.special_ids();
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            for (id, bytes) in tokenizer.all_token_bytes().iter().enumerate() {
                if special.contains(&(id as u32)) || bytes.is_empty() {
                    writeln!(out, "special")?;
                } else {
                    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
                    writeln!(out, "{hex}")?;
                }
            }
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Api { api } => {
            print!("{}", load_api(api.as_deref())?.summary());
            Ok(ExitCode::SUCCESS)
        }
    }
}
