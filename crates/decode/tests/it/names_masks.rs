//! Mode `names`: the mask equals the brute-force set at sampled positions of
//! HumanEval's prompts with their canonical solutions. The brute force checks every
//! vocabulary token byte by byte through a fresh copy of the grammar's recognizer and
//! of a names layer that read the text from its start (never settled, never shared),
//! so the mask's shared scopes, settled bindings and grouped verdicts are all tested.
//! Prints the mask times of `mask` and `names` at the same positions (not asserted).

use espalier_constraint::{Constraint, GrammarConstraint, MaskKit, Strategy, TokenSet};
use espalier_decode::names_constraint::{NamesConstraint, NamesKit};
use espalier_names::layer::NamesLayer;

use crate::common::real_data::{humaneval, vocab};

/// Prompt + canonical solution of every `stride`-th HumanEval problem.
fn programs(stride: usize) -> Vec<String> {
    humaneval()
        .iter()
        .step_by(stride)
        .map(|v| {
            format!(
                "{}{}",
                v["prompt"].as_str().unwrap(),
                v["canonical_solution"].as_str().unwrap()
            )
        })
        .collect()
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() - 1) as f64 * p).round() as usize]
}

#[test]
fn names_masks_equal_the_brute_force_set() {
    let vocab = vocab();
    let kit = MaskKit::for_vocab(espalier_grammar::python().unwrap(), &vocab);
    let lang = kit.language().clone();
    // The vocabulary's groups, built once (setup), so that the first position's time
    // is a mask's.
    let names_kit = NamesKit::new(&vocab);
    let slow = espalier_testkit::slow();
    let (stride, per_program) = if slow { (1, 12) } else { (16, 6) };
    let mut mask = TokenSet::empty(vocab.len());
    let mut plain_mask = TokenSet::empty(vocab.len());
    let (mut positions, mut skipped, mut narrowed) = (0, 0, 0);
    let (mut names_us, mut mask_us) = (Vec::new(), Vec::new());
    let mut disagreements = Vec::new();
    for text in programs(stride) {
        let bytes = text.as_bytes();
        // Texts the layer refuses somewhere (a forward reference) are left out.
        let mut whole = NamesLayer::new();
        if !whole.push_bytes(bytes) {
            skipped += 1;
            continue;
        }
        for k in 1..=per_program {
            let pos = bytes.len() * k / (per_program + 1);
            let grammar = GrammarConstraint::new(&kit, Strategy::Exact, "python-lr");
            let mut plain = grammar.clone();
            let mut c = NamesConstraint::new(grammar, &names_kit);
            // Committed as a decoder would: token-sized pieces, each settling the layer.
            for piece in bytes[..pos].chunks(3) {
                c.commit(piece).expect("a prefix the layer took whole");
            }
            plain.commit(&bytes[..pos]).unwrap();
            let t = std::time::Instant::now();
            c.fill_mask(&vocab, &mut mask);
            names_us.push(t.elapsed().as_secs_f64() * 1e6);
            let t = std::time::Instant::now();
            plain.fill_mask(&vocab, &mut plain_mask);
            mask_us.push(t.elapsed().as_secs_f64() * 1e6);
            positions += 1;
            narrowed += (mask != plain_mask) as usize;
            let mut rec = lang.recognizer();
            rec.push_bytes(&bytes[..pos]).unwrap();
            let mut layer = NamesLayer::new();
            assert!(layer.push_bytes(&bytes[..pos]));
            for id in 0..vocab.len() as u32 {
                let expected = if id == vocab.eos() {
                    rec.is_complete() && layer.may_end()
                } else if vocab.is_special(id) {
                    false
                } else {
                    let tok = vocab.bytes(id);
                    let mut after = layer.clone();
                    let taken = rec.clone().push_bytes(tok).is_ok() && after.push_bytes(tok);
                    // Where the layer leaves only keywords to complete the identifier
                    // the token ends in, the grammar must take one of them, ended.
                    let rests = after.keyword_rests();
                    taken
                        && (rests.is_empty()
                            || rests.iter().any(|rest| {
                                rec.clone().push_bytes(&[tok, rest, b" "].concat()).is_ok()
                            }))
                };
                if mask.contains(id as usize) != expected {
                    disagreements.push(format!(
                        "@{pos} after {:?}: token {id} {:?}: mask {} brute force {expected}",
                        &text[pos.saturating_sub(40)..pos],
                        String::from_utf8_lossy(vocab.bytes(id)),
                        !expected
                    ));
                }
            }
        }
    }
    println!(
        "positions {positions} (programs left out: {skipped}), masks narrowed by names: \
         {narrowed}; mask p50 {:.0} p99 {:.0} us, names p50 {:.0} p99 {:.0} us",
        percentile(&mut mask_us.clone(), 0.5),
        percentile(&mut mask_us, 0.99),
        percentile(&mut names_us.clone(), 0.5),
        percentile(&mut names_us, 0.99)
    );
    assert!(
        disagreements.is_empty(),
        "{}",
        disagreements[..disagreements.len().min(20)].join("\n")
    );
    assert!(positions >= 40, "too few positions: {positions}");
    assert!(narrowed > 0, "the names layer never narrowed a mask");
}
