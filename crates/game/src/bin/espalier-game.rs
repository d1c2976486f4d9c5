//! `espalier-game --seed N --turns T FILE.lua...`: plays translated scripts natively
//! (loaded in order, effects first) and prints the game's log, one line each, then
//! `outcome: ok` or `outcome: KIND: message` (exit 1 when the game stopped). The
//! browser test compares the page's log with this one.

use std::process::ExitCode;
use std::time::Duration;

use espalier_game::fuzz::{play, Case};

fn usage() -> ExitCode {
    eprintln!("usage: espalier-game [--seed N] [--turns T] FILE.lua...");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let (mut seed, mut turns, mut files) = (1u64, 100usize, Vec::new());
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let value = |v: Option<String>| v.and_then(|v| v.parse::<u64>().ok());
        match a.as_str() {
            "--seed" => match value(args.next()) {
                Some(v) => seed = v,
                None => return usage(),
            },
            "--turns" => match value(args.next()) {
                Some(v) => turns = v as usize,
                None => return usage(),
            },
            _ if a.starts_with('-') => return usage(),
            _ => files.push(a),
        }
    }
    if files.is_empty() {
        return usage();
    }
    let mut sources = Vec::new();
    for f in &files {
        match std::fs::read_to_string(f) {
            Ok(s) => sources.push(s),
            Err(e) => {
                eprintln!("espalier-game: {f}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let (outcome, log) = play(&Case { seed: espalier_game::seed53(seed), sources }, turns, Duration::from_secs(20));
    for line in log {
        println!("{line}");
    }
    match outcome {
        Ok(()) => {
            println!("outcome: ok");
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("outcome: {}", e.outcome());
            ExitCode::from(1)
        }
    }
}
