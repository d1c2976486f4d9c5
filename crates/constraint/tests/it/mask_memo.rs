//! Reused exact masks: decoding real files token by token (the SmolLM2 tokenizer's
//! tokens), the constraint's mask at every step, where it may be the kept mask of
//! an earlier step (`mask_memo`), equals the mask a fresh constraint computes on the
//! same text (no kept mask; that mask is checked against the brute force by
//! `exactness.rs`), EOS included. Python (comments, docstrings,
//! strings, f-strings, names) and Go (comments, raw strings); at least half of
//! the steps must reuse a mask, so that a memo that stopped matching fails too.

use crate::common;

use espalier_constraint::{Constraint, GrammarConstraint, Strategy, TokenSet, Vocab};

/// Decodes `text`'s tokens through `running` (fresh constraints from `fresh`),
/// comparing every mask; returns (steps, reused masks, disagreements).
fn walk(
    text: &str,
    path: &str,
    tok: &espalier_model::Tokenizer,
    vocab: &Vocab,
    fresh: &dyn Fn() -> GrammarConstraint,
) -> (usize, usize, Vec<String>) {
    let ids = tok.encode(text).expect("tokenize");
    let mut running = fresh();
    let (mut a, mut b) = (TokenSet::empty(vocab.len()), TokenSet::empty(vocab.len()));
    let mut bad = Vec::new();
    for (step, &id) in ids.iter().enumerate() {
        running.fill_mask(vocab, &mut a);
        let mut f = fresh();
        if f.commit(running.text()).is_err() {
            panic!("{path}: the fresh constraint refuses the running text");
        }
        f.fill_mask(vocab, &mut b);
        if a != b {
            let t = running.text();
            bad.push(format!(
                "{path} step {step}: reused {} tokens, fresh {} (after {:?})",
                a.count(),
                b.count(),
                String::from_utf8_lossy(&t[t.len().saturating_sub(40)..])
            ));
        }
        if running.commit(vocab.bytes(id)).is_err() {
            break; // the grammar refuses the file (it was not filtered)
        }
    }
    (ids.len(), running.reused_masks(), bad)
}

#[test]
fn reused_masks_equal_fresh_ones_on_python_and_go() {
    let (tok, vocab, trie) = common::smollm2();
    let (py_kit, go_kit) = (common::PYTHON.kit(&trie), common::GO.kit(&trie));
    let py = || common::PYTHON.constraint(&py_kit, Strategy::Exact, None);
    let go = || common::GO.constraint(&go_kit, Strategy::Exact, None);
    let slow = common::slow();
    let mut runs: Vec<(String, String, &dyn Fn() -> GrammarConstraint)> = Vec::new();
    for (path, text) in common::cpython_sample(if slow { 40 } else { 400 }, 11, 12_000) {
        if common::PYTHON.accepts(&text) {
            runs.push((path, text, &py));
        }
    }
    // Docstrings, comments, strings, f-strings (fields, nested quotes, `!r`, specs):
    // the f-string heads the memo must compare byte for byte.
    let sample = "def f(a, b):\n    \"\"\"One line.\n\n    More lines, \"quoted\", 'q' \\\\ and \\\"\"\"\"\n    # a comment, then a name\n    long_name_here = a + b  # trailing comment\n    s = 'a string with words' + r\"raw \\d words\" + b'bytes'\n    t = f\"{a!r:>{b}} and {long_name_here} text\" + F'{a}' + rf'{b}\\d'\n    u = f\"{a}{b}\" f'{f\"{a}\"}' '''triple\nquoted''' \"\"\"\"\"\"\n    return s, t, u\n";
    runs.push(("sample".into(), sample.into(), &py));
    for (path, text) in common::go_sample(if slow { 60 } else { 600 }, 5, 8_000) {
        runs.push((path, text, &go));
    }
    let (mut steps, mut reused, mut bad) = (0, 0, Vec::new());
    for (path, text, fresh) in &runs {
        let (s, r, b) = walk(text, path, &tok, &vocab, *fresh);
        eprintln!("{path}: {s} steps, {r} reused");
        steps += s;
        reused += r;
        bad.extend(b);
    }
    eprintln!(
        "mask memo: {} files, {steps} steps, {reused} masks reused, {} disagreements",
        runs.len(),
        bad.len()
    );
    espalier_testkit::assert_none(&bad, "memo masks that differ");
    assert!(reused * 2 >= steps, "only {reused} of {steps} masks reused");
}
