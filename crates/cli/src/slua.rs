//! `espalier slua` (under construction).

use std::process::ExitCode;

/// Arguments of `espalier slua`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `espalier slua`.
pub fn run(_args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    Err("espalier slua is not built yet".into())
}
