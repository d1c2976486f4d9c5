//! The finishing mask scored along the trie walk equals the token-by-token reference
//! (`finishing_mask_per_token`: a recognizer copy and a cost per allowed token), on
//! real steps: CPython and Go standard library files cut at seeded offsets, each cut
//! then followed for a few bytes of the file's own text (inside names, strings,
//! comments, indentation, at lexeme boundaries), and the slowest contexts of the
//! finishing bench (`tests/data/slow-finishing-contexts.json`: prefixes of HumanEval
//! generations from `results/eval/humaneval-greedy-40*-wrapup.jsonl`, cut at the steps
//! `espalier bench mask --finishing --worst` listed). Both stay inside the exact mask.
//! The trie walk's constraints share one cost cache (as a kit's do: costs found in one
//! file are read in the next); the reference computes every cost afresh.

use crate::common;

use espalier_constraint::{Constraint, CostCache, GrammarConstraint, TokenSet, Vocab};

/// Compares both finishing masks at `cuts` seeded points of each file, stepping
/// `follow` bytes of the true text after each; returns (steps, steered steps).
fn compare(
    files: &[(String, String)],
    make: &dyn Fn() -> GrammarConstraint,
    vocab: &Vocab,
    cuts: usize,
    follow: usize,
    rng: &mut common::Rng,
) -> (usize, usize) {
    let (mut steps, mut steered) = (0, 0);
    for (path, text) in files {
        let bytes = text.as_bytes();
        for _ in 0..cuts {
            let pos = rng.below(bytes.len());
            (steps, steered) =
                add(compare_at(path, bytes, pos, make, vocab, follow), (steps, steered));
        }
    }
    (steps, steered)
}

fn add(a: (usize, usize), b: (usize, usize)) -> (usize, usize) {
    (a.0 + b.0, a.1 + b.1)
}

/// Compares both finishing masks after `bytes[..pos]`, then after each of the next
/// `follow` bytes; returns (steps, steered steps).
fn compare_at(
    path: &str,
    bytes: &[u8],
    pos: usize,
    make: &dyn Fn() -> GrammarConstraint,
    vocab: &Vocab,
    follow: usize,
) -> (usize, usize) {
    let (mut steps, mut steered) = (0, 0);
    let (mut walk, mut each, mut exact) =
        (TokenSet::empty(vocab.len()), TokenSet::empty(vocab.len()), TokenSet::empty(vocab.len()));
    let mut c = make();
    if c.commit(&bytes[..pos]).is_err() {
        return (0, 0);
    }
    for k in pos..(pos + follow).min(bytes.len()) {
        let a = c.finishing_mask(vocab, &mut walk).expect("LR constraint");
        let b = c.finishing_mask_per_token(vocab, &mut each).expect("LR constraint");
        let at = || {
            format!(
                "{path} @{k}: after {:?}",
                String::from_utf8_lossy(&bytes[k.saturating_sub(40)..k])
            )
        };
        assert_eq!(a, b, "{}", at());
        if walk != each {
            let (only_walk, only_each) =
                (only_in(&walk, &each, vocab), only_in(&each, &walk, vocab));
            panic!("{}: trie walk only {only_walk:?}, per token only {only_each:?}", at());
        }
        c.fill_mask(vocab, &mut exact);
        assert!(
            walk.iter().all(|t| exact.contains(t)),
            "{}: finishing mask outside the exact mask",
            at()
        );
        steps += 1;
        steered += a.steered as usize;
        if c.commit(&bytes[k..k + 1]).is_err() {
            break;
        }
    }
    (steps, steered)
}

/// The first ten tokens of `a` that `b` lacks, as quoted text.
fn only_in(a: &TokenSet, b: &TokenSet, vocab: &Vocab) -> Vec<String> {
    a.iter()
        .filter(|&t| !b.contains(t))
        .take(10)
        .map(|t| format!("{:?}", String::from_utf8_lossy(vocab.bytes(t as u32))))
        .collect()
}

/// One language's case of [`trie_walk_scores_equal_per_token_scores`].
struct WalkCase {
    lang: &'static common::GrammarLang,
    /// The sample's stride (slow run, default run) and first file.
    stride: (usize, usize),
    first: usize,
    seed: u64,
    /// The least steps compared (slow run, default run); the slow run's figure is
    /// BENCHMARKS.md's.
    min_steps: (usize, usize),
}

const WALK_CASES: [WalkCase; 2] = [
    // 693 steps measured under ESPALIER_SLOW=1.
    WalkCase {
        lang: &common::PYTHON,
        stride: (20, 160),
        first: 11,
        seed: 0xF1_4150,
        min_steps: (600, 60),
    },
    // 1,200 steps measured under ESPALIER_SLOW=1.
    WalkCase {
        lang: &common::GO,
        stride: (40, 400),
        first: 5,
        seed: 0xF1_4151,
        min_steps: (1_000, 60),
    },
];

#[test]
fn trie_walk_scores_equal_per_token_scores() {
    common::each_lang(&WALK_CASES, |c| c.lang, trie_walk_agrees);
}

fn trie_walk_agrees(case: &WalkCase) {
    let (_tok, vocab, trie) = common::smollm2();
    let kit = case.lang.kit(&trie);
    let slow = common::slow();
    let stride = if slow { case.stride.0 } else { case.stride.1 };
    let files = case.lang.sample(stride, case.first, 20_000);
    let cache = CostCache::new();
    let make = || {
        case.lang
            .constraint(&kit, espalier_constraint::Strategy::Exact, None)
            .with_cost_cache(cache.clone())
    };
    let mut rng = common::Rng(case.seed);
    let (steps, steered) = compare(&files, &make, &vocab, 2, 6, &mut rng);
    eprintln!("{}: {steps} steps compared, {steered} steered", case.lang.name);
    let min = if slow { case.min_steps.0 } else { case.min_steps.1 };
    assert!(steps >= min, "{}: too few steps: {steps}", case.lang.name);
}

#[test]
fn trie_walk_scores_equal_per_token_scores_in_the_slowest_contexts() {
    let (_tok, vocab, trie) = common::smollm2();
    let py_kit = common::PYTHON.kit(&trie);
    let data = include_str!("../data/slow-finishing-contexts.json");
    let contexts: Vec<serde_json::Value> = serde_json::from_str(data).expect("the contexts parse");
    let cache = CostCache::new();
    let make = || {
        common::PYTHON
            .constraint(&py_kit, espalier_constraint::Strategy::Exact, None)
            .with_cost_cache(cache.clone())
    };
    let (mut steps, mut steered) = (0, 0);
    for c in &contexts {
        let (name, text) = (c["name"].as_str().unwrap(), c["text"].as_str().unwrap());
        let pos = c["offset"].as_u64().unwrap() as usize;
        let (n, s) = compare_at(name, text.as_bytes(), pos, &make, &vocab, 6);
        assert!(n >= 6, "{name}: only {n} steps (the prefix must be viable)");
        (steps, steered) = add((n, s), (steps, steered));
    }
    eprintln!(
        "slow contexts: {steps} steps compared, {steered} steered, cache {} entries",
        cache.entries()
    );
    assert!(contexts.len() >= 8 && steered >= steps / 2, "{steered} of {steps} steered");
}

/// The walk's summarized paths (finish8): the text ending inside a lexeme (the root
/// summary: names, numbers, strings, comments, string prefixes that may open an
/// f-string, whose groups are scored token by token) and lexeme starts below
/// boundaries, each followed for a few bytes; and inside f-strings (names skipped
/// where the literal's closer is the best way).
#[test]
fn trie_walk_scores_equal_per_token_scores_inside_lexemes_and_string_prefixes() {
    let (_tok, vocab, trie) = common::smollm2();
    let py_kit = common::PYTHON.kit(&trie);
    let cache = CostCache::new();
    let make = || {
        common::PYTHON
            .constraint(&py_kit, espalier_constraint::Strategy::Exact, None)
            .with_cost_cache(cache.clone())
    };
    let texts = [
        "x = f'ab{c}' + rf\"{d!r:>{w}}\" + Rb'\\x00' + fr'{e}'\n",
        "def g(a, b=0x1f, *c):\n    return a.real + 1e-3 + 0o17 + 10_000j  # a comment\n",
        "s = '''doc\n  string''' if u else \"\"\"x\"\"\"\nprint(s, end='')\n",
        "class K:\n\tdef m(self):\n\t\treturn [i for i in range(3) if i]\n",
        // Fields that need a filler (`{x +`, `{x.`, `{x if`), nested fields,
        // brackets and quotes inside fields: names are skipped there only when the
        // literal's own closer is the best way.
        "y = f\"{x + a1:>{w}} {d['k'] * 2!r} {(a, [b0, {c: 1}])}\" + f'{x.real if x else y_}'\n",
        "z = f'({{[{[{[{[{a}]}]}]}]}})' + F\"\"\"{n:{m}}\"\"\"\n",
    ];
    let mut steps = 0;
    for text in texts {
        let bytes = text.as_bytes();
        for pos in 1..bytes.len() {
            steps += compare_at("inline", bytes, pos, &make, &vocab, 1).0;
        }
    }
    eprintln!("inside lexemes: {steps} steps compared");
    assert!(steps >= 300, "too few steps: {steps}");
}
