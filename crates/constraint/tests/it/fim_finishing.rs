//! The FIM finishing mask on SmolLM2's vocabulary, from middles that went astray:
//! CPython files cut into prefix / true middle / suffix, the middle written as a part
//! of the true middle then random tokens of the exact mask (a walk that leaves the
//! true text); then the wrap-up: random tokens of the finishing mask until the text
//! joins the suffix. Checked: every finishing mask is a subset of the exact mask, EOS
//! is in it only on membership (a plain recognizer run over the whole text), and
//! where the bridge search found a bridge the walk joins within the bridge's length
//! in tokens. The share of walks for which the search finds a bridge is asserted
//! (the re-entry moves of `fim_reentry` raised it; a blind search found few).
//! `ESPALIER_SLOW=1` runs more cuts.
//!
//! Each file draws from its own generator, seeded by its path: a change to the masks
//! of one cut (another token drawn, a walk of another length) moves that cut only, so
//! two builds' per-cut lines (`--no-capture`) can be compared one by one. With one
//! generator for all files, the f-string field and escape checks (other exact masks)
//! and the finishing mask's name substitutes (walks of other lengths) moved every
//! later cut: 189 of 192 at 05ed0dc, 186 since, while the bridge search gave the same
//! answer on the same middles.

use crate::common;

use espalier_constraint::{fim_bridge, Constraint, FimConstraint, TokenSet};

#[test]
fn fim_finishing_mask_joins_from_astray_middles() {
    let (_tok, vocab, trie) = common::smollm2();
    let kit = common::PYTHON.kit(&trie);
    let lang = kit.language().clone();
    let files = common::cpython_sample(if common::slow() { 4 } else { 30 }, 5, 8_000);
    let (mut cases, mut found, mut joined) = (0usize, 0usize, 0usize);
    let mut problems = Vec::new();
    let (mut mask, mut exact) = (TokenSet::empty(vocab.len()), TokenSet::empty(vocab.len()));
    for (path, text) in &files {
        if !common::PYTHON.accepts(text) || text.len() < 64 {
            continue;
        }
        let mut rng = common::Rng(
            path.bytes()
                .fold(0xF1A0_0013_u64, |h, x| (h ^ u64::from(x)).wrapping_mul(0x100_0000_01B3)),
        );
        let bytes = text.as_bytes();
        let (a, b) = common::fim_cut(text, &mut rng, bytes.len() * 9 / 10, 100);
        let (prefix, middle, suffix) = (&bytes[..a], &bytes[a..b], &bytes[b..]);
        let Ok(mut c) = FimConstraint::new(&kit, prefix, suffix) else {
            problems.push(format!("{path} at {a}..{b}: request refused"));
            continue;
        };
        let mut keep = rng.below(middle.len() + 1);
        while !text.is_char_boundary(a + keep) {
            keep -= 1;
        }
        c.commit(&middle[..keep]).unwrap();
        // Astray: random allowed tokens (EOS aside).
        for _ in 0..6 {
            c.fill_mask(&vocab, &mut exact);
            let ids: Vec<usize> = exact.iter().filter(|&id| id != vocab.eos() as usize).collect();
            if ids.is_empty() {
                break;
            }
            c.commit(vocab.bytes(ids[rng.below(ids.len())] as u32)).unwrap();
        }
        cases += 1;
        let walked = c.middle().len();
        let cut = format!("fim cut {path} at {a}..{b}: middle \"{}\"", c.middle().escape_ascii());
        let Some(bridge) = fim_bridge::shortest_bridge(c.left(), c.suffix(), c.reentry()) else {
            eprintln!("{cut} -> no bridge");
            continue;
        };
        found += 1;
        eprintln!("{cut} -> bridge \"{}\"", bridge.escape_ascii());
        let mut steps = 0;
        loop {
            assert!(c.fill_finishing_mask(&vocab, &mut mask));
            c.fill_mask(&vocab, &mut exact);
            let ids: Vec<usize> = mask.iter().collect();
            if let Some(&bad) = ids.iter().find(|&&id| !exact.contains(id)) {
                problems.push(format!(
                    "{path} at {a}..{b}: finishing token {bad} not in the exact mask"
                ));
                break;
            }
            if ids.contains(&(vocab.eos() as usize)) {
                let whole = [prefix, c.middle(), suffix].concat();
                let mut r = lang.recognizer();
                if !(r.push_bytes(&whole).is_ok() && r.is_complete()) {
                    problems.push(format!(
                        "{path} at {a}..{b}: EOS in the finishing mask without membership"
                    ));
                }
                joined += 1;
                eprintln!(
                    "    joined in {steps} tokens: \"{}\"",
                    c.middle()[walked..].escape_ascii()
                );
                break;
            }
            if steps >= bridge.len() {
                problems.push(format!(
                    "{path} at {a}..{b}: no join after {steps} tokens (bridge {:?})",
                    String::from_utf8_lossy(&bridge)
                ));
                break;
            }
            c.commit(vocab.bytes(ids[rng.below(ids.len())] as u32)).unwrap();
            steps += 1;
        }
    }
    eprintln!("fim finishing: {cases} astray middles, a bridge found for {found}, joined {joined}; {} problems", problems.len());
    assert!(cases >= 20, "only {cases} cases");
    espalier_testkit::assert_none(&problems, "fim finishing problems");
    assert!(found * 10 >= cases * 8, "a bridge for only {found} of {cases} astray middles");
}
