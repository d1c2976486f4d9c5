//! `espalier check` (under construction).

use std::process::ExitCode;

/// Arguments of `espalier check`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `espalier check`.
pub fn run(_args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    Err("espalier check is not built yet".into())
}
