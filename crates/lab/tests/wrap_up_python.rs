//! The wrap-up against the Python grammar constraint: a random model wanders under the
//! exact mask, then is offered only the finishing mask; it must end with EOS (the
//! program complete) within the budget, and CPython's `ast.parse` must accept what it
//! wrote (the guarantee `espalier eval humaneval --wrap-up N` leans on).

// The generation loop's fixtures (a deterministic hash model), shared with decode's tests.
#[path = "../../decode/tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::Duration;

use common::HashModel;
use espalier_constraint::{GrammarConstraint, Strategy, TokTrie, Vocab};
use espalier_decode::{
    run, GenerateConfig, Generator, LangConstraint, Mode, SamplingConfig, StopReason,
};
use espalier_lab::harness::PythonChecker;

/// Printable ASCII but `{`, newline, tab and a few multi-byte Python lexemes; id 0 is
/// EOS. No `{`: a random walk soon writes an f-string whose replacement field is
/// already broken (`f"{)`), which the recognizer lets through until the closing quote
/// (it checks fields there) and which no text can complete, so no wrap-up can either.
fn byte_vocab() -> Vocab {
    let mut all = vec![b"<eos>".to_vec()];
    all.extend((0x20u8..0x7f).filter(|&b| b != b'{').map(|b| vec![b]));
    all.push(b"\n".to_vec());
    all.push(b"\t".to_vec());
    for t in [
        "def", " return", "    ", "\n    ", "if", " else", "lambda", "\"\"\"", "(x", "):", "for",
        " in",
    ] {
        all.push(t.as_bytes().to_vec());
    }
    Vocab::new(all, &[0], 0)
}

#[test]
fn wrapping_up_finishes_python_that_ast_parse_accepts() {
    let checker =
        PythonChecker { python: "/usr/bin/python3.11".into(), timeout: Duration::from_secs(30) };
    checker.syntax_error("pass\n").expect("the oracle /usr/bin/python3.11 is required");
    let vocab = Arc::new(byte_vocab());
    let trie = Arc::new(TokTrie::new(&vocab));
    let python = espalier_grammar::python().unwrap();
    let mut wrapped = 0;
    for wander in [0, 20, 60] {
        for seed in 0..4 {
            let config = GenerateConfig {
                mode: Mode::Mask,
                sampling: SamplingConfig { temperature: 1.0, top_k: 0, top_p: 1.0, seed },
                max_tokens: wander + 300,
                wrap_up: Some(300),
                repetition: None,
                ..GenerateConfig::default()
            };
            let c = GrammarConstraint::new(
                python.recognizer(),
                trie.clone(),
                Strategy::Exact,
                "python-lr",
            );
            let mut model = HashModel::new(vocab.len());
            let mut g =
                Generator::new(vocab.clone(), LangConstraint::Grammar(Box::new(c)), &[1], config)
                    .unwrap();
            run(&mut g, &mut model, |_, _| {}).unwrap();
            let what = format!("wander {wander} seed {seed}: {:?}", g.text());
            assert_eq!(g.stop_reason(), Some(&StopReason::Eos), "{what}");
            // A random model may end a complete program with EOS before the wrap-up.
            match g.stats().wrap_up_from {
                Some(from) => assert_eq!(from, wander, "{what}"),
                None => assert!(g.stats().steps <= wander, "{what}"),
            }
            wrapped += g.stats().wrap_up_from.is_some() as usize;
            assert_eq!(checker.syntax_error(&g.text()), Ok(None), "{what}");
        }
    }
    eprintln!("{wrapped} of 12 generations wrapped up");
    assert!(wrapped >= 6, "only {wrapped} of 12 generations reached the wrap-up");
}
