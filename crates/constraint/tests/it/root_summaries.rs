//! The root summaries of `LexemeStarts` (one per class of equivalent lexer states,
//! all built at setup) against a count derived independently: Hopcroft's partition
//! refinement of the lexer DFA, here in the test, where the crate uses Moore's. Two
//! states are equivalent when every continuation gives them the same winners; the
//! classes that hold neither DEAD nor START (never a remainder's state) each get a
//! summary. The figures are printed for the docs (`lexeme_starts.rs`, README).

use std::sync::Arc;

use espalier_constraint::lexeme_starts::LexemeStarts;
use espalier_constraint::{TokTrie, Vocab};
use espalier_grammar::{LexerDfa, TerminalId};

/// The classes of equivalent states of `dfa` (Hopcroft: split by "same winners",
/// then by predecessors of the blocks on the work list, keeping the smaller half).
fn hopcroft(dfa: &LexerDfa) -> Vec<Vec<u32>> {
    let n = dfa.num_states();
    let mut symbols = vec![0u8; dfa.num_classes()];
    for b in 0..=255u8 {
        symbols[dfa.byte_class(b) as usize] = b;
    }
    // Predecessors per symbol and target.
    let mut pred: Vec<Vec<Vec<u32>>> = vec![vec![Vec::new(); n]; symbols.len()];
    for s in dfa.states() {
        for (c, &b) in symbols.iter().enumerate() {
            pred[c][dfa.next(s, b).index()].push(s.as_u32());
        }
    }
    let mut by_winners: std::collections::BTreeMap<&[TerminalId], Vec<u32>> = Default::default();
    for s in dfa.states() {
        by_winners.entry(dfa.winners(s)).or_default().push(s.as_u32());
    }
    let mut blocks: Vec<Vec<u32>> = by_winners.into_values().collect();
    let mut block_of = vec![0usize; n];
    for (i, b) in blocks.iter().enumerate() {
        for &s in b {
            block_of[s as usize] = i;
        }
    }
    let mut work: Vec<usize> = (0..blocks.len()).collect();
    let mut queued = vec![true; blocks.len()];
    let mut mark = vec![false; n];
    while let Some(a) = work.pop() {
        queued[a] = false;
        let splitter = blocks[a].clone();
        for preds in &pred {
            let hit: Vec<u32> =
                splitter.iter().flat_map(|&t| preds[t as usize].iter().copied()).collect();
            for &s in &hit {
                mark[s as usize] = true;
            }
            let mut touched: Vec<usize> = hit.iter().map(|&s| block_of[s as usize]).collect();
            touched.sort_unstable();
            touched.dedup();
            for y in touched {
                let (inside, outside): (Vec<u32>, Vec<u32>) =
                    blocks[y].iter().partition(|&&s| mark[s as usize]);
                if outside.is_empty() {
                    continue;
                }
                let z = blocks.len();
                for &s in &outside {
                    block_of[s as usize] = z;
                }
                let smaller = if inside.len() <= outside.len() { y } else { z };
                blocks[y] = inside;
                blocks.push(outside);
                queued.push(false);
                if queued[y] {
                    queued[z] = true;
                    work.push(z);
                } else {
                    queued[smaller] = true;
                    work.push(smaller);
                }
            }
            for &s in &hit {
                mark[s as usize] = false;
            }
        }
    }
    blocks
}

#[test]
fn one_root_summary_per_class_of_equivalent_lexer_states() {
    let tokens: Vec<Vec<u8>> =
        ["<eos>", "a", "ab", "'", "\"\"\"", "\\", "#c\n", " ", "\n", "f'", "{", "}", "1", "(", ")"]
            .iter()
            .map(|t| t.as_bytes().to_vec())
            .collect();
    let vocab = Vocab::new(tokens, &[0], 0);
    let trie = TokTrie::new(&vocab);
    for (name, lang) in
        [("python", espalier_grammar::python().unwrap()), ("go", espalier_grammar::go().unwrap())]
    {
        let dfa: &Arc<LexerDfa> = &lang.dfa;
        let classes = hopcroft(dfa);
        let total: usize = classes.iter().map(Vec::len).sum();
        assert_eq!(total, dfa.num_states(), "{name}: a partition of the states");
        let remainder_classes = classes
            .iter()
            .filter(|c| {
                !c.contains(&LexerDfa::DEAD.as_u32()) && !c.contains(&LexerDfa::START.as_u32())
            })
            .count();
        let starts = LexemeStarts::build(&trie, dfa).expect("summaries");
        eprintln!(
            "{name}: {} lexer states, {} classes of equivalent states, {remainder_classes} \
             without DEAD or START: {} root summaries",
            dfa.num_states(),
            classes.len(),
            starts.roots_built()
        );
        assert_eq!(starts.roots_built(), remainder_classes, "{name}");
        assert!(remainder_classes < dfa.num_states(), "{name}: equivalent states share summaries");
    }
}
