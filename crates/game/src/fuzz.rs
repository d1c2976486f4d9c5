//! The fuzz harness behind `espalier slua fuzz` and the fuzz tests: random walks
//! through the tree of parsers, each script checked again from scratch, translated,
//! and run for a number of turns in a fresh random game together with the effects
//! registered before it. Native only (it runs Lua). Each played game is also a
//! [`Case`] (seed and Lua sources), which the differential test replays in wasmoon.

use std::rc::Rc;
use std::time::{Duration, Instant};

use serde::Serialize;

use espalier_slua::api::Api;
use espalier_slua::check::check;
use espalier_slua::scope::Env;
use espalier_slua::translate::to_lua;
use espalier_slua::walker::{walk, Rng, WalkConfig};

use crate::native::Game;
use crate::status::EngineError;

/// Fuzz settings.
#[derive(Clone, Debug)]
pub struct FuzzConfig {
    /// Scripts to generate.
    pub scripts: usize,
    /// Game turns per script.
    pub turns: usize,
    /// Random seed.
    pub seed: u64,
    /// Check A1 on every segment regex.
    pub check_a1: bool,
    /// Wall-clock limit for one script's game (a longer run counts as non-terminating).
    pub time_limit: Duration,
}

/// What a fuzz run found; printed as the last line of `espalier slua fuzz`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FuzzStats {
    /// Scripts walked.
    pub scripts: usize,
    /// Walks that reached a finished script.
    pub finished: usize,
    /// Finished scripts the checker accepted again from scratch.
    pub type_ok: usize,
    /// Scripts translated and loaded by Lua.
    pub translated: usize,
    /// Games that raised a Lua error.
    pub runtime_errors: usize,
    /// Games stopped by a limit: time, instruction budget or memory.
    pub timeouts: usize,
    /// Walks that found no continuation.
    pub dead_ends: usize,
    /// Segment regexes that broke A1 (when checked).
    pub a1_failures: usize,
    /// Segments fed in all.
    pub segments: usize,
    /// Game turns played in all.
    pub turns_played: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The first few problems, for debugging.
    pub examples: Vec<String>,
}

/// One game of the fuzz: a seed and the Lua sources loaded in order (the effects
/// registered so far, then the new script).
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Case {
    /// The game's seed (below 2^53).
    pub seed: u64,
    /// Translated scripts, loaded in this order.
    pub sources: Vec<String>,
}

/// Plays `case` for `turns` turns natively; the outcome and the game's log.
pub fn play(
    case: &Case,
    turns: usize,
    time_limit: Duration,
) -> (Result<(), EngineError>, Vec<String>) {
    let mut game = match Game::new(case.seed) {
        Ok(g) => g,
        Err(e) => return (Err(e), Vec::new()),
    };
    let mut outcome = Ok(());
    for src in &case.sources {
        if let Err(e) = game.load(src) {
            outcome = Err(e);
            break;
        }
    }
    if outcome.is_ok() {
        outcome = game.run(turns, time_limit);
    }
    (outcome, game.log())
}

/// Runs the fuzz loop.
pub fn fuzz(api: &Api, cfg: &FuzzConfig) -> FuzzStats {
    fuzz_cases(api, cfg).0
}

/// Runs the fuzz loop and returns the games it played.
pub fn fuzz_cases(api: &Api, cfg: &FuzzConfig) -> (FuzzStats, Vec<Case>) {
    let start = Instant::now();
    let mut cases = Vec::new();
    let mut stats = FuzzStats { scripts: cfg.scripts, ..FuzzStats::default() };
    let mut rng = Rng::new(cfg.seed);
    // Effects registered so far (name, Lua source); the most recent few stay.
    let mut registry: Vec<(String, String)> = Vec::new();
    let wcfg = WalkConfig { check_a1: cfg.check_a1.then(Rc::default), ..WalkConfig::default() };
    let note = |stats: &mut FuzzStats, s: String| {
        if stats.examples.len() < 5 {
            stats.examples.push(s.chars().take(4000).collect());
        }
    };
    for k in 0..cfg.scripts {
        let env = Rc::new(Env::new(api.clone(), registry.iter().map(|(n, _)| n.clone()).collect()));
        let w = walk(env.clone(), &mut rng, &wcfg);
        stats.segments += w.segments;
        stats.a1_failures += w.a1_failures.len();
        if let Some(f) = w.a1_failures.first() {
            note(&mut stats, f.clone());
        }
        if w.dead_end {
            stats.dead_ends += 1;
            note(&mut stats, format!("dead end in script {k}:\n{}", w.text));
            continue;
        }
        if !w.finished {
            note(
                &mut stats,
                format!("script {k} unfinished after {} segments:\n{}", w.segments, w.text),
            );
            continue;
        }
        stats.finished += 1;
        let script = match check(env, &w.text) {
            Ok(s) => s,
            Err(e) => {
                note(&mut stats, format!("script {k} rejected by the checker at {e}:\n{}", w.text));
                continue;
            }
        };
        stats.type_ok += 1;
        let lua = to_lua(&script, api);
        let mut sources: Vec<String> = registry.iter().map(|(_, src)| src.clone()).collect();
        sources.push(lua.clone());
        let case = Case { seed: crate::seed53(rng.next_u64()), sources };
        let (outcome, _) = play(&case, cfg.turns, cfg.time_limit);
        match outcome {
            Ok(()) => {
                stats.translated += 1;
                stats.turns_played += cfg.turns;
            }
            Err(e @ (EngineError::Load(_) | EngineError::Host(_))) => {
                note(&mut stats, format!("script {k}: {e}\n{lua}"))
            }
            Err(e) if e.is_limit() => {
                stats.translated += 1;
                stats.timeouts += 1;
                note(&mut stats, format!("script {k}: {e}:\n{}", w.text));
            }
            Err(e) => {
                stats.translated += 1;
                stats.runtime_errors += 1;
                note(&mut stats, format!("script {k}: {e}\n{}\n--- lua ---\n{lua}", w.text));
            }
        }
        cases.push(case);
        // Effects register themselves for later scripts; the first few stay (later
        // ones may call earlier ones, so none is ever dropped).
        if script.kind == "effect" && registry.len() < 4 {
            registry.push((script.name.clone(), lua));
        }
    }
    stats.seconds = start.elapsed().as_secs_f64();
    (stats, cases)
}
