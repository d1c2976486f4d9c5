//! [`LangConstraint`]: the decoder's constraints behind one type, so that the CLI and
//! the web app can pick one at run time. It delegates every [`Constraint`] call, the
//! finishing mask included, to the constraint inside. Its variants are kinds of
//! constraint, not languages: every grammar language (Python, Go) is a `Grammar`.

use espalier_constraint::{
    Commit, Constraint, FimConstraint, GrammarConstraint, Inspection, Rejected, TokenSet, Vocab,
};
use espalier_slua::SluaConstraint;

use crate::names_constraint::NamesConstraint;
use crate::Unconstrained;

/// One of the decoder's constraints, chosen at run time.
#[derive(Clone)]
pub enum LangConstraint {
    /// No language: everything is allowed.
    None(Unconstrained),
    /// A grammar language's LR constraint (Python, ...).
    Grammar(Box<GrammarConstraint>),
    /// The sLua tree of parsers.
    Slua(Box<SluaConstraint>),
    /// Fill-in-the-middle over a grammar language: the middle must join the suffix.
    Fim(Box<FimConstraint>),
    /// Python's grammar with the names layer (mode `names`).
    Names(Box<NamesConstraint>),
}

macro_rules! delegate {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            LangConstraint::None($c) => $e,
            LangConstraint::Grammar($c) => $e,
            LangConstraint::Slua($c) => $e,
            LangConstraint::Fim($c) => $e,
            LangConstraint::Names($c) => $e,
        }
    };
}

impl Constraint for LangConstraint {
    fn is_complete(&self) -> bool {
        delegate!(self, c => c.is_complete())
    }

    fn allows(&self, bytes: &[u8]) -> bool {
        delegate!(self, c => c.allows(bytes))
    }

    fn fill_mask(&mut self, vocab: &Vocab, mask: &mut TokenSet) {
        delegate!(self, c => c.fill_mask(vocab, mask))
    }

    fn commit(&mut self, bytes: &[u8]) -> Result<Commit, Rejected> {
        delegate!(self, c => c.commit(bytes))
    }

    fn inspect(&self) -> Inspection {
        delegate!(self, c => c.inspect())
    }

    fn fill_finishing_mask(&mut self, vocab: &Vocab, mask: &mut TokenSet) -> bool {
        // Fully qualified: sLua also has an inherent method of that name.
        match self {
            LangConstraint::None(c) => Constraint::fill_finishing_mask(c, vocab, mask),
            LangConstraint::Grammar(c) => Constraint::fill_finishing_mask(&mut **c, vocab, mask),
            LangConstraint::Slua(c) => Constraint::fill_finishing_mask(&mut **c, vocab, mask),
            LangConstraint::Fim(c) => Constraint::fill_finishing_mask(&mut **c, vocab, mask),
            LangConstraint::Names(c) => Constraint::fill_finishing_mask(&mut **c, vocab, mask),
        }
    }

    fn vocab_width(&self) -> Option<usize> {
        delegate!(self, c => c.vocab_width())
    }

    fn finishing_distance(&mut self, vocab: &Vocab, enough: usize) -> Option<usize> {
        match self {
            LangConstraint::None(c) => c.finishing_distance(vocab, enough),
            LangConstraint::Grammar(c) => c.finishing_distance(vocab, enough),
            LangConstraint::Slua(c) => c.finishing_distance(vocab, enough),
            LangConstraint::Fim(c) => c.finishing_distance(vocab, enough),
            LangConstraint::Names(c) => c.finishing_distance(vocab, enough),
        }
    }
}

#[cfg(test)]
mod tests {
    use espalier_constraint::{Constraint, TokenSet, Vocab};

    use super::*;
    use crate::languages::slua::slua_constraint;

    fn vocab() -> Vocab {
        let tokens: Vec<Vec<u8>> = ["<eos>", "effect", " Burn", ";", "\n", " ", "x"]
            .iter()
            .map(|t| t.as_bytes().to_vec())
            .collect();
        Vocab::new(tokens, &[0], 0)
    }

    #[test]
    fn the_finishing_mask_is_delegated_to_the_constraint_inside() {
        let v = vocab();
        let mut mask = TokenSet::empty(v.len());
        let mut none = LangConstraint::None(Unconstrained);
        assert!(!none.fill_finishing_mask(&v, &mut mask), "no language: no finishing mask");
        assert!(mask.is_empty(), "the mask is left untouched");
        let mut slua = slua_constraint("effect", Vec::new());
        assert!(slua.fill_finishing_mask(&v, &mut mask), "sLua has one");
        assert!(mask.contains(1), "`effect` starts the shortest script");
        assert!(!mask.contains(6), "`x` does not");
    }
}
