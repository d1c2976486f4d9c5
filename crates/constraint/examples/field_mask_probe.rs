//! One exact mask at a state inside an f-string, timed cold and warm: the figures
//! behind `python/field_start_mask.rs` and the field memos of `python/fstring_layer.rs`.
//!
//! `cargo run --release -p espalier-constraint --example field_mask_probe -- FILE MARKER [REPS]`
//!
//! The text of FILE up to the end of the first MARKER (e.g. `/usr/lib/python3.11/json/encoder.py`
//! and `f'Object of type {`) is committed to a Python constraint over the SmolLM2
//! vocabulary; then the exact mask (`GrammarConstraint::exact_mask`, not the
//! constraint's own mask memo) is timed: the constraint's first mask there, the first
//! mask of 3 more fresh constraints at the same text, and the mean of REPS more masks
//! on the first constraint (default 200; the field memos then reuse the nested mask).
//! Also prints the cost of the first `GrammarConstraint::new` over the trie (after its
//! lexeme-start summaries: what is left is building the fresh-field masks) and the
//! mean cost of the later ones. Microseconds, wall clock.

use std::time::Instant;

use espalier_constraint::{Constraint, GrammarConstraint, MaskKit, Strategy, TokenSet};

mod common;

fn main() {
    common::main_of("field_mask_probe", run);
}

fn run() -> common::Outcome {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, marker, rest @ ..] = args.as_slice() else {
        return Err("usage: field_mask_probe FILE MARKER [REPS]".into());
    };
    let reps: u32 = rest.first().map(|r| r.parse()).transpose()?.unwrap_or(200);
    let (_tok, vocab) = common::smollm2()?;
    let lang = espalier_grammar::python()?;
    let t = Instant::now();
    let kit = MaskKit::for_vocab(lang.clone(), &vocab);
    println!("MaskKit::for_vocab: {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let text = std::fs::read_to_string(file)?;
    let at = text.find(marker.as_str()).ok_or("MARKER is not in FILE")? + marker.len();
    let new = || GrammarConstraint::new(&kit, Strategy::Exact, "python-lr");

    let t = Instant::now();
    let _first_from_the_kit = new();
    println!(
        "first GrammarConstraint::new from the kit: {:.1} us",
        t.elapsed().as_secs_f64() * 1e6
    );
    let t = Instant::now();
    for _ in 0..100 {
        std::hint::black_box(new());
    }
    println!("GrammarConstraint::new: {:.1} us mean", t.elapsed().as_secs_f64() * 1e6 / 100.0);

    let mut mask = TokenSet::empty(vocab.len());
    let mut c = new();
    c.commit(&text.as_bytes()[..at]).map_err(|e| e.to_string())?;
    let t = Instant::now();
    c.exact_mask(&mut mask);
    println!(
        "first mask: {:.1} us, {} tokens allowed",
        t.elapsed().as_secs_f64() * 1e6,
        mask.count()
    );
    for k in 0..3 {
        let mut d = new();
        d.commit(&text.as_bytes()[..at]).map_err(|e| e.to_string())?;
        let t = Instant::now();
        d.exact_mask(&mut mask);
        println!("fresh constraint {k}: {:.1} us", t.elapsed().as_secs_f64() * 1e6);
    }
    let t = Instant::now();
    for _ in 0..reps {
        c.exact_mask(&mut mask);
    }
    println!(
        "warm: {:.1} us mean over {reps}",
        t.elapsed().as_secs_f64() * 1e6 / f64::from(reps.max(1))
    );
    Ok(())
}
