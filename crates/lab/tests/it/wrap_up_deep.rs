//! The wrap-up begins early enough to finish: a model that loves nesting (`if x:` in
//! Python, `if x {` in Go, the same inside a fill-in-the-middle request whose suffix
//! sits deep in nested blocks) writes under the exact mask with a small budget and a
//! wrap-up window of one token; the decoder must begin its wrap-up from the finishing
//! distance ([`espalier_constraint::Constraint::finishing_distance`]: a token after
//! which the budget left would be under it plus the margin is taken back and the
//! wrap-up begins there; one `def g():` raises a FIM distance by ~8 tokens) so that every
//! generation ends with EOS and the oracle (CPython's `ast.parse`, `gofmt -e`) accepts
//! the text. A window alone (the wrap-up before the distance existed) leaves these
//! generations cut off in deep blocks: with one token left no block can close.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::{id, HashModel};
use espalier_constraint::{Constraint, FimConstraint, GrammarConstraint, MaskKit, Strategy, Vocab};
use espalier_decode::{
    run, GenerateConfig, Generator, LangConstraint, Mode, SamplingConfig, StopReason,
};
use espalier_lab::harness::{GoChecker, PythonChecker};

/// Printable ASCII but `{` (see `wrap_up_grammar.rs`: a broken f-string field cannot be
/// finished), newline, tab and the nesting lexemes; id 0 is EOS.
fn vocab(extra: &[&str], no_brace: bool) -> Vocab {
    let mut all = vec![b"<eos>".to_vec()];
    all.extend((0x20u8..0x7f).filter(|&b| !(no_brace && b == b'{')).map(|b| vec![b]));
    all.push(b"\n".to_vec());
    all.push(b"\t".to_vec());
    all.extend(extra.iter().map(|t| t.as_bytes().to_vec()));
    Vocab::new(all, &[0], 0)
}

fn config(max_tokens: usize, seed: u64) -> GenerateConfig {
    GenerateConfig {
        mode: Mode::Mask,
        // Low temperature: the preferred nesting tokens win whenever the mask allows
        // them; the seed varies the other choices.
        sampling: SamplingConfig { temperature: 0.3, top_k: 0, top_p: 1.0, seed },
        max_tokens,
        wrap_up: Some(1),
        repetition: None,
        ..GenerateConfig::default()
    }
}

/// One generation per budget of `budgets` (its index seeds it), each from a fresh
/// constraint of `constraint`, under a model that prefers `prefer` (in that order);
/// the budgets with their generators ([`wrapped_up`] checks how each ended).
fn generate_each(
    vocab: &Arc<Vocab>,
    budgets: &[usize],
    prefer: &[&str],
    constraint: impl Fn() -> LangConstraint,
) -> Vec<(usize, Generator<LangConstraint>)> {
    let prefer: Vec<(u32, f32)> =
        prefer.iter().enumerate().map(|(k, t)| (id(vocab, t), 30.0 - 5.0 * k as f32)).collect();
    let mut out = Vec::new();
    for (k, &max_tokens) in budgets.iter().enumerate() {
        let mut model = HashModel::new(vocab.len());
        model.prefer = prefer.clone();
        let config = config(max_tokens, k as u64);
        let mut g = Generator::new(vocab.clone(), constraint(), &[1], config).unwrap();
        run(&mut g, &mut model, |_, _| {}).unwrap();
        out.push((max_tokens, g));
    }
    out
}

/// Asserts that `g` ended with EOS after a wrap-up begun on the distance; what the
/// further assertions say of the generation (`text`: it whole, with the request).
fn wrapped_up(g: &Generator<LangConstraint>, text: &str, max_tokens: usize) -> String {
    let what = format!("budget {max_tokens}: {text:?} ({:?})", g.stats());
    assert_eq!(g.stop_reason(), Some(&StopReason::Eos), "{what}");
    assert!(g.stats().wrap_up_distance.is_some(), "the distance began the wrap-up: {what}");
    what
}

/// Deepest indentation (in columns) or brace depth the text reached.
fn depth(text: &str, open: char, close: char) -> usize {
    let (mut d, mut max) = (0usize, 0usize);
    for c in text.chars() {
        if c == open {
            d += 1;
            max = max.max(d);
        } else if c == close {
            d = d.saturating_sub(1);
        }
    }
    max
}

fn python_checker() -> PythonChecker {
    let checker =
        PythonChecker { python: "/usr/bin/python3.11".into(), timeout: Duration::from_secs(30) };
    checker.syntax_error("pass\n").expect("the oracle /usr/bin/python3.11 is required");
    checker
}

#[test]
fn python_nested_blocks_close_within_the_budget() {
    let checker = python_checker();
    let vocab = Arc::new(vocab(&["if x:\n", "    ", "pass"], true));
    let kit = MaskKit::for_vocab(espalier_grammar::python().unwrap(), &vocab);
    let python = || {
        LangConstraint::Grammar(Box::new(GrammarConstraint::new(
            &kit,
            Strategy::Exact,
            "python-lr",
        )))
    };
    for (max_tokens, g) in
        generate_each(&vocab, &[24, 31, 40, 57, 64], &["if x:\n", "    "], python)
    {
        let text = g.text();
        let what = wrapped_up(&g, &text, max_tokens);
        assert!(text.matches("if x:").count() >= 3, "the model nested: {what}");
        assert_eq!(checker.syntax_error(&text), Ok(None), "{what}");
    }
}

#[test]
fn go_nested_blocks_close_within_the_budget() {
    let go = espalier_testkit::require(
        "/usr/bin/go",
        "the Go toolchain (go, gofmt)",
        Some("apt-get install golang-go"),
    );
    let checker = GoChecker::new(&go, Duration::from_secs(30));
    let vocab = Arc::new(vocab(&["if x {\n", "}"], false));
    let kit = MaskKit::for_vocab(espalier_grammar::go().unwrap(), &vocab);
    let prompt = "package p\n\nfunc f(x bool) {\n";
    let go = || {
        let mut c = GrammarConstraint::new(&kit, Strategy::Exact, "go-lr");
        c.commit(prompt.as_bytes()).unwrap();
        LangConstraint::Grammar(Box::new(c))
    };
    for (max_tokens, g) in generate_each(&vocab, &[24, 31, 40, 57, 64], &["if x {\n"], go) {
        let text = format!("{prompt}{}", g.text());
        let what = wrapped_up(&g, &text, max_tokens);
        assert!(depth(&text, '{', '}') >= 6, "the model nested: {what}");
        assert_eq!(checker.syntax_error(&text), Ok(None), "{what}");
    }
}

/// Fill-in-the-middle: the cursor is the body of a block 12 columns deep, the suffix
/// goes on with an `elif` of that block; the model nests `def g():` ever deeper. The
/// finishing distance is the shortest bridge to joining the suffix.
#[test]
fn fim_middles_nested_deep_join_the_suffix_within_the_budget() {
    let checker = python_checker();
    let vocab = Arc::new(vocab(&["def g():\n", "    ", "pass"], true));
    let kit = MaskKit::for_vocab(espalier_grammar::python().unwrap(), &vocab);
    let prefix = "def f(x):\n    for y in x:\n        if x:\n            if y:\n";
    let suffix = "            elif x:\n                pass\n    return x\n";
    let fim = || {
        let c = FimConstraint::new(&kit, prefix.as_bytes(), suffix.as_bytes()).unwrap();
        LangConstraint::Fim(Box::new(c))
    };
    for (max_tokens, g) in generate_each(&vocab, &[32, 40, 57, 64], &["def g():\n", "    "], fim) {
        let text = format!("{prefix}{}{suffix}", g.text());
        let what = wrapped_up(&g, &text, max_tokens);
        assert!(g.text().matches("def g():").count() >= 1, "the model nested: {what}");
        assert_eq!(checker.syntax_error(&text), Ok(None), "{what}");
    }
}
