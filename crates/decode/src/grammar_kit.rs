//! [`GrammarKit`]: everything needed to make constraints of one grammar language
//! repeatedly over one vocabulary: the constraint crate's [`MaskKit`] (the compiled
//! grammar, the vocabulary trie, the lexeme-start summaries and layer data, the
//! finishing masks' cost cache and, for mode `syncode`, the SynCode mask store) and,
//! for a language with mode `names`, the names layer's [`NamesKit`]. Built once, in
//! setup, and shared by every constraint made from it; the [`NamesKit`] only on the
//! first names constraint asked of the kit (most requests never use mode `names`).

use std::sync::{Arc, OnceLock};

use espalier_constraint::{
    Constraint, FimConstraint, GrammarConstraint, MaskKit, MaskStore, Strategy, Vocab,
};
use espalier_grammar::Language;

use crate::names_constraint::{NamesConstraint, NamesKit};
use crate::{LangConstraint, LangError, Mode};

/// A compiled grammar with the vocabulary's mask data, ready to make constraints.
#[derive(Clone)]
pub struct GrammarKit {
    lang: &'static str,
    masks: MaskKit,
    /// Mode `names`' vocabulary groups and scratch (languages with that mode), built
    /// on first use.
    names: Option<LazyNames>,
}

/// A [`NamesKit`] built on the first names constraint (~30-60 ms natively with
/// SmolLM2's vocabulary, and its memory): the vocabulary it is built from, and the
/// cell it is built into. An explicit part of one kit, shared by the kit's clones
/// (they are the same kit); no process-wide cache.
#[derive(Clone)]
struct LazyNames {
    vocab: Arc<Vocab>,
    kit: Arc<OnceLock<NamesKit>>,
}

impl LazyNames {
    fn get(&self) -> &NamesKit {
        self.kit.get_or_init(|| NamesKit::new(&self.vocab))
    }
}

impl GrammarKit {
    /// A kit for `language` (named `lang` in errors and inspections) over `vocab`:
    /// its trie, summaries and layer data are built now (~0.1-0.2 s natively with
    /// SmolLM2's vocabulary).
    pub fn new(lang: &'static str, language: Arc<Language>, vocab: &Vocab) -> Self {
        Self { lang, masks: MaskKit::for_vocab(language, vocab), names: None }
    }

    /// Also makes mode `names` available: what it reads per vocabulary ([`NamesKit`])
    /// is built from `vocab` on the first names constraint.
    pub fn with_names(mut self, vocab: Arc<Vocab>) -> Self {
        self.names = Some(LazyNames { vocab, kit: Arc::new(OnceLock::new()) });
        self
    }

    /// Whether mode `names`' [`NamesKit`] has been built (by a names constraint).
    pub fn names_built(&self) -> bool {
        self.names.as_ref().is_some_and(|n| n.kit.get().is_some())
    }

    /// The compiled grammar.
    pub fn language(&self) -> &Arc<Language> {
        self.masks.language()
    }

    /// The constraint crate's part of the kit (trie, summaries, store, cost cache).
    pub fn masks(&self) -> &MaskKit {
        &self.masks
    }

    /// Whether a SynCode mask store is attached.
    pub fn has_store(&self) -> bool {
        self.masks.store().is_some()
    }

    /// Attaches a SynCode mask store for mode `syncode`.
    pub fn with_store(mut self, store: Arc<MaskStore>) -> Self {
        self.masks = self.masks.with_store(store);
        self
    }

    /// Attaches the SynCode mask store kept at `path` for this grammar and `vocab`,
    /// building it there first (seconds) when the file is missing or stale. Native
    /// only: the browser keeps store bytes itself ([`MaskStore::from_bytes`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn with_store_at(self, vocab: &Vocab, path: &std::path::Path) -> Result<Self, LangError> {
        let store = MaskStore::load_or_build(self.language(), vocab, path).map_err(|e| {
            LangError::Grammar { lang: self.lang, message: format!("SynCode mask store: {e}") }
        })?;
        Ok(self.with_store(Arc::new(store)))
    }

    /// A fresh constraint for `mode`, already fed `prefix` (the code left of the
    /// cursor). `mask` and `rejection` use the exact trie walk for their masks.
    pub fn constraint(&self, mode: Mode, prefix: &str) -> Result<LangConstraint, LangError> {
        let strategy = match mode {
            Mode::Syncode => Strategy::Syncode,
            _ => Strategy::Exact,
        };
        if mode == Mode::Syncode && !self.has_store() {
            return Err(LangError::Mode {
                mode,
                lang: self.lang,
                why: "no SynCode mask store was built for this vocabulary",
            });
        }
        let mut c = GrammarConstraint::new(&self.masks, strategy, format!("{}-lr", self.lang));
        let prefix_error = |rejected: espalier_constraint::Rejected| LangError::Prefix {
            lang: self.lang,
            offset: rejected.offset,
            rejected,
        };
        if mode == Mode::Names {
            let Some(names) = &self.names else {
                return Err(LangError::Mode {
                    mode,
                    lang: self.lang,
                    why: "this kit was built without the names layer's data",
                });
            };
            let mut names = NamesConstraint::new(c, names.get());
            if !prefix.is_empty() {
                names.commit(prefix.as_bytes()).map_err(prefix_error)?;
            }
            return Ok(LangConstraint::Names(Box::new(names)));
        }
        if !prefix.is_empty() {
            c.commit(prefix.as_bytes()).map_err(prefix_error)?;
        }
        Ok(LangConstraint::Grammar(Box::new(c)))
    }

    /// Takes the first-use costs of this kit's masks off a user's first step: the
    /// language's completion-cost tables, which the first finishing mask would
    /// otherwise pay (Python ~8-25 ms on CPU, `espalier bench mask --finishing`'s
    /// `cost_tables_cpu_ms`), and a few throwaway masks (in wasm, V8 compiles the
    /// mask's functions on their first call: 2-4 ms on the first step otherwise).
    /// The summaries and layer data were built with the kit.
    pub fn warm_up(&self, vocab: &Vocab) {
        self.language().completion_costs();
        GrammarConstraint::new(&self.masks, Strategy::Exact, format!("{}-lr", self.lang))
            .warm_up(vocab);
    }

    /// A fill-in-the-middle constraint: the middle between `prefix` and `suffix`
    /// (prepared once here: an error names the byte that cannot be joined).
    pub fn fim_constraint(&self, prefix: &str, suffix: &str) -> Result<LangConstraint, LangError> {
        FimConstraint::new(&self.masks, prefix.as_bytes(), suffix.as_bytes())
            .map(|c| LangConstraint::Fim(Box::new(c)))
            .map_err(|error| LangError::Fim { lang: self.lang, error })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kit, Lang};

    #[test]
    fn mode_names_data_is_built_by_the_first_names_constraint_only() {
        let tokens: Vec<Vec<u8>> = ["<eos>", "x", " =", " 1", "\n", "print", "(", ")"]
            .iter()
            .map(|t| t.as_bytes().to_vec())
            .collect();
        let vocab = Arc::new(Vocab::new(tokens, &[0], 0));
        let python = Lang::from_name("python").unwrap();
        let Kit::Grammar(kit) = python.kit(&vocab).unwrap() else { panic!("a grammar kit") };
        assert!(!kit.names_built(), "not built with the kit");
        kit.warm_up(&vocab);
        for mode in [Mode::Mask, Mode::Rejection] {
            kit.constraint(mode, "x = 1\n").unwrap();
        }
        assert!(!kit.names_built(), "not built for the other modes");
        let copy = kit.clone();
        let c = kit.constraint(Mode::Names, "x = 1\n").unwrap();
        assert!(kit.names_built() && copy.names_built(), "built once, shared by the clones");
        assert!(c.allows(b"print(x)") && !c.allows(b"print(y)"), "and a names constraint");
    }
}
