//! The guarantee, fuzzed: random walks through the tree of parsers never dead-end,
//! every regex met is A1, and every finished script type-checks again, translates,
//! and runs 100 turns of the game with no Lua error and within its time limit.
//! 200 scripts in CI; `ESPALIER_SLOW=1` runs BENCHMARKS.md's 1000 instead (one test, sized
//! by the gate, so nothing passes without running).

use std::time::Duration;

use espalier_game::fuzz::{fuzz, FuzzConfig};
use espalier_slua::Api;

fn run(scripts: usize, seed: u64) {
    let cfg = FuzzConfig {
        scripts,
        turns: 100,
        seed,
        check_a1: true,
        time_limit: Duration::from_secs(20),
    };
    let stats = fuzz(&Api::dungeon(), &cfg);
    eprintln!("{}", serde_json::to_string(&stats).unwrap());
    assert_eq!(stats.dead_ends, 0, "{:#?}", stats.examples);
    assert_eq!(stats.a1_failures, 0, "{:#?}", stats.examples);
    assert_eq!(stats.finished, scripts, "{:#?}", stats.examples);
    assert_eq!(stats.type_ok, scripts, "{:#?}", stats.examples);
    assert_eq!(stats.translated, scripts, "{:#?}", stats.examples);
    assert_eq!(stats.runtime_errors, 0, "{:#?}", stats.examples);
    assert_eq!(stats.timeouts, 0, "{:#?}", stats.examples);
}

/// 200 scripts (seed 2024); when slow, BENCHMARKS.md's 1000 (seed 7) instead.
#[test]
fn random_scripts_check_translate_and_run() {
    let (scripts, seed) = if espalier_testkit::slow() { (1000, 7) } else { (200, 2024) };
    run(scripts, seed);
}
