//! Exactness: at random byte positions of real files, for a fixed random sample of
//! 2000 vocabulary tokens, `exact` allows a token iff pushing its bytes through a copy
//! of the incremental recognizer succeeds (the brute-force viable-prefix oracle).
//! Zero disagreements. Also measures how much `syncode` over-approximates (tokens it
//! allows that are not viable) and checks it never under-approximates.

mod common;

use espalier_constraint::{Constraint, GrammarConstraint, Strategy, TokenSet};

#[test]
fn exact_masks_equal_the_brute_force_oracle() {
    let (_tok, vocab, trie) = common::smollm2();
    let store = common::python_store(&vocab);
    let mut rng = common::Rng(0x5EED_0003);
    let sample: Vec<u32> = {
        let mut ids: Vec<u32> =
            (0..vocab.len() as u32).filter(|&id| !vocab.is_special(id)).collect();
        for i in 0..2000 {
            let j = i + rng.below(ids.len() - i);
            ids.swap(i, j);
        }
        ids.truncate(2000);
        ids
    };
    let positions_per_file = if common::slow() { 60 } else { 12 };
    let files = common::cpython_sample(if common::slow() { 20 } else { 90 }, 7, 30_000);
    let lang = espalier_grammar::python().unwrap();
    let mut mask = TokenSet::empty(vocab.len());
    let mut syncode_mask = TokenSet::empty(vocab.len());
    let (mut positions, mut disagreements, mut over, mut viable_total) =
        (0, Vec::new(), 0usize, 0usize);
    let mut under = Vec::new();
    for (path, text) in &files {
        if !common::grammar_accepts(text) {
            continue;
        }
        let bytes = text.as_bytes();
        for _ in 0..positions_per_file {
            let pos = rng.below(bytes.len() + 1);
            let mut rec = lang.recognizer();
            rec.push_bytes(&bytes[..pos]).expect("a prefix of an accepted file is viable");
            let mut c =
                GrammarConstraint::new(rec.clone(), trie.clone(), Strategy::Exact, "python-lr")
                    .with_store(store.clone());
            c.fill_mask(&vocab, &mut mask);
            let syncode_answered = {
                c.set_strategy(Strategy::Syncode);
                c.syncode_mask(&mut syncode_mask)
            };
            positions += 1;
            for &id in &sample {
                let viable = {
                    let mut r = rec.clone();
                    r.push_bytes(vocab.bytes(id)).is_ok()
                };
                viable_total += viable as usize;
                if mask.contains(id as usize) != viable {
                    disagreements.push(format!(
                        "{path} @{pos}: token {id} {:?}: exact {} oracle {viable} (after {:?})",
                        String::from_utf8_lossy(vocab.bytes(id)),
                        mask.contains(id as usize),
                        String::from_utf8_lossy(&bytes[pos.saturating_sub(40)..pos])
                    ));
                }
                if syncode_answered {
                    let s = syncode_mask.contains(id as usize);
                    if s && !viable {
                        over += 1;
                    }
                    if !s && viable {
                        under.push(format!(
                            "{path} @{pos}: token {id} {:?}",
                            String::from_utf8_lossy(vocab.bytes(id))
                        ));
                    }
                }
            }
            assert_eq!(c.is_complete(), rec.is_complete());
        }
    }
    eprintln!(
        "exactness: {positions} positions x {} tokens, {viable_total} viable pairs, \
         {} disagreements; syncode allows {over} non-viable pairs ({:.2}% of the viable \
         count), misses {} viable pairs",
        sample.len(),
        disagreements.len(),
        100.0 * over as f64 / viable_total.max(1) as f64,
        under.len()
    );
    assert!(positions >= 50, "too few positions: {positions}");
    assert!(
        disagreements.is_empty(),
        "{}",
        disagreements[..disagreements.len().min(30)].join("\n")
    );
    assert!(
        under.is_empty(),
        "syncode misses viable tokens:\n{}",
        under[..under.len().min(30)].join("\n")
    );
}
