//! [`Kit`]: what a language builds once per vocabulary to make constraints from, and
//! [`Kits`], the cache of them that the CLI and the web app keep.

use std::sync::Arc;

use espalier_constraint::Vocab;

use crate::{GrammarKit, Lang, LangError, Mode};

/// A language's per-vocabulary state.
#[derive(Clone)]
pub enum Kit {
    /// A grammar language's compiled grammar and vocabulary trie.
    Grammar(GrammarKit),
    /// Nothing to build ahead.
    Plain,
    /// The sLua tree of parsers' vocabulary trie, compiled segment automata and the
    /// masks cached by their states, shared by every constraint made from this kit:
    /// each generation after the first starts warm (the cache is keyed by regex, DFA
    /// state and trie, so any API or effect list may share it).
    TreeOfParsers {
        /// Compiled segment automata and state masks.
        dfas: std::rc::Rc<espalier_slua::dfa::DfaCache>,
        /// The vocabulary's byte trie the masks walk.
        trie: Arc<espalier_constraint::TokTrie>,
    },
}

impl Kit {
    /// Pays this kit's first-use costs now, in setup, rather than on a user's first
    /// step (grammar languages: [`GrammarKit::warm_up`]; the others build nothing
    /// lazily worth it).
    pub fn warm_up(&self, vocab: &Vocab) {
        if let Kit::Grammar(kit) = self {
            kit.warm_up(vocab);
        }
    }
}

/// What a constraint is primed with.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstraintInput<'a> {
    /// The code left of the cursor (already in the prompt).
    pub prefix: &'a str,
    /// The kind of program ([`crate::Prompting::kind_of`]; sLua: effect or talent).
    pub kind: &'a str,
    /// sLua: the names of the effects already written (talents may apply them).
    pub effects: &'a [String],
}

/// The kits built so far for one vocabulary, per language.
pub struct Kits {
    vocab: Arc<Vocab>,
    built: Vec<(Lang, Kit)>,
    /// Where SynCode mask stores are kept (`NAME-smollm2.store`), native only.
    store_dir: Option<std::path::PathBuf>,
}

impl Kits {
    /// No kit built yet; SynCode stores unavailable until [`Kits::with_store_dir`].
    pub fn new(vocab: Arc<Vocab>) -> Self {
        Self { vocab, built: Vec::new(), store_dir: None }
    }

    /// Keeps SynCode mask stores in `dir` (built there on first use of `syncode`).
    pub fn with_store_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.store_dir = Some(dir.into());
        self
    }

    /// The vocabulary the kits are for.
    pub fn vocab(&self) -> &Arc<Vocab> {
        &self.vocab
    }

    /// The kit of `lang`, built on first use; for `mode` `syncode` with its SynCode
    /// store attached (native, with a store directory).
    pub fn get(&mut self, lang: Lang, mode: Mode) -> Result<&Kit, LangError> {
        let at = match self.built.iter().position(|(l, _)| *l == lang) {
            Some(at) => at,
            None => {
                let kit = lang.kit(&self.vocab)?;
                self.built.push((lang, kit));
                self.built.len() - 1
            }
        };
        #[cfg(not(target_arch = "wasm32"))]
        if mode == Mode::Syncode {
            if let (Kit::Grammar(kit), Some(dir)) = (&self.built[at].1, &self.store_dir) {
                if !kit.has_store() {
                    let path = dir.join(format!("{}-smollm2.store", lang.name()));
                    let with = kit.clone().with_store_at(&self.vocab, &path)?;
                    self.built[at].1 = Kit::Grammar(with);
                }
            }
        }
        #[cfg(target_arch = "wasm32")]
        let _ = mode;
        Ok(&self.built[at].1)
    }
}
