//! The Go grammar against Go's own parser (`gofmt -e` of Go 1.19) on the Go
//! standard library and commands (testdata directories hold deliberately invalid
//! files: the negatives), and the prefix property on real code.
//!
//! CI runs a fixed sample (300 evenly spaced files plus four testdata directories,
//! ~550 files); `ESPALIER_SLOW=1 cargo nextest run --release -p espalier-grammar
//! --test go_corpus` runs every file (5,500). A missing gofmt or corpus fails.

use crate::common;
use crate::gofmt;

use common::{checks, slow};
use espalier_grammar::go;
use gofmt::*;

/// Corpus files (Debian's golang-1.19-src 1.19.8), as published in BENCHMARKS.md; the
/// slow run asserts both.
const PUBLISHED_FILES: usize = 5564;
/// Of those, the files gofmt -e refuses (testdata negatives; we must refuse them).
const PUBLISHED_REJECTED: usize = 54;

fn files() -> Vec<std::path::PathBuf> {
    require_oracle();
    if slow() {
        go_files()
    } else {
        go_sample(300)
    }
}

#[test]
fn corpus_agrees_with_gofmt() {
    let go = go().unwrap();
    let files = files();
    let verdicts = gofmt_verdicts(&files);
    let mut disagreements = Vec::new();
    for (f, &expected) in files.iter().zip(&verdicts) {
        let text = std::fs::read(f).unwrap();
        let o = ours(&go, &text);
        if o.is_ok() != expected {
            disagreements.push(format!(
                "{}: gofmt {} ours {:?}",
                f.display(),
                if expected { "accepts" } else { "rejects" },
                o.err()
            ));
        }
    }
    let negatives = verdicts.iter().filter(|&&v| !v).count();
    eprintln!(
        "go corpus: {} of {} files agree ({} rejected by gofmt)",
        files.len() - disagreements.len(),
        files.len(),
        negatives
    );
    assert!(files.len() >= 500, "only {} corpus files found", files.len());
    if slow() {
        assert_eq!(
            (files.len(), negatives),
            (PUBLISHED_FILES, PUBLISHED_REJECTED),
            "BENCHMARKS.md's figures changed"
        );
    }
    assert!(negatives >= 20, "only {negatives} negatives in the sample");
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

/// Every prefix of a valid file is viable ([`checks::prefix_property`]: byte by byte,
/// which covers every lexeme boundary, where the semicolon layer acts, and resumed from
/// clones at random offsets). CI: every 4th file of the sample outside testdata.
#[test]
fn prefix_property() {
    let mut files = files();
    if !slow() {
        // every 4th file of the sample, outside the testdata directories
        files = files
            .into_iter()
            .filter(|f| !f.components().any(|c| c.as_os_str() == "testdata"))
            .step_by(4)
            .collect();
    }
    checks::prefix_property("go", &go().unwrap(), &files, 0x60_5eed);
}

/// The Earley recognizer behind the same lexer and semicolon layer agrees with LR
/// (verdict and error offset) on corpus files and truncated files, valid or not
/// (the fill-in-the-middle quotients run on Earley). CI: 40 files under 8 KB.
#[test]
fn earley_agrees_with_lr() {
    let limit = if slow() { 400 } else { 40 };
    let files: Vec<_> = files()
        .into_iter()
        .filter(|f| std::fs::metadata(f).is_ok_and(|m| m.len() < 8_000))
        .step_by(3)
        .take(limit)
        .collect();
    let n = checks::earley_agrees_with_lr("go", &go().unwrap(), &files, 0x60_ea7);
    assert!(n >= 60 || slow(), "go: only {n} texts");
}
