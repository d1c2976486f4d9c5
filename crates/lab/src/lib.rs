//! espalier-lab: the benchmarks and evaluations of Espalier, apart from the product.
//! The product (the `espalier` CLI's `generate` and `check`, the playground, the Python
//! package) never links what lives here: the problem sets, the oracles that judge
//! completions (CPython, `gofmt -e` and `go test`, the sLua game on a Lua VM) and the
//! measurement harnesses.
//!
//! - [`harness`]: problem sets ([`harness::load_problems`]), the [`harness::Oracle`] of
//!   each language that has one ([`harness::oracle_of`]), the sLua game evaluation and
//!   the report types.
//! - [`bench`]: `espalier-lab bench mask | decode | fim` (token masks, decoding speed,
//!   fill-in-the-middle masks; finishing costs inside `mask`).
//! - [`eval`]: `espalier-lab eval BENCHMARK` (humaneval, mbpp, humaneval-go, slua, fim).
//!
//! The `espalier` CLI keeps `espalier bench ...` and `espalier eval ...` as aliases of
//! the same commands ([`bench::run`], [`run_eval`]).

pub mod bench;
mod bench_clock;
mod bench_decode;
mod bench_fim;
mod bench_finishing;
mod bench_mask;
mod bench_step;
pub mod eval;
mod eval_args;
mod eval_fim;
mod eval_output;
mod eval_slua;
mod fim_sets;
pub mod harness;
mod host_clock;

use std::process::ExitCode;

/// The `--lang` values: the registry's languages, listed in `--help`.
pub use espalier_engine::lang_parser;

/// Runs `eval`: the infilling sets (`eval fim`) or a benchmark of the language registry.
pub fn run_eval(args: eval::Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    if args.dataset == "fim" {
        eval_fim::run_eval_fim(args)
    } else {
        eval::run(args)
    }
}
