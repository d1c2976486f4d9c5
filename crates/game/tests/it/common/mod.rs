//! Plays games in wasmoon under node (`js/run-cases.js`), for the tests that compare
//! the two hosts.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use espalier_game::fuzz::Case;
use espalier_game::RULES;
use espalier_slua::translate::PRELUDE;

/// Turns a game plays.
pub const TURNS: usize = 100;
/// Wall-clock limit of one game.
pub const TIME_LIMIT: Duration = Duration::from_secs(20);

/// The workspace root (node_modules lives there).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One game as wasmoon played it.
#[derive(serde::Deserialize)]
#[allow(dead_code)]
pub struct JsCase {
    /// Index of the case.
    pub i: usize,
    /// `ok` or `kind: message`.
    pub outcome: String,
    /// The log, lines joined by newlines.
    pub log: String,
}

/// The runner's summary line.
#[derive(serde::Deserialize, Debug)]
#[allow(dead_code)]
pub struct JsSummary {
    pub cases: usize,
    pub turns: usize,
    pub turns_per_s: f64,
    pub errors: usize,
}

/// Plays `cases` in wasmoon; the per-case results (in order) and the summary.
pub fn play_in_wasmoon(cases: &[Case], tag: &str) -> (Vec<JsCase>, JsSummary) {
    let node = espalier_testkit::require("/usr/bin/node", "node (Debian's nodejs)", None);
    espalier_testkit::require(
        root().join("node_modules/wasmoon/package.json"),
        "wasmoon (npm)",
        None,
    );
    let dir = std::env::temp_dir().join(format!("espalier-game-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("cases.json");
    let output = dir.join("out.jsonl");
    let doc = serde_json::json!({ "rules": RULES, "prelude": PRELUDE, "turns": TURNS, "time_limit_ms": TIME_LIMIT.as_millis() as u64, "cases": cases });
    std::fs::write(&input, serde_json::to_vec(&doc).unwrap()).unwrap();
    let out = Command::new(node)
        .current_dir(root())
        .arg("crates/game/js/run-cases.js")
        .arg(&input)
        .arg(&output)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "node run-cases.js failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: JsSummary =
        serde_json::from_slice(out.stdout.trim_ascii()).expect("a summary line");
    let results = BufReader::new(std::fs::File::open(&output).unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    std::fs::remove_dir_all(&dir).ok();
    (results, summary)
}
