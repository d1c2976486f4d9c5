//! Not over-permissive, for every grammar language ([`common::GRAMMARS`]): mutants of
//! valid corpus files (one random lexeme deleted, duplicated, or swapped with its
//! neighbour) must get the same verdict from our recognizer as from the language's own
//! parser (CPython's `ast.parse`, Go's `gofmt -e`): all 1000 mutants of each default
//! seed (BENCHMARKS.md's figures), and under any seed every Go disagreement is named in
//! [`GO_EXCUSED`] or is one of the grammar's deliberate differences (`grammars/go.lark`:
//! `goto` without a label). The run prints the agreement and every disagreement with
//! its kind. `ESPALIER_MUTANTS=N` runs N mutants, `ESPALIER_MUTANT_SEED` changes the
//! seed.
//!
//! `ESPALIER_SLOW=1` also runs the Earley recognizer on every Python mutant (agreement
//! with LR must be total).

use std::path::PathBuf;
use std::sync::Arc;

use espalier_grammar::Language;

use crate::common::{self, checks, slow};
use crate::gofmt;
use checks::Mutant;

/// One language's mutants and its parser.
struct Case {
    name: &'static str,
    /// The oracle's name in messages.
    oracle: &'static str,
    /// The valid files mutated (after the oracle and the corpus are required).
    files: fn() -> Vec<PathBuf>,
    /// The terminals never mutated (white space, comments).
    skip: &'static [&'static str],
    seed: u64,
    /// The oracle's verdicts (`None`: a text it cannot judge).
    judge: fn(&[Vec<u8>]) -> Vec<Option<bool>>,
    /// At least half the mutants are refused by the oracle (the mutation is strong
    /// enough to test anything).
    mostly_refused: bool,
    /// A disagreement (as printed) on a text that is excused.
    excused: fn(&str, &[u8]) -> bool,
    /// Under `ESPALIER_SLOW=1`, Earley must agree with LR on every mutant.
    earley_when_slow: bool,
}

const CASES: [Case; 2] = [
    Case {
        name: "python",
        oracle: "ast.parse",
        files: || {
            common::require_oracle();
            common::corpus_files()
        },
        skip: &["WS", "COMMENT", "CONTINUATION"],
        seed: 0xC0FFEE,
        judge: common::oracle,
        mostly_refused: false,
        excused: |_, _| false,
        earley_when_slow: true,
    },
    Case {
        name: "go",
        oracle: "gofmt",
        files: || {
            gofmt::require_oracle();
            let files = gofmt::go_files().into_iter();
            files.filter(|f| !f.components().any(|c| c.as_os_str() == "testdata")).collect()
        },
        skip: &["WS", "NL", "LINE_COMMENT", "BLOCK_COMMENT", "BLOCK_COMMENT_NL"],
        seed: 0x60_C0FFEE,
        judge: |texts| gofmt::gofmt_texts(texts).into_iter().map(Some).collect(),
        mostly_refused: true,
        excused: |d, text| {
            GO_EXCUSED.contains(&d) || (d.starts_with("we reject") && goto_without_label(text))
        },
        earley_when_slow: false,
    },
];

/// Go disagreements excused one by one, as the run prints them (none at the default
/// seed).
const GO_EXCUSED: &[&str] = &[];

#[test]
fn mutants_agree_with_the_language_s_parser() {
    common::each_grammar(&CASES, |c| c.name, mutants_agree);
}

/// Every mutant judged by the oracle, and every disagreement excused ([`Case`]).
fn mutants_agree(case: &Case, lang: &Arc<Language>) {
    let (name, oracle) = (case.name, case.oracle);
    let mutants = checks::mutants(lang, &(case.files)(), case.skip, case.seed);
    let count = mutants.len();
    let texts: Vec<Vec<u8>> = mutants.iter().map(|m| m.text.clone()).collect();
    let verdicts = (case.judge)(&texts);
    let (mut agree, mut compared, mut rejected, mut earley_dis) = (0, 0, 0, 0);
    let mut unexcused = Vec::new();
    for (Mutant { text, kind, whereabouts, piece }, v) in mutants.iter().zip(&verdicts) {
        let Some(expected) = *v else { continue };
        compared += 1;
        rejected += usize::from(!expected);
        let ours = checks::lr_verdict(lang, text).is_ok();
        if case.earley_when_slow && slow() {
            let mut e = lang.earley_recognizer();
            if e.push_bytes(text).and_then(|_| e.finish()).is_ok() != ours {
                earley_dis += 1;
                eprintln!("EARLEY DISAGREES: {kind:?} {piece:?} at {whereabouts}");
            }
        }
        if ours == expected {
            agree += 1;
            continue;
        }
        let side = if ours {
            format!("we accept, {oracle} rejects")
        } else {
            format!("we reject, {oracle} accepts")
        };
        let d = format!("{side}: {kind:?} of {piece:?} at {whereabouts}");
        eprintln!("  {d}");
        if !(case.excused)(&d, text) {
            unexcused.push(d);
        }
    }
    let pct = 100.0 * agree as f64 / compared as f64;
    eprintln!(
        "{name} mutants: {agree} of {compared} agree ({pct:.2}%), {rejected} rejected by {oracle}"
    );
    assert_eq!(earley_dis, 0, "{name}: Earley and LR disagree on {earley_dis} mutants");
    // BENCHMARKS.md's figure: every mutant judged, and all agree (1000/1000 with the
    // default seed).
    assert_eq!(compared, count, "{name}: only {compared} of {count} mutants could be judged");
    assert!(
        !case.mostly_refused || rejected * 2 >= compared,
        "{name}: too few invalid mutants ({rejected}): the mutation is too weak to test anything"
    );
    assert!(unexcused.is_empty(), "{name}: agreement {pct:.2}%; not excused: {unexcused:#?}");
}

#[test]
fn a_goto_without_label_is_found() {
    assert!(goto_without_label(b"func f() { goto }") && goto_without_label(b"{\n\tgoto\n"));
    assert!(!goto_without_label(b"goto L\n") && !goto_without_label(b"x := nogoto;"));
}

/// Whether `text` holds a `goto` without a label (gofmt -e accepts it, the
/// specification and we do not: a deliberate difference).
fn goto_without_label(text: &[u8]) -> bool {
    text.windows(4).enumerate().any(|(i, w)| {
        w == b"goto"
            && (i == 0 || !text[i - 1].is_ascii_alphanumeric() && text[i - 1] != b'_')
            && text[i + 4..]
                .iter()
                .find(|b| !matches!(b, b' ' | b'\t'))
                .is_none_or(|b| matches!(b, b'\n' | b';' | b'}'))
    })
}
