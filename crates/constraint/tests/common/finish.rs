//! Finishing a program by random finishing-mask tokens, checking every promise of the
//! finishing mask on the way (shared by the Python and Go finishing tests).

use espalier_constraint::{Constraint, GrammarConstraint, TokenSet, Vocab};

use super::Rng;

/// Takes random finishing-mask tokens until the mask is EOS alone. At every step the
/// finishing mask is a non-empty subset of the exact mask, every token in it lowers
/// the remaining cost (no fallback), the cost strictly falls, and the program ends
/// within as many tokens as the first cost said. Returns (tokens taken, first cost),
/// or an error naming the first broken promise; pushes each mask's wall time (ms).
pub fn finish(
    c: &mut GrammarConstraint,
    vocab: &Vocab,
    rng: &mut Rng,
    times: &mut Vec<f64>,
) -> Result<(usize, u32), String> {
    let mut exact = TokenSet::empty(vocab.len());
    let mut fin = TokenSet::empty(vocab.len());
    let start = c.finishing_cost().ok_or("no finishing cost at the start")?;
    let mut cost = start;
    let eos = vocab.eos() as usize;
    for step in 0..=start as usize {
        c.fill_mask(vocab, &mut exact);
        let t = std::time::Instant::now();
        let outcome = c.finishing_mask(vocab, &mut fin).ok_or("no finishing mask")?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        let mut extra = fin.clone();
        extra.subtract(&exact);
        if !extra.is_empty() {
            return Err(format!(
                "step {step}: {} finishing tokens outside the exact mask",
                extra.count()
            ));
        }
        if fin.is_empty() {
            return Err(format!("step {step}: empty finishing mask"));
        }
        if !outcome.steered {
            return Err(format!(
                "step {step}: fell back (cost {:?}, mask of {})",
                outcome.cost,
                fin.count()
            ));
        }
        if outcome.cost != Some(cost) {
            return Err(format!(
                "step {step}: cost {:?} but the last step left {cost}",
                outcome.cost
            ));
        }
        if fin.contains(eos) {
            if fin.count() != 1 || !c.is_complete() {
                return Err(format!(
                    "step {step}: EOS in a mask of {} (complete: {})",
                    fin.count(),
                    c.is_complete()
                ));
            }
            return Ok((step, start));
        }
        let members: Vec<usize> = fin.iter().collect();
        let id = members[rng.below(members.len())] as u32;
        c.commit(vocab.bytes(id)).map_err(|e| format!("step {step}: commit refused: {e}"))?;
        let after = c.finishing_cost().ok_or_else(|| {
            format!("step {step}: no cost after {:?}", String::from_utf8_lossy(vocab.bytes(id)))
        })?;
        if after >= cost {
            return Err(format!(
                "step {step}: token {:?} took the cost from {cost} to {after}",
                String::from_utf8_lossy(vocab.bytes(id))
            ));
        }
        cost = after;
    }
    Err(format!("not finished within {start} tokens"))
}
