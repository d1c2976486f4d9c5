//! Not over-permissive: mutants of valid Go corpus files (one random lexeme
//! deleted, duplicated, or swapped with its neighbour) must get the same verdict
//! from our Go recognizer as from `gofmt -e`: all 1000 mutants of the default seed,
//! and under any seed every disagreement is named in [`EXCUSED`] or is one of the
//! grammar's deliberate differences (`grammars/go.lark`: `goto` without a label). The
//! run prints the agreement and every disagreement with its kind.
//! `ESPALIER_MUTANTS=N` runs N mutants, `ESPALIER_MUTANT_SEED` changes the seed.

use crate::common;
use crate::gofmt;

use common::checks::{self, Mutant};
use espalier_grammar::go;
use gofmt::*;

/// Disagreements excused one by one, as the run prints them (none at the default seed).
const EXCUSED: &[&str] = &[];

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

#[test]
fn mutants_agree_with_gofmt() {
    require_oracle();
    let go = go().unwrap();
    let files: Vec<_> = go_files()
        .into_iter()
        .filter(|f| !f.components().any(|c| c.as_os_str() == "testdata"))
        .collect();
    let skip = ["WS", "NL", "LINE_COMMENT", "BLOCK_COMMENT", "BLOCK_COMMENT_NL"];
    let mutants = checks::mutants(&go, &files, &skip, 0x60_C0FFEE);
    let texts: Vec<Vec<u8>> = mutants.iter().map(|m| m.text.clone()).collect();
    let verdicts = gofmt_texts(&texts);
    let mut agree = 0;
    let mut rejected = 0;
    let mut dis = Vec::new();
    let mut dis_texts: Vec<Vec<u8>> = Vec::new();
    for (Mutant { text, kind, whereabouts, piece }, &expected) in mutants.iter().zip(&verdicts) {
        rejected += usize::from(!expected);
        let o = ours(&go, text).is_ok();
        if o == expected {
            agree += 1;
        } else {
            let side = if o { "we accept, gofmt rejects" } else { "we reject, gofmt accepts" };
            dis.push(format!("{side}: {kind:?} of {piece:?} at {whereabouts}"));
            dis_texts.push(text.clone());
        }
    }
    let pct = 100.0 * agree as f64 / mutants.len() as f64;
    eprintln!(
        "go mutants: {agree} of {} agree ({pct:.2}%), {rejected} rejected by gofmt",
        mutants.len()
    );
    for d in &dis {
        eprintln!("  {d}");
    }
    assert!(
        rejected * 2 >= mutants.len(),
        "too few invalid mutants ({rejected}): the mutation is too weak to test anything"
    );
    let unexcused: Vec<&String> = dis
        .iter()
        .zip(&dis_texts)
        .filter(|(d, t)| {
            !(EXCUSED.contains(&d.as_str())
                || (d.starts_with("we reject") && goto_without_label(t)))
        })
        .map(|(d, _)| d)
        .collect();
    assert!(unexcused.is_empty(), "agreement {pct:.2}%; not excused: {unexcused:#?}");
}
