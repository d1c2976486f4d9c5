//! Hostile hand-written Lua (not sLua: raw Lua a checker would refuse) is stopped
//! cleanly in both VMs: infinite loops, deep recursion, huge strings and tables,
//! runaway string patterns and calls of every removed global end the game with an
//! error of the expected kind, the same natively (mlua) and in wasmoon, and nothing
//! escapes the sandbox (no file is written, the host goes on).

use crate::common;

use common::{play_in_wasmoon, TIME_LIMIT, TURNS};
use espalier_game::fuzz::{play, Case};

/// A talent whose Do runs `body` (and whose chunk runs `top` when loaded).
fn talent(top: &str, body: &str) -> String {
    format!("{top}\nlocal __hooks = {{}}\n__hooks.Do = function(user, target)\n  {body}\nend\n__hooks.GetDescription = function(user) return \"x\" end\nreturn {{ kind = \"talent\", name = \"Evil\", hooks = __hooks }}\n")
}

const MARK: &str = "/tmp/espalier-game-escaped";

/// (top-level code, Do body, expected error kind or "ok", a word the message contains).
fn hostile() -> Vec<(String, String, &'static str, &'static str)> {
    let mut v: Vec<(String, String, &'static str, &'static str)> = vec![
        ("".into(), "while true do end".into(), "budget", "instruction budget"),
        ("while true do end".into(), "".into(), "budget", "instruction budget"),
        ("".into(), "local function f(n) return f(n + 1) + 1 end f(1)".into(), "runtime", "stack overflow"),
        ("".into(), "local s = \"x\" for i = 1, 40 do s = s .. s end".into(), "memory", "out of memory"),
        ("".into(), "local t = {} for i = 1, 1e9 do t[i] = i end".into(), "memory", "out of memory"),
        ("".into(), "local t = {} for i = 1, 1e9 do t[#t + 1] = {} end".into(), "memory", "out of memory"),
        // Harmless once sandboxed: the capped rep gives "", the API ignores ill-typed values.
        ("".into(), "local s = string.rep(\"ab\", 1e9) Log(s) if #s > 0 then error() end".into(), "ok", ""),
        ("".into(), "local s = string.rep(\"a\", 30) s:find(\"(a*)*b\")".into(), "runtime", "find"),
        ("".into(), "local s = (\"a\"):rep(30) return s:match(\"(.-)(.-)(.-)(.-)b\")".into(), "runtime", "match"),
        ("".into(), "string.gsub(\"aaaa\", \"a*\", \"b\")".into(), "runtime", "gsub"),
        ("".into(), "Repeat(1e9, function(i) Repeat(1e9, function(j) while true do end end) end)".into(), "budget", "instruction budget"),
        ("".into(), "user.__id = 1e9 user.hp = 1e9 Damage(user, 1) Damage({ __id = -1 }, 1) Damage(\"x\", {}) ForEachActor(5) Log(nil)".into(), "ok", ""),
    ];
    // Every removed global, called (or indexed) from a hook.
    for g in [
        format!("os.execute(\"touch {MARK}\")"),
        format!("io.open(\"{MARK}\", \"w\")"),
        "load(\"return 1\")()".into(),
        "loadstring(\"return 1\")()".into(),
        format!("dofile(\"{MARK}\")"),
        format!("loadfile(\"{MARK}\")"),
        "require(\"os\")".into(),
        "debug.sethook()".into(),
        "collectgarbage(\"stop\")".into(),
        "pcall(error, 1)".into(),
        "xpcall(error, print)".into(),
        "coroutine.wrap(function() end)()".into(),
        "getmetatable(\"\").__index.find(\"a\", \"a\")".into(),
        "setmetatable(user, nil)".into(),
        "rawset(user, \"hp\", 1)".into(),
        "package.loaded.os.exit(1)".into(),
        "_G.os.exit(1)".into(),
        "print(1)".into(),
        "math.random(1)".into(),
        "table.concat({})".into(),
        "utf8.char(65)".into(),
        "next({})".into(),
        "tostring(user)".into(),
        "string.dump(Damage)".into(),
    ] {
        v.push(("".into(), g, "runtime", "nil value"));
    }
    v
}

#[test]
fn hostile_lua_is_stopped_the_same_way_in_both_vms() {
    std::fs::remove_file(MARK).ok();
    let list = hostile();
    let cases: Vec<Case> = list
        .iter()
        .map(|(top, body, _, _)| Case { seed: 11, sources: vec![talent(top, body)] })
        .collect();
    let (js, summary) = play_in_wasmoon(&cases, "hostile");
    assert_eq!(summary.cases, cases.len());
    let mut wrong = Vec::new();
    for ((case, (_, body, kind, word)), j) in cases.iter().zip(&list).zip(&js) {
        let (outcome, _) = play(case, TURNS, TIME_LIMIT);
        let native = match outcome {
            Ok(()) => "ok".to_string(),
            Err(e) => e.outcome(),
        };
        // The top level runs while loading: its errors are load errors, same kinds otherwise.
        let want = if *kind == "runtime" && body.is_empty() { "load" } else { kind };
        let expected =
            if want == "ok" { native == "ok" } else { native.starts_with(&format!("{want}: ")) };
        if !expected || !native.contains(word) || native != j.outcome {
            wrong.push(format!(
                "{body:?}: native {native:?}, wasmoon {:?}, wanted {want} with {word:?}",
                j.outcome
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(!std::path::Path::new(MARK).exists(), "a script wrote {MARK}");
    // The host goes on: a fresh game plays.
    let (outcome, log) =
        play(&Case { seed: 1, sources: vec![talent("", "Damage(user, 1)")] }, 10, TIME_LIMIT);
    assert!(outcome.is_ok() && log.iter().any(|l| l.starts_with("hook Evil.Do")), "{outcome:?}");
}
