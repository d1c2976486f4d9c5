//! `espalier eval` (under construction).

use std::process::ExitCode;

/// Arguments of `espalier eval`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `espalier eval`.
pub fn run(_args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    Err("espalier eval is not built yet".into())
}
