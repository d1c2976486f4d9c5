//! [`StackCostMemo`] (stack costs memoised per stack prefix) against the unmemoised
//! search [`CompletionCosts::stack_cost`], on the real stacks of corpus files: after
//! every byte (the lexeme ended where it can be), both first-free variants, and at
//! line starts the stacks after INDENT (a top that opens a block) and after DEDENTs.
//! One memo serves every file, as a kit's memo serves every request.

use crate::common;
use crate::gofmt;

use espalier_grammar::{go, python, Language, LrState, StackCostMemo, TokenParser};

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
            if p.feed(&[py.indent]) {
                let mut deeper = cols.clone();
                deeper.push(cols[cols.len() - 1] + 4);
                for st in p.lr_stacks().unwrap() {
                    check(st, &deeper, &mut n);
                    opening += 2;
                }
            }
            let mut p = s.parser().clone();
            for k in (1..cols.len()).rev() {
                if !p.feed(&[py.dedent]) {
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

#[test]
fn memo_equals_the_search_on_python_stacks() {
    common::require_oracle();
    let files = common::corpus_sample(if common::slow() { 200 } else { 24 });
    let texts: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let py = python().unwrap();
    let mut memo = StackCostMemo::new();
    let (n, opening, distinct) = compare(&py, &texts, 4_000, &mut memo);
    eprintln!("python: {n} stack costs compared ({opening} with a block-opening top), {distinct} distinct costs, memo {} entries", memo.len());
    // The slow run's figure is BENCHMARKS.md's (1,146,298 measured).
    assert!(n >= if common::slow() { 1_000_000 } else { 20_000 }, "too few comparisons: {n}");
    assert!(opening >= 200, "too few block-opening tops: {opening}");
    assert!(distinct >= 10, "costs too uniform to tell: {distinct}");
}

#[test]
fn memo_equals_the_search_on_go_stacks() {
    gofmt::require_oracle();
    let files = gofmt::go_sample(if common::slow() { 200 } else { 8 });
    let texts: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let go = go().unwrap();
    let mut memo = StackCostMemo::new();
    let (n, _, distinct) = compare(&go, &texts, 3_000, &mut memo);
    eprintln!(
        "go: {n} stack costs compared, {distinct} distinct costs, memo {} entries",
        memo.len()
    );
    // The slow run's figure is BENCHMARKS.md's (1,155,438 measured).
    assert!(n >= if common::slow() { 1_000_000 } else { 20_000 }, "too few comparisons: {n}");
    assert!(distinct >= 10, "costs too uniform to tell: {distinct}");
}
