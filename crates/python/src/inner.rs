//! [`Inner`]: the constraint inside an `espalier.Constraint`: one of the decoder's
//! ([`LangConstraint`]: a registry grammar language, a Lark grammar, sLua) or
//! fill-in-the-middle ([`FimConstraint`], whose text is the middle between a fixed
//! prefix and suffix), behind one [`Constraint`] implementation.

use espalier_constraint::{Commit, Constraint, FimConstraint, Inspection, Rejected, TokenSet, Vocab};
use espalier_decode::LangConstraint;

/// The constraint an `espalier.Constraint` drives.
#[derive(Clone)]
pub enum Inner {
    /// A constraint of the decoder's (grammar languages, Lark grammars, sLua).
    Lang(LangConstraint),
    /// Fill-in-the-middle.
    Fim(Box<FimConstraint>),
}

macro_rules! delegate {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Inner::Lang($c) => $e,
            Inner::Fim($c) => $e,
        }
    };
}

impl Constraint for Inner {
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
        match self {
            Inner::Lang(c) => Constraint::fill_finishing_mask(c, vocab, mask),
            Inner::Fim(c) => Constraint::fill_finishing_mask(&mut **c, vocab, mask),
        }
    }
}
