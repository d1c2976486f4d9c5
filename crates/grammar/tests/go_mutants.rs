//! Not over-permissive: mutants of valid Go corpus files (one random lexeme
//! deleted, duplicated, or swapped with its neighbour) must get the same verdict
//! from our Go recognizer as from `gofmt -e`, on at least 99.5% of 1000 mutants
//! (the grammar's known over-approximations are listed in `crate::go`). The run
//! prints the agreement and every disagreement with its kind.
//! `ESPALIER_MUTANTS=N` runs N mutants, `ESPALIER_MUTANT_SEED` changes the seed.

mod common;
mod gofmt;

use common::Rng;
use espalier_grammar::{go, lex};
use gofmt::*;

#[derive(Clone, Copy, Debug)]
enum Kind {
    Delete,
    Duplicate,
    Swap,
}

#[test]
fn mutants_agree_with_gofmt() {
    require_oracle();
    let go = go().unwrap();
    let files: Vec<_> = go_files()
        .into_iter()
        .filter(|f| !f.components().any(|c| c.as_os_str() == "testdata"))
        .filter(|f| std::fs::metadata(f).is_ok_and(|m| m.len() > 200 && m.len() < 40_000))
        .collect();
    let seed: u64 = std::env::var("ESPALIER_MUTANT_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x60_C0FFEE);
    let count: usize =
        std::env::var("ESPALIER_MUTANTS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    let mut rng = Rng(seed);
    let skip: Vec<u32> = ["WS", "NL", "LINE_COMMENT", "BLOCK_COMMENT", "BLOCK_COMMENT_NL"]
        .iter()
        .filter_map(|n| go.grammar.terminal(n))
        .collect();
    let mut mutants: Vec<(Vec<u8>, Kind, String, String)> = Vec::new();
    while mutants.len() < count {
        let f = &files[rng.below(files.len())];
        let text = std::fs::read(f).unwrap();
        let Ok(lexemes) = lex(&go.dfa, &text) else { continue };
        let real: Vec<_> = lexemes.iter().filter(|l| !skip.contains(&l.terminals[0])).collect();
        if real.len() < 3 {
            continue;
        }
        let k = rng.below(real.len() - 1);
        let (a, b) = (real[k], real[k + 1]);
        let kind = [Kind::Delete, Kind::Duplicate, Kind::Swap][rng.below(3)];
        let mut m = Vec::with_capacity(text.len() + 64);
        match kind {
            Kind::Delete => {
                m.extend_from_slice(&text[..a.start]);
                m.extend_from_slice(&text[a.end..]);
            }
            Kind::Duplicate => {
                m.extend_from_slice(&text[..a.end]);
                m.push(b' ');
                m.extend_from_slice(&text[a.start..]);
            }
            Kind::Swap => {
                m.extend_from_slice(&text[..a.start]);
                m.extend_from_slice(&text[b.start..b.end]);
                m.extend_from_slice(&text[a.end..b.start]);
                m.extend_from_slice(&text[a.start..a.end]);
                m.extend_from_slice(&text[b.end..]);
            }
        }
        let line = text[..a.start].iter().filter(|&&c| c == b'\n').count() + 1;
        let piece = String::from_utf8_lossy(&text[a.start..a.end]).into_owned();
        mutants.push((m, kind, format!("{}:{line}", f.display()), piece));
    }
    let texts: Vec<Vec<u8>> = mutants.iter().map(|m| m.0.clone()).collect();
    let verdicts = gofmt_texts(&texts);
    let mut agree = 0;
    let mut rejected = 0;
    let mut dis = Vec::new();
    for ((text, kind, whereabouts, piece), &expected) in mutants.iter().zip(&verdicts) {
        rejected += usize::from(!expected);
        let o = ours(&go, text).is_ok();
        if o == expected {
            agree += 1;
        } else {
            let side = if o { "we accept, gofmt rejects" } else { "we reject, gofmt accepts" };
            dis.push(format!("{side}: {kind:?} of {piece:?} at {whereabouts}"));
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
    assert!(pct >= 99.5, "agreement {pct:.2}% < 99.5%");
}
