//! The Python grammar against CPython's own parser (`ast.parse` of python3.11) on the
//! standard library, and the prefix property on real code.
//!
//! CI runs a fixed sample of 320 files; `ESPALIER_SLOW=1 cargo test --release -p
//! espalier-grammar --test python_corpus` runs every file and asserts BENCHMARKS.md's
//! figures (every readable file compared). A missing oracle or corpus fails the test
//! (`bash scripts/setup.sh` installs them).

use crate::common;

use common::*;
use espalier_grammar::python;

/// Corpus files (Debian's python3.11 3.11.2 with libpython3.11-testsuite), as published
/// in BENCHMARKS.md; the slow run asserts all three.
const PUBLISHED_FILES: usize = 1643;
/// Of those, the UTF-8 files, every one compared with `ast.parse`.
const PUBLISHED_READABLE: usize = 1639;
/// Of those, the files `ast.parse` refuses (and we must refuse).
const PUBLISHED_REJECTED: usize = 7;

fn files() -> Vec<std::path::PathBuf> {
    if slow() {
        corpus_files()
    } else {
        corpus_sample(320)
    }
}

#[test]
fn corpus_agrees_with_ast_parse() {
    require_oracle();
    let py = python().unwrap();
    let files = files();
    let texts: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let verdicts = oracle(&texts);
    let mut compared = 0;
    let mut rejected = 0;
    let mut disagreements = Vec::new();
    for ((f, text), v) in files.iter().zip(&texts).zip(&verdicts) {
        // The oracle leaves out only what it cannot read: check that independently.
        let readable = std::str::from_utf8(text).is_ok();
        let Some(expected) = *v else {
            assert!(!readable, "{}: valid UTF-8, but the oracle did not judge it", f.display());
            continue;
        };
        assert!(readable, "{}: not UTF-8, but the oracle judged it", f.display());
        compared += 1;
        rejected += !expected as usize;
        let mut r = py.recognizer();
        let ours = r.push_bytes(text).and_then(|_| r.finish());
        if ours.is_ok() != expected {
            disagreements.push(format!(
                "{}: ast.parse {} ours {:?}",
                f.display(),
                expected,
                ours.err()
            ));
        }
    }
    eprintln!(
        "corpus: {} of {} readable files agree ({} files, {rejected} rejected by ast.parse)",
        compared - disagreements.len(),
        compared,
        files.len()
    );
    if slow() {
        // BENCHMARKS.md's figures: 1643 files, 1639 readable, 7 of them refused by CPython.
        assert_eq!(
            (files.len(), compared, rejected),
            (PUBLISHED_FILES, PUBLISHED_READABLE, PUBLISHED_REJECTED),
            "(files, readable files compared, refused by ast.parse) differ from BENCHMARKS.md's figures"
        );
    } else {
        assert!(
            compared >= 300,
            "only {compared} of the {} sampled corpus files compared",
            files.len()
        );
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

#[test]
fn tree_sitter_snippets_agree() {
    let path =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/tree-sitter-python-corpus.json");
    let data: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("tree-sitter corpus")).unwrap();
    let py = python().unwrap();
    let mut bad = Vec::new();
    let items = data.as_array().unwrap();
    for it in items {
        let code = it["code"].as_str().unwrap();
        let expected = it["cpython_ast_ok"].as_bool().unwrap();
        let mut r = py.recognizer();
        let ours = r.push_bytes(code.as_bytes()).and_then(|_| r.finish());
        if ours.is_ok() != expected {
            bad.push(format!(
                "{} / {}: expected {expected}, ours {:?}",
                it["file"],
                it["name"],
                ours.err()
            ));
        }
    }
    eprintln!("tree-sitter: {} of {} snippets agree", items.len() - bad.len(), items.len());
    assert_eq!(items.len(), 116);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Every prefix of a valid file is viable ([`checks::prefix_property`]: byte by byte,
/// and resumed from clones at random offsets). CI: the first 120 files of the sample.
#[test]
fn prefix_property() {
    require_oracle();
    let mut files = files();
    if !slow() {
        files.truncate(120);
    }
    checks::prefix_property("python", &python().unwrap(), &files, 0x5eed);
}
