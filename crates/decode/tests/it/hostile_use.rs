//! The generator on hostile use of its API: a constraint built over another vocabulary
//! (refused with a typed error before the first step, never a panic in a mask), and
//! use after the end (every further step is a typed error; the text stays as it was).

use crate::common;

use std::sync::Arc;

use common::{vocab, HashModel};
use espalier_constraint::{GrammarConstraint, MaskKit, Strategy};
use espalier_decode::{run, DecodeError, GenerateConfig, Generator, Mode};

const TOKENS: &[&str] = &["x", " =", " 1", "\n", "(", ")"];

fn python_over(tokens: &[&str]) -> GrammarConstraint {
    let lang = espalier_grammar::python().expect("the Python grammar compiles");
    let kit = MaskKit::for_vocab(lang, &vocab(tokens));
    GrammarConstraint::new(&kit, Strategy::Exact, "python")
}

#[test]
fn a_constraint_over_another_vocabulary_is_refused_before_the_first_step() {
    let config = GenerateConfig { mode: Mode::Mask, max_tokens: 8, ..GenerateConfig::default() };
    let wider = Arc::new(vocab(&[TOKENS, &["y"]].concat()));
    let e = Generator::new(wider.clone(), python_over(TOKENS), &[1], config.clone()).err();
    assert_eq!(e, Some(DecodeError::VocabMismatch { constraint: 7, vocab: 8 }));
    assert!(e.unwrap().to_string().contains("7 tokens"));
    // The same vocabulary is fine.
    assert!(Generator::new(Arc::new(vocab(TOKENS)), python_over(TOKENS), &[1], config).is_ok());
}

#[test]
fn stepping_a_finished_generation_is_a_typed_error_that_changes_nothing() {
    let v = Arc::new(vocab(TOKENS));
    let config = GenerateConfig { mode: Mode::Mask, max_tokens: 6, ..GenerateConfig::default() };
    let mut g = Generator::new(v.clone(), python_over(TOKENS), &[1], config).unwrap();
    let mut model = HashModel::new(v.len());
    run(&mut g, &mut model, |_, _| {}).unwrap();
    assert!(g.next_input().is_none(), "the generation ended");
    let text = g.text().to_string();
    let logits = vec![0.0; v.len()];
    for _ in 0..3 {
        assert_eq!(g.step(&logits, std::time::Duration::ZERO).err(), Some(DecodeError::Finished));
    }
    assert_eq!(g.text(), text);
}
