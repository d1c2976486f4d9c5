//! The Python grammar against CPython's own parser (`ast.parse` of python3.11) on the
//! standard library, and the prefix property on real code.
//!
//! CI runs a fixed sample of 320 files; `ESPALIER_SLOW=1 cargo test --release -p
//! espalier-grammar --test python_corpus` runs every file.

mod common;

use common::*;
use espalier_grammar::python;

fn files() -> Vec<std::path::PathBuf> {
    if slow() {
        corpus_files()
    } else {
        corpus_sample(320)
    }
}

#[test]
fn corpus_agrees_with_ast_parse() {
    if !have_oracle() {
        eprintln!("skipped: {PYTHON} or {CORPUS} missing (apt install python3.11 libpython3.11-testsuite)");
        return;
    }
    let py = python().unwrap();
    let files = files();
    let texts: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let verdicts = oracle(&texts);
    let mut compared = 0;
    let mut disagreements = Vec::new();
    for ((f, text), v) in files.iter().zip(&texts).zip(&verdicts) {
        let Some(expected) = *v else { continue };
        compared += 1;
        let mut r = py.recognizer();
        let ours = r.push_bytes(text).and_then(|_| r.finish());
        if ours.is_ok() != expected {
            disagreements.push(format!("{}: ast.parse {} ours {:?}", f.display(), expected, ours.err()));
        }
    }
    eprintln!("corpus: {} of {} files agree", compared - disagreements.len(), compared);
    assert!(compared >= 300 || slow(), "only {compared} corpus files found");
    assert!(disagreements.is_empty(), "{} disagreements:\n{}", disagreements.len(), disagreements.join("\n"));
}

#[test]
fn tree_sitter_snippets_agree() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/tree-sitter-python-corpus.json");
    let data: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).expect("tree-sitter corpus")).unwrap();
    let py = python().unwrap();
    let mut bad = Vec::new();
    let items = data.as_array().unwrap();
    for it in items {
        let code = it["code"].as_str().unwrap();
        let expected = it["cpython_ast_ok"].as_bool().unwrap();
        let mut r = py.recognizer();
        let ours = r.push_bytes(code.as_bytes()).and_then(|_| r.finish());
        if ours.is_ok() != expected {
            bad.push(format!("{} / {}: expected {expected}, ours {:?}", it["file"], it["name"], ours.err()));
        }
    }
    eprintln!("tree-sitter: {} of {} snippets agree", items.len() - bad.len(), items.len());
    assert_eq!(items.len(), 116);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Every prefix of a valid file is viable: checked byte by byte (which covers every
/// lexeme boundary), and at random offsets by resuming the rest of the file from a
/// clone of the recognizer taken there.
#[test]
fn prefix_property() {
    if !have_oracle() {
        eprintln!("skipped: corpus missing");
        return;
    }
    let py = python().unwrap();
    let mut rng = Rng(0x5eed);
    let mut files = files();
    if !slow() {
        files.truncate(120);
    }
    let mut checked_boundaries = 0usize;
    let mut resumed = 0usize;
    for f in &files {
        let text = std::fs::read(f).unwrap();
        let mut r = py.recognizer();
        if r.clone().push_bytes(&text).and_then(|_| r.clone().finish()).is_err() {
            // only valid files (the corpus test covers the verdicts)
            let mut probe = py.recognizer();
            if probe.push_bytes(&text).and_then(|_| probe.finish()).is_err() {
                continue;
            }
        }
        let cuts: Vec<usize> = (0..4).map(|_| rng.below(text.len() + 1)).collect();
        let mut lexemes = 0;
        for (i, &b) in text.iter().enumerate() {
            if cuts.contains(&i) {
                let mut c = r.clone();
                c.push_bytes(&text[i..]).unwrap_or_else(|e| panic!("{}: resuming at byte {i} failed: {e}", f.display()));
                assert!(c.is_complete(), "{}: resumed at byte {i}, not complete", f.display());
                resumed += 1;
            }
            r.push_byte(b).unwrap_or_else(|e| panic!("{}: prefix of {} bytes reported dead: {e}", f.display(), i + 1));
            if r.num_lexemes() != lexemes {
                lexemes = r.num_lexemes();
                checked_boundaries += 1;
                assert!(!r.acceptable_terminals().is_empty());
            }
        }
        assert!(r.is_complete(), "{}", f.display());
    }
    eprintln!("prefix property: {checked_boundaries} lexeme boundaries, {resumed} resumptions from clones");
}
