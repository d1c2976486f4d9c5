//! [`GrammarKit`]: everything needed to make constraints of one grammar language
//! repeatedly (the compiled grammar, the vocabulary trie, the finishing masks' cost
//! cache and, for mode `syncode`, the SynCode mask store are built once and shared by
//! every constraint).

use std::sync::Arc;

use espalier_constraint::{
    Constraint, CostCache, FimConstraint, GrammarConstraint, MaskStore, Strategy, TokTrie, Vocab,
};
use espalier_grammar::Language;

use crate::{LangConstraint, LangError, Mode};

/// A compiled grammar with the vocabulary's trie, ready to make constraints.
#[derive(Clone)]
pub struct GrammarKit {
    lang: &'static str,
    language: Arc<Language>,
    trie: Arc<TokTrie>,
    store: Option<Arc<MaskStore>>,
    /// The costs every constraint's finishing masks found (the decoder's wrap-up):
    /// a context costed for one request is not costed again for the next.
    costs: CostCache,
}

impl GrammarKit {
    /// A kit for `language` (named `lang` in errors and inspections) over `vocab`.
    pub fn new(lang: &'static str, language: Arc<Language>, vocab: &Vocab) -> Self {
        Self {
            lang,
            language,
            trie: Arc::new(TokTrie::new(vocab)),
            store: None,
            costs: CostCache::new(),
        }
    }

    /// The compiled grammar.
    pub fn language(&self) -> &Arc<Language> {
        &self.language
    }

    /// Whether a SynCode mask store is attached.
    pub fn has_store(&self) -> bool {
        self.store.is_some()
    }

    /// Attaches a SynCode mask store for mode `syncode`.
    pub fn with_store(mut self, store: Arc<MaskStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Attaches the SynCode mask store kept at `path` for this grammar and `vocab`,
    /// building it there first (seconds) when the file is missing or stale. Native
    /// only: the browser keeps store bytes itself ([`MaskStore::from_bytes`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn with_store_at(self, vocab: &Vocab, path: &std::path::Path) -> Result<Self, LangError> {
        let store = MaskStore::load_or_build(&self.language, vocab, path).map_err(|e| {
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
        let kind = format!("{}-lr", self.lang);
        let mut c =
            GrammarConstraint::new(self.language.recognizer(), self.trie.clone(), strategy, kind)
                .with_cost_cache(self.costs.clone());
        if mode == Mode::Syncode {
            match &self.store {
                Some(store) => c = c.with_store(store.clone()),
                None => {
                    return Err(LangError::Mode {
                        mode,
                        lang: self.lang,
                        why: "no SynCode mask store was built for this vocabulary",
                    })
                }
            }
        }
        let prefix_error = |rejected: espalier_constraint::Rejected| LangError::Prefix {
            lang: self.lang,
            offset: rejected.offset,
            rejected,
        };
        if mode == Mode::Names {
            let mut names = crate::names_constraint::NamesConstraint::new(c);
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

    /// Takes the first-use costs of this kit's masks off a user's first step: builds
    /// a constraint (which builds the trie's lexeme-start summaries, ~0.1 s natively)
    /// and computes one throwaway mask from the empty text (in wasm, V8 compiles the
    /// mask's functions on their first call: 2-4 ms on the first step otherwise); and
    /// builds the language's completion-cost tables, which the first finishing mask
    /// would otherwise pay (Python ~8-25 ms on CPU, `espalier bench mask --finishing`'s
    /// `cost_tables_cpu_ms`).
    pub fn warm_up(&self, vocab: &Vocab) {
        self.language.completion_costs();
        let kind = format!("{}-lr", self.lang);
        GrammarConstraint::new(
            self.language.recognizer(),
            self.trie.clone(),
            Strategy::Exact,
            kind,
        )
        .warm_up(vocab);
    }

    /// A fill-in-the-middle constraint: the middle between `prefix` and `suffix`
    /// (prepared once here: an error names the byte that cannot be joined).
    pub fn fim_constraint(&self, prefix: &str, suffix: &str) -> Result<LangConstraint, LangError> {
        FimConstraint::new(&self.language, prefix.as_bytes(), suffix.as_bytes(), self.trie.clone())
            .map(|c| LangConstraint::Fim(Box::new(c.with_cost_cache(self.costs.clone()))))
            .map_err(|error| LangError::Fim { lang: self.lang, error })
    }
}
