//! The constraint API on hostile use: several threads at once, a clone taken in the
//! middle of a string, a vocabulary of the wrong width, a 1 MB prompt. Python's exact
//! masks over the SmolLM2 vocabulary.
//!
//! Threads: a `GrammarConstraint` is `Send` (checked at compile time below) and shares
//! its vocabulary trie, language and caches with its clones through `Arc`s; mutation
//! needs `&mut`, so "several threads at once" means clones of one constraint stepped on
//! several threads while they share those caches. The stress run checks that each
//! thread's masks equal the ones computed on one thread beforehand.

use crate::common;

use std::time::{Duration, Instant};

use espalier_constraint::{Constraint, GrammarConstraint, MaskKit, Strategy, TokenSet, Vocab};

fn setup() -> (Vocab, MaskKit) {
    let (_, vocab, trie) = common::smollm2();
    (vocab, common::PYTHON.kit(&trie))
}

fn python(kit: &MaskKit) -> GrammarConstraint {
    common::PYTHON.constraint(kit, Strategy::Exact, None)
}

fn mask_of(c: &mut GrammarConstraint, vocab: &Vocab) -> TokenSet {
    let mut m = TokenSet::empty(vocab.len());
    c.fill_mask(vocab, &mut m);
    m
}

/// The masks after each of `cuts` byte counts of `text`, from a fresh constraint.
fn masks_along(
    base: &GrammarConstraint,
    vocab: &Vocab,
    text: &[u8],
    cuts: &[usize],
) -> Vec<TokenSet> {
    let mut c = base.clone();
    let mut at = 0;
    cuts.iter()
        .map(|&cut| {
            c.commit(&text[at..cut]).expect("the corpus text is valid");
            at = cut;
            mask_of(&mut c, vocab)
        })
        .collect()
}

#[test]
fn a_grammar_constraint_is_send_and_its_clones_share_caches_safely_across_threads() {
    fn is_send<T: Send>() {}
    is_send::<GrammarConstraint>();
    let (vocab, kit) = setup();
    let base = python(&kit);
    // Every 25th corpus file up to 6 KB (a stride of 400 left only 2): the first 6 the
    // grammar accepts (slow: 12).
    let threads = if common::slow() { 12 } else { 6 };
    let files = common::cpython_sample(25, 3, 6_000);
    let files: Vec<_> =
        files.into_iter().filter(|(_, t)| common::PYTHON.accepts(t)).take(threads).collect();
    assert!(files.len() >= 4, "too few corpus files: {}", files.len());
    let work: Vec<(Vec<u8>, Vec<usize>)> = files
        .iter()
        .map(|(_, t)| {
            let b = t.as_bytes().to_vec();
            let cuts = (1..=12).map(|i| i * b.len() / 12).collect();
            (b, cuts)
        })
        .collect();
    // On one thread first (a fresh constraint each, so no cache is warm for them yet
    // but the shared start mask).
    let want: Vec<Vec<TokenSet>> =
        work.iter().map(|(t, cuts)| masks_along(&base, &vocab, t, cuts)).collect();
    let rounds = if common::slow() { 20 } else { 3 };
    std::thread::scope(|s| {
        for (i, (t, cuts)) in work.iter().enumerate() {
            let (base, vocab, want) = (base.clone(), &vocab, &want[i]);
            s.spawn(move || {
                for round in 0..rounds {
                    let got = masks_along(&base, vocab, t, cuts);
                    assert!(got == *want, "thread {i}, round {round}: masks differ");
                }
            });
        }
    });
}

#[test]
fn a_clone_taken_mid_string_is_independent_of_its_original() {
    let (vocab, kit) = setup();
    for (head, a, b) in [
        ("x = \"abc", "def\"\n", "\" + y\n"),
        ("s = f\"{a", "}b\"\n", " + 1:>4}\"\n"),
        ("t = '''line\n", "more'''\n", "'''\n"),
        ("b = b'\\x", "00'\n", "ff' + c\n"),
    ] {
        let mut c = python(&kit);
        c.commit(head.as_bytes()).unwrap();
        let mut d = c.clone();
        c.commit(a.as_bytes()).unwrap();
        d.commit(b.as_bytes()).unwrap();
        for (mut got, whole) in [(c, format!("{head}{a}")), (d, format!("{head}{b}"))] {
            let mut fresh = python(&kit);
            fresh.commit(whole.as_bytes()).unwrap();
            assert_eq!(mask_of(&mut got, &vocab), mask_of(&mut fresh, &vocab), "{whole:?}");
            assert!(got.is_complete() && fresh.is_complete(), "{whole:?}");
        }
    }
}

#[test]
fn a_vocabulary_of_the_wrong_width_is_refused_without_a_panic() {
    let (vocab, kit) = setup();
    let mut c = python(&kit);
    c.commit(b"x = ").unwrap();
    assert_eq!(c.vocab_width(), Some(vocab.len()));
    for width in [3, vocab.len() - 1, vocab.len() + 100] {
        let other = Vocab::new((0..width).map(|i| format!("t{i}").into_bytes()).collect(), &[], 0);
        let mut mask = TokenSet::empty(other.len());
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            c.fill_mask(&other, &mut mask);
        }));
        assert!(caught.is_ok(), "width {width}: fill_mask panicked");
        assert!(
            mask.is_empty(),
            "width {width}: a mask over another vocabulary must allow nothing"
        );
        assert_ne!(c.vocab_width(), Some(other.len()), "a driver can tell before it starts");
    }
    // The right vocabulary still gets its mask afterwards.
    assert!(!mask_of(&mut c, &vocab).is_empty());
}

#[test]
fn a_one_megabyte_prompt_is_taken_or_refused_in_bounded_time() {
    let (vocab, kit) = setup();
    let line = "value = compute(alpha, beta) + [1, 2, 3][0]  # a comment\n";
    let prompt = line.repeat((1 << 20) / line.len() + 1);
    let t = Instant::now();
    let mut c = python(&kit);
    c.commit(prompt.as_bytes()).expect("a valid 1 MB prompt is taken");
    let m = mask_of(&mut c, &vocab);
    assert!(m.contains(vocab.eos() as usize) && m.count() > 1000);
    let took = t.elapsed();
    // Invalid at its last byte: refused at that offset, the constraint unchanged.
    let mut bad = python(&kit);
    let mut text = prompt.clone().into_bytes();
    text.extend_from_slice(b"def )");
    let r = bad.commit(&text).unwrap_err();
    assert_eq!(r.offset, text.len() - 1);
    assert!(bad.text().is_empty(), "a refused commit leaves the constraint unchanged");
    eprintln!("1 MB prompt: committed and masked in {took:?}");
    assert!(took < Duration::from_secs(60), "{took:?}");
}
