//! `espalier-lab`: the benchmarks and evaluations of Espalier (`bench mask | decode |
//! fim`, `eval humaneval | mbpp | humaneval-go | slua | fim`). `espalier bench ...` and
//! `espalier eval ...` run the same commands.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The `espalier-lab` command line.
#[derive(Parser)]
#[command(name = "espalier-lab", version, about = "Benchmarks and evaluations of Espalier")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Benchmarks (token masks, decoding, fill-in-the-middle masks).
    Bench(espalier_lab::bench::Args),
    /// Evaluate constrained generation on HumanEval, MBPP, HumanEval-X Go, sLua or
    /// the infilling sets.
    Eval(espalier_lab::eval::Args),
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Bench(args) => espalier_lab::bench::run(args),
        Command::Eval(args) => espalier_lab::run_eval(args),
    };
    espalier_engine::exit_code(result)
}
