//! The constraints the decoder knows by name (`--lang python|slua`), behind one type
//! so the CLI and the web app can pick one at run time: [`LangConstraint`] delegates
//! every [`Constraint`] call to the chosen one.

use std::sync::Arc;

use espalier_constraint::{
    Commit, Constraint, GrammarConstraint, Inspection, MaskStore, Rejected, Strategy, TokTrie, TokenSet, Vocab,
};
use std::rc::Rc;

use espalier_grammar::Language;
use espalier_slua::{Api, Env, SluaConstraint};

use crate::{Mode, Unconstrained};

/// A language generation can be constrained to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// Python 3 (the grammar of espalier-grammar).
    Python,
    /// sLua with the game API (the tree of parsers of espalier-slua).
    Slua,
}

impl Lang {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Slua => "slua",
        }
    }
}

/// A language name that is not `python` or `slua`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown language {0:?}: expected python or slua")]
pub struct UnknownLang(pub String);

impl std::str::FromStr for Lang {
    type Err = UnknownLang;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "python" => Ok(Lang::Python),
            "slua" => Ok(Lang::Slua),
            _ => Err(UnknownLang(s.to_string())),
        }
    }
}

/// Why a constraint could not be built or primed.
#[derive(Debug, thiserror::Error)]
pub enum LangError {
    /// The grammar failed to compile.
    #[error("the {lang} grammar does not compile: {message}")]
    Grammar {
        /// Which language.
        lang: &'static str,
        /// The grammar's error.
        message: String,
    },
    /// The text before the cursor is not a valid prefix of the language.
    #[error("the prompt is not a valid {lang} prefix: {rejected} (prompt byte {offset})")]
    Prefix {
        /// Which language.
        lang: &'static str,
        /// Offset of the refused byte in the prompt.
        offset: usize,
        /// What the constraint said.
        rejected: Rejected,
    },
    /// A mode this language cannot run.
    #[error("mode {mode} is not available for {lang}: {why}")]
    Mode {
        /// The mode asked for.
        mode: Mode,
        /// Which language.
        lang: &'static str,
        /// Why.
        why: &'static str,
    },
}

/// Everything needed to make Python constraints repeatedly (the compiled grammar and
/// the vocabulary trie are built once and shared).
#[derive(Clone)]
pub struct PythonKit {
    language: Arc<Language>,
    trie: Arc<TokTrie>,
    store: Option<Arc<MaskStore>>,
}

impl PythonKit {
    /// Compiles the Python grammar and the vocabulary trie.
    pub fn new(vocab: &Vocab) -> Result<Self, LangError> {
        let language = espalier_grammar::python()
            .map_err(|e| LangError::Grammar { lang: "python", message: e.to_string() })?;
        Ok(Self { language, trie: Arc::new(TokTrie::new(vocab)), store: None })
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
        let store = MaskStore::load_or_build(&self.language, vocab, path)
            .map_err(|e| LangError::Grammar { lang: "python", message: format!("SynCode mask store: {e}") })?;
        Ok(self.with_store(Arc::new(store)))
    }

    /// A fresh constraint for `mode`, already fed `prefix` (the code left of the
    /// cursor). `mask` and `rejection` use the exact trie walk for their masks.
    pub fn constraint(&self, mode: Mode, prefix: &str) -> Result<LangConstraint, LangError> {
        let strategy = match mode {
            Mode::Syncode => Strategy::Syncode,
            _ => Strategy::Exact,
        };
        let mut c = GrammarConstraint::new(self.language.recognizer(), self.trie.clone(), strategy, "python-lr");
        if mode == Mode::Syncode {
            match &self.store {
                Some(store) => c = c.with_store(store.clone()),
                None => {
                    return Err(LangError::Mode {
                        mode,
                        lang: "python",
                        why: "no SynCode mask store was built for this vocabulary",
                    })
                }
            }
        }
        if !prefix.is_empty() {
            c.commit(prefix.as_bytes())
                .map_err(|rejected| LangError::Prefix { lang: "python", offset: rejected.offset, rejected })?;
        }
        Ok(LangConstraint::Python(Box::new(c)))
    }
}

/// One of the decoder's constraints, chosen at run time.
#[derive(Clone)]
pub enum LangConstraint {
    /// No language: everything is allowed.
    None(Unconstrained),
    /// The Python grammar.
    Python(Box<GrammarConstraint>),
    /// The sLua tree of parsers.
    Slua(Box<SluaConstraint>),
}

impl LangConstraint {
    /// A fresh sLua constraint for a script of `kind` (`effect` or `talent`, any
    /// other value: either) over the game API, where `effects` are the names of
    /// effects already written (talents may apply them).
    pub fn slua(kind: &str, effects: Vec<String>) -> Self {
        let env = Rc::new(Env::new(Api::dungeon(), effects));
        let c = match kind {
            "effect" | "talent" => SluaConstraint::for_kind(env, kind),
            _ => SluaConstraint::new(env),
        };
        LangConstraint::Slua(Box::new(c))
    }

    /// The finishing mask for the decoder's wrap-up ([`crate::GenerateConfig::wrap_up`],
    /// passed to [`crate::Generator::with_finishing`]): the tokens that lead towards the
    /// shortest completion. Dispatched here rather than through [`Constraint`], whose
    /// shape stays fixed. Returns `false` (mask untouched) for constraints without
    /// such a notion (none).
    pub fn fill_finishing_mask(&mut self, vocab: &Vocab, mask: &mut TokenSet) -> bool {
        match self {
            LangConstraint::None(_) => false,
            // Branch `finish` (issue 13): the grammar constraint's own finishing mask,
            // through the trait method (the `registry` branch makes every language
            // delegate this way; on merge keep that version).
            LangConstraint::Python(c) => Constraint::fill_finishing_mask(c.as_mut(), vocab, mask),
            LangConstraint::Slua(c) => slua_finishing(c, vocab, mask),
        }
    }
}

/// The sLua constraint's finishing mask: allowed tokens that strictly lower the
/// remaining cost to a finished script (EOS only once it is complete).
fn slua_finishing(c: &mut SluaConstraint, vocab: &Vocab, mask: &mut TokenSet) -> bool {
    c.fill_finishing_mask(vocab, mask);
    true
}

macro_rules! delegate {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            LangConstraint::None($c) => $e,
            LangConstraint::Python($c) => $e,
            LangConstraint::Slua($c) => $e,
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
}
