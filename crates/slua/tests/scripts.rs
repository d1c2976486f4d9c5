//! The hand-written corpus: every valid script (effects and talents using every
//! construct) is accepted, translates and runs 30 game turns without a Lua error;
//! every invalid one is rejected exactly where its `@@` marker stands (the first byte
//! no valid continuation has). Every segment regex met is checked for A1.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use espalier_slua::check::check_with;
use espalier_slua::dfa::a1_holds;
use espalier_slua::engine::Game;
use espalier_slua::translate::to_lua;
use espalier_slua::{Api, Env};

fn files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts").join(dir);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "slua"))
        .collect();
    out.sort();
    out
}

/// The README's counts of hand-written scripts ("24 valid ... 59 invalid").
const README_VALID: usize = 24;
const README_INVALID: usize = 59;

fn a1(regex: &str) {
    if let Err(e) = a1_holds(regex) {
        panic!("{e}");
    }
}

/// Checks, translates and runs the valid scripts in order; returns the effects they
/// registered (name, Lua).
fn valid_corpus() -> Vec<(String, String)> {
    let api = Api::dungeon();
    let mut effects: Vec<(String, String)> = Vec::new();
    let paths = files("valid");
    assert_eq!(paths.len(), README_VALID, "valid scripts: update the README's count with the corpus");
    for path in paths {
        let src = std::fs::read_to_string(&path).unwrap();
        let env = Rc::new(Env::new(api.clone(), effects.iter().map(|(n, _)| n.clone()).collect()));
        let script = check_with(env, &src, &mut |r| a1(r))
            .unwrap_or_else(|e| panic!("{} rejected at {e} (near {:?})", path.display(), &src[e.offset.min(src.len())..(e.offset + 20).min(src.len())]));
        let lua = to_lua(&script, &api);
        let mut game = Game::new(path.to_string_lossy().len() as u64).unwrap();
        for (_, l) in &effects {
            game.load(l).unwrap();
        }
        game.load(&lua).unwrap_or_else(|e| panic!("{}: {e}\n{lua}", path.display()));
        game.run(30, Duration::from_secs(20)).unwrap_or_else(|e| panic!("{}: {e}\n{lua}", path.display()));
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
    let names = ["Burning", "Regeneration", "Thorns", "Stoneskin", "Poison", "Frenzy", "Haste", "HealingAura", "Doom"];
    let env = Rc::new(Env::new(api, names.iter().map(|s| s.to_string()).collect()));
    let paths = files("invalid");
    assert_eq!(paths.len(), README_INVALID, "invalid scripts: update the README's count with the corpus");
    let mut wrong = Vec::new();
    for path in paths {
        let marked = std::fs::read_to_string(&path).unwrap();
        let want = marked.find("@@").expect("every invalid script marks its error with @@");
        let src = marked.replacen("@@", "", 1);
        match check_with(env.clone(), &src, &mut |r| a1(r)) {
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
    let blocks: Vec<&str> = doc.split("```lua\n").skip(1).map(|b| b.split("```").next().unwrap()).collect();
    assert!(blocks.len() >= 2);
    let mut effects = Vec::new();
    for b in blocks {
        let env = Rc::new(Env::new(Api::dungeon(), effects.clone()));
        let s = check_with(env, b, &mut |r| a1(r))
            .unwrap_or_else(|e| panic!("doc example rejected at byte {}:\n{b}", e.offset));
        if s.kind == "effect" {
            effects.push(s.name);
        }
    }
}
