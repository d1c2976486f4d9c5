//! [`FimConstraint`] on SmolLM2's vocabulary: CPython files cut into prefix / true
//! middle / suffix; at random points of the true middle the mask allows a token iff
//! its bytes keep prefix + middle viable (the brute-force oracle, on a fixed random
//! sample of 2000 tokens), the true middle's next bytes are never refused, and EOS is
//! set iff prefix + middle + suffix is a complete program (a plain recognizer run
//! over the whole text). `ESPALIER_SLOW=1` runs more cuts.

use crate::common;

use espalier_constraint::{Constraint, FimConstraint, TokenSet};

#[test]
fn fim_masks_equal_the_brute_force_oracle() {
    let (_tok, vocab, trie) = common::smollm2();
    let kit = common::PYTHON.kit(&trie);
    let lang = kit.language().clone();
    let mut rng = common::Rng(0xF1A0_0001);
    let sample = common::token_sample(&vocab, &mut rng, 2000);
    let files = common::cpython_sample(if common::slow() { 15 } else { 60 }, 3, 20_000);
    let mut mask = TokenSet::empty(vocab.len());
    let (mut points, mut disagreements, mut eos_checked) = (0usize, Vec::new(), 0usize);
    for (path, text) in &files {
        if !common::PYTHON.accepts(text) || text.len() < 16 {
            continue;
        }
        let bytes = text.as_bytes();
        let (a, b) = common::fim_cut(text, &mut rng, bytes.len(), 120);
        let (prefix, middle, suffix) = (&bytes[..a], &bytes[a..b], &bytes[b..]);
        let mut c = FimConstraint::new(&kit, prefix, suffix)
            .unwrap_or_else(|e| panic!("{path} at {a}..{b}: {e}"));
        let stops: Vec<usize> = (0..3).map(|_| rng.below(middle.len() + 1)).collect();
        let mut fed = 0;
        for stop in (0..=middle.len()).filter(|i| stops.contains(i) || *i == middle.len()) {
            c.commit(&middle[fed..stop])
                .unwrap_or_else(|e| panic!("{path} at {a}..{b}: true middle refused: {e}"));
            fed = stop;
            c.fill_mask(&vocab, &mut mask);
            points += 1;
            for &id in &sample {
                if mask.contains(id as usize) != c.allows(vocab.bytes(id)) {
                    disagreements.push(format!(
                        "{path} at {a}..{b}+{stop}: token {id} {:?}",
                        String::from_utf8_lossy(vocab.bytes(id))
                    ));
                }
            }
            let mut whole = prefix.to_vec();
            whole.extend_from_slice(&middle[..stop]);
            whole.extend_from_slice(suffix);
            let mut r = lang.recognizer();
            let member = r.push_bytes(&whole).is_ok() && r.is_complete();
            eos_checked += 1;
            if mask.contains(vocab.eos() as usize) != member {
                disagreements.push(format!(
                    "{path} at {a}..{b}+{stop}: EOS {} but membership {member}",
                    mask.contains(vocab.eos() as usize)
                ));
            }
            if stop == middle.len() && !member {
                disagreements
                    .push(format!("{path} at {a}..{b}: the whole true middle does not join"));
            }
        }
    }
    eprintln!(
        "fim exactness: {points} points x 2000 tokens, {eos_checked} EOS checks, {} disagreements",
        disagreements.len()
    );
    assert!(points >= 40, "only {points} points");
    espalier_testkit::assert_none(&disagreements, "fim mask disagreements");
}
