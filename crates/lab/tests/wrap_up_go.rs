//! The wrap-up against the Go grammar constraint: a random model wanders under the
//! exact mask after `package p\n\nfunc f() {\n`, then is offered only the finishing
//! mask; it must end with EOS (the file complete) within the budget, and Go's own
//! parser (`gofmt -e`) must accept what it wrote (the guarantee `espalier eval
//! humaneval-go --wrap-up N` leans on).

// The generation loop's fixtures (a deterministic hash model), shared with decode's tests.
#[path = "../../decode/tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::Duration;

use common::HashModel;
use espalier_constraint::{Constraint, GrammarConstraint, Strategy, TokTrie, Vocab};
use espalier_decode::{
    run, GenerateConfig, Generator, LangConstraint, Mode, SamplingConfig, StopReason,
};
use espalier_lab::harness::GoChecker;

/// Printable ASCII, newline, tab and a few multi-byte Go lexemes; id 0 is EOS.
fn byte_vocab() -> Vocab {
    let mut all = vec![b"<eos>".to_vec()];
    all.extend((0x20u8..0x7f).map(|b| vec![b]));
    all.push(b"\n".to_vec());
    all.push(b"\t".to_vec());
    for t in [
        "func", " return", "\n\t", "if", " else", "for", " range", ":=", "`", "/*", "//", "0x",
        "struct", "{\n",
    ] {
        all.push(t.as_bytes().to_vec());
    }
    Vocab::new(all, &[0], 0)
}

#[test]
fn wrapping_up_finishes_go_that_gofmt_accepts() {
    let go = espalier_testkit::require(
        "/usr/bin/go",
        "the Go toolchain (go, gofmt)",
        Some("apt-get install golang-go"),
    );
    let checker = GoChecker::new(&go, Duration::from_secs(30));
    assert_eq!(checker.syntax_error("package p\n"), Ok(None));
    let vocab = Arc::new(byte_vocab());
    let trie = Arc::new(TokTrie::new(&vocab));
    let grammar = espalier_grammar::go().unwrap();
    let prompt = "package p\n\nfunc f() {\n";
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
            let mut c = GrammarConstraint::new(
                grammar.recognizer(),
                trie.clone(),
                Strategy::Exact,
                "go-lr",
            );
            c.commit(prompt.as_bytes()).unwrap();
            let mut model = HashModel::new(vocab.len());
            let mut g =
                Generator::new(vocab.clone(), LangConstraint::Grammar(Box::new(c)), &[1], config)
                    .unwrap();
            run(&mut g, &mut model, |_, _| {}).unwrap();
            let text = format!("{prompt}{}", g.text());
            let what = format!("wander {wander} seed {seed}: {text:?}");
            assert_eq!(g.stop_reason(), Some(&StopReason::Eos), "{what}");
            match g.stats().wrap_up_from {
                Some(from) => assert_eq!(from, wander, "{what}"),
                None => assert!(g.stats().steps <= wander, "{what}"),
            }
            wrapped += g.stats().wrap_up_from.is_some() as usize;
            assert_eq!(checker.syntax_error(&text), Ok(None), "{what}");
        }
    }
    eprintln!("{wrapped} of 12 generations wrapped up");
    assert!(wrapped >= 6, "only {wrapped} of 12 generations reached the wrap-up");
}
