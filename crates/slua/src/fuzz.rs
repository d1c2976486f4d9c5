//! The fuzz harness behind `espalier slua fuzz` and the fuzz tests: random walks
//! through the tree of parsers, each script checked again from scratch, translated,
//! and run for a number of turns in a fresh random game together with the effects
//! registered before it. Native only (it runs Lua).

use std::rc::Rc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::api::Api;
use crate::check::check;
use crate::engine::{EngineError, Game};
use crate::scope::Env;
use crate::translate::to_lua;
use crate::walker::{walk, Rng, WalkConfig};

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
    /// Games that ran past the time limit.
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

/// Runs the fuzz loop.
pub fn fuzz(api: &Api, cfg: &FuzzConfig) -> FuzzStats {
    let start = Instant::now();
    let mut stats = FuzzStats { scripts: cfg.scripts, ..FuzzStats::default() };
    let mut rng = Rng::new(cfg.seed);
    // Effects registered so far (name, Lua source); the most recent few stay.
    let mut registry: Vec<(String, String)> = Vec::new();
    let wcfg = WalkConfig { check_a1: cfg.check_a1, ..WalkConfig::default() };
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
            note(&mut stats, format!("script {k} unfinished after {} segments:\n{}", w.segments, w.text));
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
        let mut game = match Game::new(rng.next_u64()) {
            Ok(g) => g,
            Err(e) => {
                note(&mut stats, format!("engine: {e}"));
                continue;
            }
        };
        let mut loaded = true;
        for (_, src) in &registry {
            if let Err(e) = game.load(src) {
                note(&mut stats, format!("registered effect does not load: {e}"));
                loaded = false;
            }
        }
        if let Err(e) = game.load(&lua) {
            note(&mut stats, format!("script {k}: {e}\n{lua}"));
            loaded = false;
        }
        if !loaded {
            continue;
        }
        stats.translated += 1;
        match game.run(cfg.turns, cfg.time_limit) {
            Ok(()) => stats.turns_played += cfg.turns,
            Err(EngineError::Timeout(h)) => {
                stats.timeouts += 1;
                note(&mut stats, format!("script {k} timed out in {h}:\n{}", w.text));
            }
            Err(e) => {
                stats.runtime_errors += 1;
                note(&mut stats, format!("script {k}: {e}\n{}\n--- lua ---\n{lua}", w.text));
            }
        }
        // Effects register themselves for later scripts; the first few stay (later
        // ones may call earlier ones, so none is ever dropped).
        if script.kind == "effect" && registry.len() < 4 {
            registry.push((script.name.clone(), lua));
        }
    }
    stats.seconds = start.elapsed().as_secs_f64();
    stats
}
