//! [`MaskKit`]: everything the masks of one language derive from one vocabulary,
//! built once, eagerly, and shared by every constraint made from it.
//!
//! What it holds, and what each costs to build with SmolLM2's vocabulary (49,152
//! tokens) on the 2-core dev machine:
//! - the vocabulary's trie ([`TokTrie`], plain data that knows no grammar; it may be
//!   shared by the kits of several languages);
//! - the lexeme-start summaries of the language's lexer over the trie
//!   ([`crate::lexeme_starts`], ~0.1-0.2 s: the bulk of it);
//! - the language's lexical layer data (Python: f-string token lists and the nested
//!   masks at a fresh field, ~2 ms, see [`crate::python`]);
//! - the empty text's exact mask ([`crate::start_mask`]: every constraint from the
//!   empty text has the same first mask);
//! - the finishing masks' cost cache ([`CostCache`]), filled as constraints ask;
//! - for strategy `syncode`, SynCode's mask store when attached ([`MaskKit::with_store`]).
//!
//! Nothing here is a process-wide cache: the caller keeps the kit (the decoder's
//! `Kits`, a benchmark, the Python package's vocabulary object) and passes it to
//! [`GrammarConstraint::new`] and [`crate::FimConstraint::new`]. A kit is cheap to
//! clone (a handful of reference counts).

use std::sync::Arc;

use espalier_grammar::{Language, LrParser, Recognizer as GrammarRecognizer, TokenParser};

use crate::exact::ExactWalker;
use crate::lexeme_starts::LexemeStarts;
use crate::mask_layer::AnyLayer;
use crate::mask_store::MaskStore;
use crate::python::fstring_layer::{FStringData, FStringLayer};
use crate::start_mask::StartMask;
use crate::{CostCache, GrammarConstraint, Strategy, TokTrie, TokenSet, Vocab};

/// One language's per-vocabulary mask data (see the module doc).
#[derive(Clone, Debug)]
pub struct MaskKit {
    language: Arc<Language>,
    trie: Arc<TokTrie>,
    starts: Option<Arc<LexemeStarts>>,
    layer: LayerData,
    start_mask: Arc<StartMask>,
    store: Option<Arc<MaskStore>>,
    costs: CostCache,
}

/// The data of the language's lexical layer in masks (see [`crate::mask_layer`]).
#[derive(Clone, Debug)]
enum LayerData {
    /// The trie walk decides every byte (Go: semicolons are the recognizer's).
    None,
    /// Python's f-strings.
    FStrings(FStringData),
}

impl MaskKit {
    /// Builds the kit of `language` over `trie` (the vocabulary's): the lexeme-start
    /// summaries, the layer's data and the empty text's mask, now.
    pub fn new(language: Arc<Language>, trie: Arc<TokTrie>) -> Self {
        let starts = LexemeStarts::build(&trie, &language.dfa).map(Arc::new);
        let layer = match language.python {
            Some(_) => LayerData::FStrings(FStringData::build(&trie, &language, starts.clone())),
            None => LayerData::None,
        };
        let start = language.recognizer();
        let mut walker = ExactWalker::new(&start, starts.clone(), layer.any::<LrParser>());
        let start_mask = Arc::new(StartMask::build(&start, &trie, &mut walker));
        MaskKit { language, trie, starts, layer, start_mask, store: None, costs: CostCache::new() }
    }

    /// [`MaskKit::new`] over a trie of its own, built from `vocab`.
    pub fn for_vocab(language: Arc<Language>, vocab: &Vocab) -> Self {
        Self::new(language, Arc::new(TokTrie::new(vocab)))
    }

    /// Attaches SynCode's mask store (built for the same grammar and vocabulary) for
    /// strategy `syncode`.
    pub fn with_store(mut self, store: Arc<MaskStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Replaces the finishing masks' cost cache (e.g. a fresh one per request, for a
    /// benchmark of first visits).
    pub fn with_cost_cache(mut self, costs: CostCache) -> Self {
        self.costs = costs;
        self
    }

    /// A constraint from the empty text with `strategy`, named `kind` in inspections.
    pub fn constraint(&self, strategy: Strategy, kind: impl Into<String>) -> GrammarConstraint {
        GrammarConstraint::new(self, strategy, kind)
    }

    /// The compiled grammar.
    pub fn language(&self) -> &Arc<Language> {
        &self.language
    }

    /// The vocabulary's trie.
    pub fn trie(&self) -> &Arc<TokTrie> {
        &self.trie
    }

    /// Number of token ids the masks range over.
    pub fn vocab_len(&self) -> usize {
        self.trie.vocab_len()
    }

    /// The lexeme-start summaries (`None` when the lexer is too large for them).
    pub fn lexeme_starts(&self) -> Option<&Arc<LexemeStarts>> {
        self.starts.as_ref()
    }

    /// SynCode's mask store, if attached.
    pub fn store(&self) -> Option<&Arc<MaskStore>> {
        self.store.as_ref()
    }

    /// The finishing masks' cost cache (shared by the constraints made from the kit).
    pub fn cost_cache(&self) -> &CostCache {
        &self.costs
    }

    /// An exact-mask walker for states like `start` (of this kit's language), with
    /// the summaries and the language's layer.
    pub(crate) fn walker<P: TokenParser>(&self, start: &GrammarRecognizer<P>) -> ExactWalker<P> {
        ExactWalker::new(start, self.starts.clone(), self.layer.any())
    }

    /// The empty text's exact mask where `start` is the empty text it was computed at.
    pub(crate) fn start_mask_of<P: TokenParser>(
        &self,
        start: &GrammarRecognizer<P>,
    ) -> Option<Arc<StartMask>> {
        let same = Arc::ptr_eq(start.language(), &self.language);
        Some(self.start_mask.clone()).filter(|m| same && m.is_start_of(start))
    }

    /// Bytes of memory the kit's derived data takes (summaries and masks; the trie
    /// and the store have their own counts).
    pub fn memory_bytes(&self) -> usize {
        let mask = |m: &TokenSet| m.words().len() * 8;
        self.starts.as_ref().map_or(0, |s| s.memory_bytes()) + mask(self.start_mask.mask())
    }
}

impl LayerData {
    /// A fresh layer for a walker over parser `P`.
    fn any<P: TokenParser>(&self) -> AnyLayer<P> {
        match self {
            LayerData::None => AnyLayer::none(),
            LayerData::FStrings(data) => AnyLayer::of(FStringLayer::<P>::new(data.clone())),
        }
    }
}
