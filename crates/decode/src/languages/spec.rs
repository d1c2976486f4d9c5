//! [`LangSpec`]: the core facet a language declares to the registry (what a
//! constraint needs). The prompting and evaluation facets are in `prompting.rs` and
//! `evaluation.rs`.

use std::sync::Arc;

use espalier_constraint::Vocab;

use crate::{ConstraintInput, GrammarKit, Kit, LangConstraint, LangError, Mode};

/// One language of the registry, its core facet: what a constraint needs (the name,
/// the modes, the grammar, the kit, the constraint). Grammar languages implement
/// [`LangSpec::grammar`] and inherit the kit and the constraint. The other facets:
/// [`Prompting`](super::Prompting) (how a request becomes a prompt and where generation
/// stops) and [`Evaluation`](super::Evaluation) (how a program is checked, translated
/// and benchmarked).
pub trait LangSpec: Sync + 'static {
    /// The name on the command line (`--lang`), in the web app's menu and in reports.
    fn name(&self) -> &'static str;

    /// The name shown to people.
    fn label(&self) -> &'static str;

    /// The modes it supports, `none` included.
    fn modes(&self) -> &'static [Mode] {
        &Mode::GRAMMAR
    }

    /// Why the modes it lacks are missing (for the error that refuses one).
    fn missing_modes_note(&self) -> &'static str {
        "not supported"
    }

    /// Refuses a mode the language does not support.
    fn check_mode(&self, mode: Mode) -> Result<(), LangError> {
        if self.modes().contains(&mode) {
            Ok(())
        } else {
            Err(LangError::Mode { mode, lang: self.name(), why: self.missing_modes_note() })
        }
    }

    /// The compiled grammar, for a grammar language (compiled once, shared).
    fn grammar(&self) -> Option<Result<Arc<espalier_grammar::Language>, LangError>> {
        None
    }

    /// What the language builds once per vocabulary (a grammar's kit).
    fn kit(&self, vocab: &Arc<Vocab>) -> Result<Kit, LangError> {
        let Some(grammar) = self.grammar() else { return Ok(Kit::Plain) };
        let kit = GrammarKit::new(self.name(), grammar?, vocab);
        Ok(Kit::Grammar(match self.modes().contains(&Mode::Names) {
            true => kit.with_names(vocab.clone()),
            false => kit,
        }))
    }

    /// A fresh constraint for a constraining `mode` from the language's `kit`.
    fn constraint(
        &self,
        kit: &Kit,
        mode: Mode,
        input: &ConstraintInput,
    ) -> Result<LangConstraint, LangError> {
        match kit {
            Kit::Grammar(kit) => kit.constraint(mode, input.prefix),
            Kit::Plain | Kit::TreeOfParsers { .. } => Err(LangError::Setup(format!(
                "{} has no grammar to build a constraint from",
                self.name()
            ))),
        }
    }

    /// Whether it can fill in the middle between a prefix and a suffix
    /// ([`crate::Task::fim`]; the web app offers the mode only then).
    fn fills_in_the_middle(&self) -> bool {
        false
    }

    /// Whether its constraint has a finishing mask, so the wrap-up does something
    /// (the web app shows the wrap-up control only then).
    fn has_finishing_mask(&self) -> bool {
        false
    }
}
