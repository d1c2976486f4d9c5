//! [`StackCostMemo`] (stack costs memoised per stack prefix) against the unmemoised
//! search [`CompletionCosts::stack_cost`], on the real stacks of corpus files: after
//! every byte (the lexeme ended where it can be), both first-free variants, and at
//! line starts the stacks after INDENT (a top that opens a block) and after DEDENTs.
//! One memo serves every file, as a kit's memo serves every request.

use crate::common;
use crate::gofmt;

use std::path::PathBuf;
use std::sync::Arc;

use espalier_grammar::{Language, LrState, StackCostMemo, TokenParser};

/// Compares memo and reference on the states of `texts` (each cut at `max_bytes`);
/// returns (comparisons, comparisons whose top opens a block, distinct costs seen).
fn compare(
    lang: &std::sync::Arc<Language>,
    texts: &[Vec<u8>],
    max_bytes: usize,
    memo: &mut StackCostMemo,
) -> (usize, usize, usize) {
    let costs = lang.completion_costs();
    let (mut n, mut opening) = (0, 0);
    let mut seen = std::collections::BTreeSet::new();
    let mut check = |stack: &[LrState], cols: &[u32], n: &mut usize| {
        for first_free in [false, true] {
            let want = costs.stack_cost(stack, cols, first_free);
            let got = memo.stack_cost(costs, stack, cols, first_free);
            assert_eq!(got, want, "stack {stack:?} cols {cols:?} first_free {first_free}");
            seen.insert(want);
            *n += 1;
        }
    };
    for text in texts {
        let mut r = lang.recognizer();
        for &b in &text[..text.len().min(max_bytes)] {
            if r.push_bytes(&[b]).is_err() {
                break;
            }
            let mut s = r.clone();
            if s.remainder().len > 0 && !s.end_lexeme() {
                continue;
            }
            let cols: Vec<u32> = s.indentation().map_or(vec![0], |i| i.cols.to_vec());
            let Some(stacks) = s.parser().lr_stacks().map(|x| x.to_vec()) else { continue };
            for st in &stacks {
                check(st, &cols, &mut n);
            }
            let (Some(py), Some(ind)) = (lang.python(), s.indentation()) else { continue };
            if !ind.at_line_start || ind.depth > 0 {
                continue;
            }
            let mut p = s.parser().clone();
            if p.feed(&[py.layout.indent]) {
                let mut deeper = cols.clone();
                deeper.push(cols[cols.len() - 1] + 4);
                for st in p.lr_stacks().unwrap() {
                    check(st, &deeper, &mut n);
                    opening += 2;
                }
            }
            let mut p = s.parser().clone();
            for k in (1..cols.len()).rev() {
                if !p.feed(&[py.layout.dedent]) {
                    break;
                }
                for st in p.lr_stacks().unwrap() {
                    check(st, &cols[..k], &mut n);
                }
            }
        }
    }
    (n, opening, seen.len())
}

/// One language's comparison.
struct Case {
    name: &'static str,
    /// Its corpus files (the oracle's corpus required first), so many of them.
    sample: fn(usize) -> Vec<PathBuf>,
    /// How many files (CI, slow), and the bytes read of each.
    files: (usize, usize),
    max_bytes: usize,
    /// At least this many comparisons whose top opens a block (Go's grammar has no
    /// INDENT: 0).
    opening: usize,
}

const CASES: [Case; 2] = [
    Case {
        name: "python",
        sample: python_sample,
        files: (24, 200),
        max_bytes: 4_000,
        opening: 200,
    },
    Case { name: "go", sample: go_sample, files: (8, 200), max_bytes: 3_000, opening: 0 },
];

fn python_sample(n: usize) -> Vec<PathBuf> {
    common::require_oracle();
    common::corpus_sample(n)
}

fn go_sample(n: usize) -> Vec<PathBuf> {
    gofmt::require_oracle();
    gofmt::go_sample(n)
}

#[test]
fn memo_equals_the_search_on_real_stacks() {
    common::each_grammar(&CASES, |c| c.name, memo_equals_the_search);
}

fn memo_equals_the_search(case: &Case, lang: &Arc<Language>) {
    let files = (case.sample)(if common::slow() { case.files.1 } else { case.files.0 });
    let texts: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let mut memo = StackCostMemo::new();
    let (n, opening, distinct) = compare(lang, &texts, case.max_bytes, &mut memo);
    eprintln!(
        "{}: {n} stack costs compared ({opening} with a block-opening top), {distinct} distinct costs, memo {} entries",
        case.name,
        memo.len()
    );
    // The slow runs' figures are BENCHMARKS.md's (Python 1,146,298 and Go 1,155,438
    // measured).
    assert!(n >= if common::slow() { 1_000_000 } else { 20_000 }, "too few comparisons: {n}");
    assert!(opening >= case.opening, "too few block-opening tops: {opening}");
    assert!(distinct >= 10, "costs too uniform to tell: {distinct}");
}
