//! The constraint that allows everything: what mode `none` runs with when there is no
//! language, and the neutral element for callers that are generic over a constraint.

use espalier_constraint::{Commit, Constraint, Inspection, Rejected, TokenSet, Vocab};

/// Allows every non-special token and EOS at any point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Unconstrained;

impl Constraint for Unconstrained {
    fn is_complete(&self) -> bool {
        true
    }

    fn allows(&self, _bytes: &[u8]) -> bool {
        true
    }

    fn fill_mask(&mut self, vocab: &Vocab, mask: &mut TokenSet) {
        mask.fill();
        for id in 0..vocab.len() as u32 {
            if vocab.is_special(id) && id != vocab.eos() {
                mask.remove(id as usize);
            }
        }
    }

    fn commit(&mut self, _bytes: &[u8]) -> Result<Commit, Rejected> {
        Ok(Commit::Accepted)
    }

    fn inspect(&self) -> Inspection {
        Inspection { kind: "unconstrained".into(), ..Inspection::default() }
    }
}
