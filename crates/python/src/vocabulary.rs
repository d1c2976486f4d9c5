//! `espalier.Vocabulary`: the raw bytes of every token id of a model, with its special
//! tokens and its end-of-sequence id, built from a GGUF file (the project's tokenizer),
//! a Hugging Face `tokenizer.json` (through the `tokenizers` crate), or a plain list of
//! byte strings. It also keeps what every constraint over it shares, built once on
//! first use: the vocabulary trie, and per grammar language of the registry (Python,
//! Go) its kit and its SynCode mask store.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use espalier_constraint::{MaskStore, TokTrie, Vocab};
use espalier_decode::{GrammarKit, Kit, Lang};
use espalier_model::{byte_level_decode, Gguf, Tokenizer};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{GrammarError, VocabularyError};

/// Names tried, in order, for the end-of-sequence token of a `tokenizer.json` when the
/// caller gives no id.
const EOS_NAMES: [&str; 6] =
    ["<|endoftext|>", "</s>", "<|end_of_text|>", "<eos>", "<|im_end|>", "<|eot_id|>"];

/// A model's vocabulary as raw bytes (immutable; shared by every constraint built on it).
#[pyclass(frozen, module = "espalier")]
pub struct Vocabulary {
    pub(crate) vocab: Arc<Vocab>,
    trie: OnceLock<Arc<TokTrie>>,
    /// Grammar language name -> its kit, and its SynCode store once asked for.
    kits: Mutex<HashMap<&'static str, GrammarKit>>,
}

impl Vocabulary {
    fn wrap(vocab: Vocab) -> PyResult<Self> {
        if vocab.is_empty() {
            return Err(VocabularyError::new_err("the vocabulary has no token"));
        }
        if vocab.eos() as usize >= vocab.len() {
            return Err(VocabularyError::new_err(format!(
                "end-of-sequence id {} is out of the vocabulary's range 0..{}",
                vocab.eos(),
                vocab.len()
            )));
        }
        Ok(Self { vocab: Arc::new(vocab), trie: OnceLock::new(), kits: Mutex::new(HashMap::new()) })
    }

    /// The vocabulary trie (built on first use).
    pub(crate) fn trie(&self) -> Arc<TokTrie> {
        self.trie.get_or_init(|| Arc::new(TokTrie::new(&self.vocab))).clone()
    }

    /// The kit of the grammar language `lang` (the registry's: its compiled grammar
    /// and this vocabulary's trie), with its SynCode mask store when `syncode`; each
    /// built once per vocabulary.
    pub(crate) fn grammar_kit(&self, lang: Lang, syncode: bool) -> PyResult<GrammarKit> {
        let mut kits =
            self.kits.lock().map_err(|_| GrammarError::new_err("a kit build panicked earlier"))?;
        if !kits.contains_key(lang.name()) {
            let kit =
                match lang.kit(&self.vocab).map_err(|e| GrammarError::new_err(e.to_string()))? {
                    Kit::Grammar(kit) => kit,
                    _ => {
                        return Err(GrammarError::new_err(format!(
                            "{} is not a grammar language",
                            lang.name()
                        )))
                    }
                };
            kits.insert(lang.name(), kit);
        }
        let kit =
            kits.get_mut(lang.name()).ok_or_else(|| GrammarError::new_err("the kit is missing"))?;
        if syncode && !kit.has_store() {
            let store = Arc::new(MaskStore::build(kit.language(), &self.vocab));
            *kit = kit.clone().with_store(store);
        }
        Ok(kit.clone())
    }
}

/// Reads a Hugging Face `tokenizer.json` (its text) into a [`Vocab`].
fn vocab_from_tokenizer_json(text: &str, eos_token_id: Option<u32>) -> PyResult<Vocab> {
    let tok: tokenizers::Tokenizer = text
        .parse()
        .map_err(|e| VocabularyError::new_err(format!("tokenizer.json does not load: {e}")))?;
    let json: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| VocabularyError::new_err(format!("tokenizer.json is not JSON: {e}")))?;
    let decoder = decoder_kind(&json["decoder"])?;
    let size = tok.get_vocab_size(true);
    let mut tokens = vec![Vec::new(); size];
    // Ids nobody names (gaps) stay empty and special: never allowed.
    let mut named = vec![false; size];
    for (text, id) in tok.get_vocab(false) {
        if let Some(slot) = tokens.get_mut(id as usize) {
            *slot = decoder.decode(&text);
            named[id as usize] = true;
        }
    }
    let mut special = Vec::new();
    for (id, added) in tok.get_added_tokens_decoder() {
        if let Some(slot) = tokens.get_mut(id as usize) {
            *slot = added.content.as_bytes().to_vec();
            named[id as usize] = true;
            if added.special {
                special.push(id);
            }
        }
    }
    special.extend((0..size as u32).filter(|&i| !named[i as usize]));
    let eos = match eos_token_id {
        Some(id) => id,
        None => EOS_NAMES
            .iter()
            .find_map(|name| tok.token_to_id(name))
            .ok_or_else(|| {
                VocabularyError::new_err(format!(
                    "tokenizer.json has none of the usual end-of-sequence tokens {EOS_NAMES:?}: pass eos_token_id"
                ))
            })?,
    };
    if eos as usize >= size {
        return Err(VocabularyError::new_err(format!(
            "eos_token_id {eos} is out of the vocabulary's range 0..{size}"
        )));
    }
    Ok(Vocab::new(tokens, &special, eos))
}

/// How a `tokenizer.json`'s token strings map to bytes.
enum Decoder {
    /// GPT-2's byte alphabet (`ByteLevel` decoder).
    ByteLevel,
    /// SentencePiece style: `▁` is a space, `<0xHH>` a raw byte.
    Metaspace,
}

impl Decoder {
    fn decode(&self, token: &str) -> Vec<u8> {
        match self {
            Decoder::ByteLevel => byte_level_decode(token),
            Decoder::Metaspace => {
                let hex = token.strip_prefix("<0x").and_then(|t| t.strip_suffix('>'));
                match hex.filter(|h| h.len() == 2).and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => vec![b],
                    None => token.replace('\u{2581}', " ").into_bytes(),
                }
            }
        }
    }
}

/// The decoder of a `tokenizer.json`, from its `decoder` object.
fn decoder_kind(decoder: &serde_json::Value) -> PyResult<Decoder> {
    let kind = decoder["type"].as_str().unwrap_or("");
    let inner: Vec<&str> = decoder["decoders"]
        .as_array()
        .map(|d| d.iter().filter_map(|x| x["type"].as_str()).collect())
        .unwrap_or_default();
    if kind == "ByteLevel" || inner.contains(&"ByteLevel") {
        Ok(Decoder::ByteLevel)
    } else if kind == "Metaspace" || inner.contains(&"Metaspace") || inner.contains(&"ByteFallback")
    {
        Ok(Decoder::Metaspace)
    } else {
        Err(VocabularyError::new_err(format!(
            "tokenizer.json has decoder {kind:?} {inner:?}: supported are ByteLevel (GPT-2 bytes) and \
             Metaspace/ByteFallback (SentencePiece); build the vocabulary with Vocabulary.from_token_bytes"
        )))
    }
}

#[pymethods]
impl Vocabulary {
    /// A vocabulary from each id's raw bytes, the end-of-sequence id and the ids of
    /// special (control) tokens, which no constraint ever allows.
    #[staticmethod]
    #[pyo3(signature = (tokens, eos_token_id, special_ids = Vec::new()))]
    fn from_token_bytes(
        tokens: Vec<Vec<u8>>,
        eos_token_id: i64,
        special_ids: Vec<i64>,
    ) -> PyResult<Self> {
        let n = tokens.len();
        let check = |id: i64, what: &str| -> PyResult<u32> {
            if id < 0 || id as usize >= n {
                Err(VocabularyError::new_err(format!(
                    "{what} {id} is out of the vocabulary's range 0..{n}"
                )))
            } else {
                Ok(id as u32)
            }
        };
        let eos = check(eos_token_id, "eos_token_id")?;
        let special =
            special_ids.iter().map(|&i| check(i, "special id")).collect::<PyResult<Vec<_>>>()?;
        Self::wrap(Vocab::new(tokens, &special, eos))
    }

    /// A vocabulary from a GGUF file's tokenizer metadata (what llama.cpp uses).
    #[staticmethod]
    fn from_gguf(path: PathBuf) -> PyResult<Self> {
        let gguf = Gguf::open(&path)
            .map_err(|e| VocabularyError::new_err(format!("{}: {e}", path.display())))?;
        let tok = Tokenizer::from_gguf(&gguf)
            .map_err(|e| VocabularyError::new_err(format!("{}: {e}", path.display())))?;
        Self::wrap(espalier_engine::vocab_of(&tok))
    }

    /// A vocabulary from a Hugging Face `tokenizer.json` file. `eos_token_id` defaults
    /// to the first of `<|endoftext|>`, `</s>`, ... the file has.
    #[staticmethod]
    #[pyo3(signature = (path, eos_token_id = None))]
    fn from_tokenizer_json(path: PathBuf, eos_token_id: Option<u32>) -> PyResult<Self> {
        let text = std::fs::read_to_string(&path).map_err(|e| {
            VocabularyError::new_err(format!("cannot read {}: {e}", path.display()))
        })?;
        Self::wrap(vocab_from_tokenizer_json(&text, eos_token_id)?)
    }

    /// Like `from_tokenizer_json`, from the JSON text (e.g. a `transformers` fast
    /// tokenizer's `backend_tokenizer.to_str()`).
    #[staticmethod]
    #[pyo3(signature = (json, eos_token_id = None))]
    fn from_tokenizer_str(json: &str, eos_token_id: Option<u32>) -> PyResult<Self> {
        Self::wrap(vocab_from_tokenizer_json(json, eos_token_id)?)
    }

    /// Number of token ids (the width masks and logits rows must have).
    fn __len__(&self) -> usize {
        self.vocab.len()
    }

    /// Number of token ids.
    #[getter]
    fn size(&self) -> usize {
        self.vocab.len()
    }

    /// The end-of-sequence token id.
    #[getter]
    fn eos_token_id(&self) -> u32 {
        self.vocab.eos()
    }

    /// The raw bytes of token `id`.
    fn token_bytes<'py>(&self, py: Python<'py>, id: i64) -> PyResult<Bound<'py, PyBytes>> {
        if id < 0 || id as usize >= self.vocab.len() {
            return Err(crate::errors::TokenIdError::new_err(format!(
                "token id {id} is out of the vocabulary's range 0..{}",
                self.vocab.len()
            )));
        }
        Ok(PyBytes::new(py, self.vocab.bytes(id as u32)))
    }

    /// Whether `id` is a special (control) token.
    fn is_special(&self, id: i64) -> bool {
        id >= 0 && self.vocab.is_special(id as u32)
    }

    fn __repr__(&self) -> String {
        format!("Vocabulary(size={}, eos_token_id={})", self.vocab.len(), self.vocab.eos())
    }
}
