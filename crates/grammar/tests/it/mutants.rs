//! Not over-permissive: mutants of valid corpus files (one random lexeme deleted,
//! duplicated, or swapped with its neighbour) must get the same verdict from our
//! Python recognizer as from `ast.parse`, on all of 1000 mutants (BENCHMARKS.md's figure).
//! The run prints the agreement and every disagreement with its kind.
//!
//! `ESPALIER_SLOW=1` also runs the Earley recognizer on every mutant (agreement
//! with LR must be total).

use crate::common;

use common::checks::{self, Mutant};
use common::*;
use espalier_grammar::python;

#[test]
fn mutants_agree_with_ast_parse() {
    require_oracle();
    let py = python().unwrap();
    let mutants =
        checks::mutants(&py, &corpus_files(), &["WS", "COMMENT", "CONTINUATION"], 0xC0FFEE);
    let count = mutants.len();
    let texts: Vec<Vec<u8>> = mutants.iter().map(|m| m.text.clone()).collect();
    let verdicts = oracle(&texts);
    let mut agree = 0;
    let mut compared = 0;
    let mut dis = Vec::new();
    let mut earley_dis = 0;
    for (Mutant { text, kind, whereabouts, piece }, v) in mutants.iter().zip(&verdicts) {
        let Some(expected) = *v else { continue };
        compared += 1;
        let mut r = py.recognizer();
        let ours = r.push_bytes(text).and_then(|_| r.finish()).is_ok();
        if slow() {
            let mut e = py.earley_recognizer();
            let eo = e.push_bytes(text).and_then(|_| e.finish()).is_ok();
            if eo != ours {
                earley_dis += 1;
                eprintln!("EARLEY DISAGREES: {kind:?} {piece:?} at {whereabouts}");
            }
        }
        if ours == expected {
            agree += 1;
        } else {
            let side =
                if ours { "we accept, ast.parse rejects" } else { "we reject, ast.parse accepts" };
            dis.push(format!("{side}: {kind:?} of {piece:?} at {whereabouts}"));
        }
    }
    let pct = 100.0 * agree as f64 / compared as f64;
    eprintln!("mutants: {agree} of {compared} agree ({pct:.2}%)");
    for d in &dis {
        eprintln!("  {d}");
    }
    assert_eq!(earley_dis, 0, "Earley and LR disagree on {earley_dis} mutants");
    // BENCHMARKS.md's figure: every mutant judged, and all agree (1000/1000 with the
    // default seed; 5000/5000 with another).
    assert_eq!(compared, count, "only {compared} of {count} mutants could be judged");
    assert_eq!(
        agree,
        compared,
        "{} of {compared} mutants disagree with ast.parse",
        compared - agree
    );
}
