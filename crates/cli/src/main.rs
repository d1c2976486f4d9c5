//! `espalier`: the command line of Espalier — check programs against a grammar or the
//! sLua type system, generate with the model under a constraint, benchmark masks and
//! evaluate on HumanEval / MBPP / sLua. Each subcommand lives in its own module.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod check;
mod fim;
mod generate;
mod slua;

/// The `espalier` command line.
#[derive(Parser)]
#[command(name = "espalier", version, about = "Constrained decoding for code models")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check source files: exit 0 when every file is valid, 1 otherwise.
    Check(check::Args),
    /// Generate text with the model, optionally under a constraint.
    Generate(generate::Args),
    /// Benchmarks (token masks, ...).
    Bench(espalier_lab::bench::Args),
    /// sLua tools (fuzzing the tree of parsers, ...).
    Slua(slua::Args),
    /// Evaluate constrained generation on HumanEval, MBPP or sLua prompts.
    Eval(espalier_lab::eval::Args),
}

/// The `--lang` values: the registry's languages, listed in `--help`.
pub use espalier_engine::lang_parser;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => check::run(args),
        Command::Generate(args) => match (args.fim_prefix.clone(), args.fim_suffix.clone()) {
            (Some(prefix), Some(suffix)) => fim::run_fim(args, prefix, suffix),
            _ => generate::run(args),
        },
        Command::Bench(args) => espalier_lab::bench::run(args),
        Command::Slua(args) => slua::run(args),
        Command::Eval(args) => espalier_lab::run_eval(args),
    };
    espalier_engine::exit_code(result)
}
