//! `espalier generate` (under construction).

use std::process::ExitCode;

/// Arguments of `espalier generate`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `espalier generate`.
pub fn run(_args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    Err("espalier generate is not built yet".into())
}
