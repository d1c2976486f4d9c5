//! The hand-written corpus: every valid script (effects and talents using every
//! construct) is accepted, translates and runs 30 game turns without a Lua error;
//! every invalid one is rejected exactly where its `@@` marker stands (the first byte
//! no valid continuation has). Every segment regex met is checked for A1, and every
//! translation also passes `scripts/lua-check.py` in real Lua 5.4 (independent of the
//! checker and the engine under test).

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use espalier_game::Game;
use espalier_slua::check::check_with;
use espalier_slua::dfa::A1Checks;
use espalier_slua::translate::to_lua;
use espalier_slua::{Api, Env};

/// The scripts of `tests/scripts/WHICH` (`valid` or `invalid`), in name order; as many
/// as BENCHMARKS.md says there are.
fn files(which: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts").join(which);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "slua"))
        .collect();
    out.sort();
    let stated = if which == "valid" { README_VALID } else { README_INVALID };
    assert_eq!(out.len(), stated, "{which} scripts: update BENCHMARKS.md's count with the corpus");
    out
}

/// The counts of hand-written scripts in BENCHMARKS.md (sLua) ("24 valid ... 59 invalid").
const README_VALID: usize = 24;
const README_INVALID: usize = 59;

fn a1(checks: &A1Checks, regex: &str) {
    if let Err(e) = checks.check(regex) {
        panic!("{e}");
    }
}

/// Runs `scripts/lua-check.py` (real Lua 5.4, a sandbox built from the API file alone,
/// independent of this crate's checker and engine) on a translated chunk that may apply
/// `effects`; `Err` with its message when it refuses the chunk.
fn lua_check(lua: &str, effects: &[&str]) -> Result<(), String> {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    espalier_testkit::require("/usr/bin/lua5.4", "Lua 5.4 (Debian's lua5.4)", None);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file =
        std::env::temp_dir().join(format!("espalier-lua-check-{}-{n}.lua", std::process::id()));
    std::fs::write(&file, lua).unwrap();
    let mut cmd = std::process::Command::new("python3");
    cmd.arg(root.join("scripts/lua-check.py")).arg(&file);
    for e in effects {
        cmd.args(["--effect", e]);
    }
    let out = cmd.output().expect("run python3 scripts/lua-check.py");
    std::fs::remove_file(&file).ok();
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The independent Lua check itself refuses what it must: a chunk Lua cannot parse, an
/// unknown global, a global write, a wrong argument or return type, a missing hook.
#[test]
fn the_real_lua_check_refuses_broken_translations() {
    // A translation the browser test read back from the page (results/browser).
    let good = "local __hooks = {}\n__hooks.CanUse = function(user)\n  do return (user.hp < (user.maxHp / 2.0)) end\nend\n\
                __hooks.Do = function(user, target)\n  WithActorAt(target, function(victim)\n    Damage(victim, user.power + 2.0)\n    Burning(victim, { power = 2.0, turns = 3.0 })\n  end)\nend\n\
                __hooks.GetDescription = function(user)\n  do return __cat(\"Hits for \", NumStr(user.power)) end\nend\n\
                return { kind = \"talent\", name = \"Mend\", hooks = __hooks }\n";
    lua_check(good, &["Burning"]).unwrap();
    for (what, from, to, effects) in [
        ("an unknown effect", "", "", &[][..]),
        ("a syntax error", "  end)\nend", "  end\nend", &["Burning"][..]),
        ("an unknown global", "NumStr(user.power)", "NumberString(user.power)", &["Burning"]),
        ("a global write", "local __hooks = {}", "leaked = 1.0\nlocal __hooks = {}", &["Burning"]),
        (
            "a wrong argument type",
            "Damage(victim, user.power + 2.0)",
            "Damage(victim, \"2\")",
            &["Burning"],
        ),
        (
            "a wrong return type",
            "do return (user.hp < (user.maxHp / 2.0)) end",
            "do return user.hp end",
            &["Burning"],
        ),
        (
            "a missing required hook",
            "__hooks.Do = function",
            "__hooks.Dont = function",
            &["Burning"],
        ),
        ("a field the type lacks", "user.maxHp", "user.maxHP", &["Burning"]),
        ("the wrong kind", "kind = \"talent\"", "kind = \"effect\"", &["Burning"]),
    ] {
        let bad = good.replacen(from, to, 1);
        assert!(from.is_empty() || bad != good, "{what}: the mutation did not apply");
        let err = lua_check(&bad, effects).expect_err(what);
        eprintln!("{what}: {}", err.trim());
    }
}

/// Checks, translates and runs the valid scripts in order; returns the effects they
/// registered (name, Lua).
fn valid_corpus() -> Vec<(String, String)> {
    let api = Api::dungeon();
    let mut effects: Vec<(String, String)> = Vec::new();
    let checks = A1Checks::default();
    let paths = files("valid");
    for path in paths {
        let src = std::fs::read_to_string(&path).unwrap();
        let env = Rc::new(Env::new(api.clone(), effects.iter().map(|(n, _)| n.clone()).collect()));
        let script = check_with(env, &src, &mut |r| a1(&checks, r)).unwrap_or_else(|e| {
            panic!(
                "{} rejected at {e} (near {:?})",
                path.display(),
                &src[e.offset.min(src.len())..(e.offset + 20).min(src.len())]
            )
        });
        let lua = to_lua(&script, &api);
        let mut game = Game::new(path.to_string_lossy().len() as u64).unwrap();
        for (_, l) in &effects {
            game.load(l).unwrap();
        }
        game.load(&lua).unwrap_or_else(|e| panic!("{}: {e}\n{lua}", path.display()));
        game.run(30, Duration::from_secs(20))
            .unwrap_or_else(|e| panic!("{}: {e}\n{lua}", path.display()));
        let names: Vec<&str> = effects.iter().map(|(n, _)| n.as_str()).collect();
        lua_check(&lua, &names).unwrap_or_else(|e| panic!("{}: {e}\n{lua}", path.display()));
        if script.kind == "effect" {
            effects.push((script.name.clone(), lua));
        }
    }
    effects
}

#[test]
fn valid_scripts_are_accepted_translated_and_run() {
    let effects = valid_corpus();
    assert!(effects.len() >= 8);
}

#[test]
fn invalid_scripts_are_rejected_at_the_marked_offset() {
    let api = Api::dungeon();
    let names = [
        "Burning",
        "Regeneration",
        "Thorns",
        "Stoneskin",
        "Poison",
        "Frenzy",
        "Haste",
        "HealingAura",
        "Doom",
    ];
    let env = Rc::new(Env::new(api, names.iter().map(|s| s.to_string()).collect()));
    let checks = A1Checks::default();
    let paths = files("invalid");
    let mut wrong = Vec::new();
    for path in paths {
        let marked = std::fs::read_to_string(&path).unwrap();
        let want = marked.find("@@").expect("every invalid script marks its error with @@");
        let src = marked.replacen("@@", "", 1);
        match check_with(env.clone(), &src, &mut |r| a1(&checks, r)) {
            Ok(_) => wrong.push(format!("{}: accepted", path.display())),
            Err(e) if e.offset != want => wrong.push(format!(
                "{}: rejected at {} ({:?}) instead of {want} ({:?})",
                path.file_name().unwrap().to_string_lossy(),
                e.offset,
                &src[e.offset.min(src.len())..(e.offset + 12).min(src.len())],
                &src[want.min(src.len())..(want + 12).min(src.len())]
            )),
            Err(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_examples_in_the_language_document_are_valid() {
    let doc = espalier_slua::prompt::LANGUAGE_DOC;
    let blocks: Vec<&str> =
        doc.split("```lua\n").skip(1).map(|b| b.split("```").next().unwrap()).collect();
    assert!(blocks.len() >= 2);
    let mut effects = Vec::new();
    let checks = A1Checks::default();
    for b in blocks {
        let env = Rc::new(Env::new(Api::dungeon(), effects.clone()));
        let s = check_with(env, b, &mut |r| a1(&checks, r))
            .unwrap_or_else(|e| panic!("doc example rejected at byte {}:\n{b}", e.offset));
        if s.kind == "effect" {
            effects.push(s.name);
        }
    }
}
