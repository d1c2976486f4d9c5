//! `espalier bench mask | decode | fim`: the benchmarks of the lab, one file each
//! (`bench_mask.rs`: teacher-forced mask timing over real files, with the finishing
//! masks of `bench_finishing.rs`; `bench_decode.rs`: decode tokens/s per constraint
//! mode; `bench_fim.rs`: fill-in-the-middle requests). Each prints its figures as one
//! JSON object on the last line of stdout (each file's doc is its contract).

use std::process::ExitCode;

/// Arguments of `espalier bench`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// Time token masks, teacher-forced over real files.
    Mask(crate::bench_mask::MaskArgs),
    /// Decode tokens/s of each constraint mode against none, in one run.
    Decode(crate::bench_decode::DecodeArgs),
    /// Fill-in-the-middle: request preparation and per-token masks on real code.
    Fim(crate::bench_fim::FimArgs),
}

/// Runs `espalier bench`.
pub fn run(args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    match args.what {
        What::Mask(a) => crate::bench_mask::bench_mask(a),
        What::Decode(a) => crate::bench_decode::bench_decode(a),
        What::Fim(a) => crate::bench_fim::bench_fim(a),
    }
}
