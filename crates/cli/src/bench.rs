//! `espalier bench` (under construction).

use std::process::ExitCode;

/// Arguments of `espalier bench`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `espalier bench`.
pub fn run(_args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    Err("espalier bench is not built yet".into())
}
