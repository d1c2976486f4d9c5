//! Every grammar language ([`common::GRAMMARS`]) against its own parser on its standard
//! library: Python against CPython's `ast.parse` (python3.11) on CPython's, Go against
//! `gofmt -e` (Go 1.19) on Go's library and commands (whose testdata directories hold
//! deliberately invalid files: the negatives); then the prefix property on real code,
//! and the Earley recognizer against LR. Each language's corpus, oracle and figures are
//! [`CASES`].
//!
//! CI runs fixed samples (Python 320 files; Go 300 evenly spaced files plus four
//! testdata directories, ~550 files); `ESPALIER_SLOW=1 cargo nextest run --release -p
//! espalier-grammar -E 'test(/^corpus::/)' --no-capture` runs every file and asserts
//! BENCHMARKS.md's figures. A missing oracle or corpus fails the test (`bash
//! scripts/setup.sh` installs them).

use std::path::PathBuf;
use std::sync::Arc;

use espalier_grammar::Language;

use crate::common::{self, checks, slow};
use crate::gofmt;

/// Files picked from a list.
type Pick = fn(Vec<PathBuf>) -> Vec<PathBuf>;

/// One language's corpus and its parser.
struct Case {
    name: &'static str,
    /// The oracle's name in messages.
    oracle: &'static str,
    /// The corpus (after the oracle and the corpus are required): the CI sample, or
    /// every file under `ESPALIER_SLOW=1`.
    files: fn() -> Vec<PathBuf>,
    /// The oracle's verdicts on files: `Some(accepted)`, `None` for a file it leaves
    /// out because it cannot read it.
    verdicts: fn(&[PathBuf]) -> Vec<Option<bool>>,
    /// Whether the oracle reads a text (checked independently of it).
    reads: fn(&[u8]) -> bool,
    /// The whole corpus, as published in BENCHMARKS.md (the slow run asserts them):
    /// (files, files compared, files the oracle refuses and we must refuse).
    published: (usize, usize, usize),
    /// At least this many files compared, and refused by the oracle.
    least: (usize, usize),
    /// The prefix property's files from [`Case::files`] in CI, and its seed.
    prefix: (Pick, u64),
    /// Earley against LR: its files and seed.
    earley: (fn() -> Vec<PathBuf>, u64),
}

const CASES: [Case; 2] = [
    Case {
        name: "python",
        oracle: "ast.parse",
        files: || {
            corpus(common::require_oracle, common::corpus_files, || common::corpus_sample(320))
        },
        verdicts: |files| {
            let texts: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
            common::oracle(&texts)
        },
        // ast.parse leaves out what is not UTF-8.
        reads: |text| std::str::from_utf8(text).is_ok(),
        // Debian's python3.11 3.11.2 with libpython3.11-testsuite: 1643 files, 1639 of
        // them UTF-8 (every one compared), 7 of those refused by CPython.
        published: (1643, 1639, 7),
        least: (300, 0),
        // CI: the first 120 files of the sample.
        prefix: (|files| files.into_iter().take(120).collect(), 0x5eed),
        // CI: 60 corpus files.
        earley: (
            || corpus(common::require_oracle, common::corpus_files, || common::corpus_sample(60)),
            7,
        ),
    },
    Case {
        name: "go",
        oracle: "gofmt",
        files: go_corpus,
        verdicts: |files| gofmt::gofmt_verdicts(files).into_iter().map(Some).collect(),
        reads: |_| true,
        // Debian's golang-1.19-src 1.19.8: 5564 files, every one compared, 54 refused by
        // gofmt -e (testdata negatives).
        published: (5564, 5564, 54),
        least: (500, 20),
        // CI: every 4th file of the sample, outside the testdata directories.
        prefix: (
            |files| {
                let valid = files
                    .into_iter()
                    .filter(|f| !f.components().any(|c| c.as_os_str() == "testdata"));
                valid.step_by(4).collect()
            },
            0x60_5eed,
        ),
        // CI: 40 files under 8 KB (every third of the sample); 400 under ESPALIER_SLOW.
        earley: (
            || {
                let files = go_corpus().into_iter();
                let small = files.filter(|f| std::fs::metadata(f).is_ok_and(|m| m.len() < 8_000));
                small.step_by(3).take(if slow() { 400 } else { 40 }).collect()
            },
            0x60_ea7,
        ),
    },
];

/// A language's corpus, once `require` has checked that its oracle and corpus are
/// installed: `all` of it under `ESPALIER_SLOW=1`, else the CI `sample`.
fn corpus(
    require: fn(),
    all: fn() -> Vec<PathBuf>,
    sample: impl FnOnce() -> Vec<PathBuf>,
) -> Vec<PathBuf> {
    require();
    if slow() {
        all()
    } else {
        sample()
    }
}

/// Go's corpus: a sample of 300 files in CI.
fn go_corpus() -> Vec<PathBuf> {
    corpus(gofmt::require_oracle, gofmt::go_files, || gofmt::go_sample(300))
}

/// Our verdict equals the oracle's on every file of the corpus; the oracle judges
/// exactly the files it can read; the figures match BENCHMARKS.md under
/// `ESPALIER_SLOW=1`, and the CI sample is big enough.
#[test]
fn corpus_agrees_with_the_language_s_parser() {
    common::each_grammar(&CASES, |c| c.name, corpus_agrees);
}

fn corpus_agrees(case: &Case, lang: &Arc<Language>) {
    let (name, oracle) = (case.name, case.oracle);
    let files = (case.files)();
    let verdicts = (case.verdicts)(&files);
    assert_eq!(verdicts.len(), files.len(), "{name}: {oracle} judged {} files", verdicts.len());
    let (mut compared, mut rejected) = (0, 0);
    let mut disagreements = Vec::new();
    for (f, v) in files.iter().zip(&verdicts) {
        let text = std::fs::read(f).unwrap();
        // The oracle leaves out only what it cannot read: check that independently.
        let reads = (case.reads)(&text);
        let Some(expected) = *v else {
            assert!(!reads, "{}: {oracle} reads it, but did not judge it", f.display());
            continue;
        };
        assert!(reads, "{}: {oracle} cannot read it, but judged it", f.display());
        compared += 1;
        rejected += usize::from(!expected);
        let ours = checks::lr_verdict(lang, &text);
        if ours.is_ok() != expected {
            let theirs = if expected { "accepts" } else { "rejects" };
            disagreements.push(format!(
                "{}: {oracle} {theirs}, ours {:?}",
                f.display(),
                ours.err()
            ));
        }
    }
    eprintln!(
        "{name} corpus: {} of {compared} compared files agree ({} files, {rejected} rejected by \
         {oracle})",
        compared - disagreements.len(),
        files.len()
    );
    if slow() {
        assert_eq!(
            (files.len(), compared, rejected),
            case.published,
            "{name}: (files, files compared, refused by {oracle}) differ from BENCHMARKS.md's \
             figures"
        );
    }
    let (least_compared, least_rejected) = case.least;
    assert!(
        compared >= least_compared,
        "{name}: only {compared} of the {} corpus files compared",
        files.len()
    );
    assert!(rejected >= least_rejected, "{name}: only {rejected} negatives in the sample");
    assert!(
        disagreements.is_empty(),
        "{name}: {} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

/// Every prefix of a valid file is viable ([`checks::prefix_property`]: byte by byte,
/// which covers every lexeme boundary, where a layer acts, and resumed from clones at
/// random offsets). CI: part of the sample ([`Case::prefix`]).
#[test]
fn prefix_property() {
    common::each_grammar(
        &CASES,
        |c| c.name,
        |c, lang| {
            let (ci_files, seed) = c.prefix;
            let files = if slow() { (c.files)() } else { ci_files((c.files)()) };
            checks::prefix_property(c.name, lang, &files, seed);
        },
    );
}

/// The Earley recognizer behind the same lexer and layer agrees with LR (verdict and
/// error offset) on corpus files and truncated files, valid or not (the
/// fill-in-the-middle quotients run on Earley). At least 60 texts in CI.
#[test]
fn earley_agrees_with_lr() {
    common::each_grammar(
        &CASES,
        |c| c.name,
        |c, lang| {
            let (files, seed) = c.earley;
            let n = checks::earley_agrees_with_lr(c.name, lang, &files(), seed);
            assert!(n >= 60 || slow(), "{}: only {n} texts", c.name);
        },
    );
}
