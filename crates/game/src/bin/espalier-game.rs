//! `espalier-game --seed N --turns T FILE...`: plays scripts natively (loaded in
//! order, effects first; a `.slua` file is checked and translated first, with the
//! effects before it registered) and prints the game's log, one line each, then
//! `outcome: ok` or `outcome: KIND: message` (exit 1 when the game stopped). The
//! browser tests compare the page's log with this one. `--emit-lua` prints
//! `{"prelude": ..., "sources": [...]}` (the Lua a host loads) instead of playing.

use std::process::ExitCode;
use std::time::Duration;

use std::rc::Rc;

use espalier_game::fuzz::{play, Case};
use espalier_slua::{check, translate, Api, Env};

fn usage() -> ExitCode {
    eprintln!("usage: espalier-game [--seed N] [--turns T] [--emit-lua] FILE.lua|FILE.slua...");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let (mut seed, mut turns, mut files, mut emit) = (1u64, 100usize, Vec::new(), false);
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
            "--emit-lua" => emit = true,
            _ if a.starts_with('-') => return usage(),
            _ => files.push(a),
        }
    }
    if files.is_empty() {
        return usage();
    }
    let api = Api::dungeon();
    let (mut sources, mut effects) = (Vec::new(), Vec::new());
    for f in &files {
        let text = match std::fs::read_to_string(f) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("espalier-game: {f}: {e}");
                return ExitCode::from(2);
            }
        };
        if !f.ends_with(".slua") {
            sources.push(text);
            continue;
        }
        match check(Rc::new(Env::new(api.clone(), effects.clone())), &text) {
            Ok(script) => {
                if script.kind == "effect" {
                    effects.push(script.name.clone());
                }
                sources.push(translate::to_lua(&script, &api));
            }
            Err(e) => {
                eprintln!(
                    "espalier-game: {f}: not valid sLua at byte {}: expected /{}/",
                    e.offset, e.expected
                );
                return ExitCode::from(2);
            }
        }
    }
    if emit {
        println!("{}", serde_json::json!({ "prelude": translate::PRELUDE, "sources": sources }));
        return ExitCode::SUCCESS;
    }
    let (outcome, log) =
        play(&Case { seed: espalier_game::seed53(seed), sources }, turns, Duration::from_secs(20));
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
