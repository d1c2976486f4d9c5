//! The model's tokenizer, rebuilt from the GGUF metadata with the `tokenizers` crate.
//!
//! SmolLM2 uses GPT-2 byte-level BPE (`tokenizer.ggml.model = gpt2`,
//! `tokenizer.ggml.pre = smollm`). A probe matched llama.cpp's ids on 330 texts with:
//! a BPE from `tokenizer.ggml.tokens` and `tokenizer.ggml.merges` (each merge split on
//! its first space), the pre-tokenizer Sequence[Digits(individual),
//! ByteLevel(no prefix space, GPT-2 regex)], a ByteLevel decoder, and the control
//! tokens (`token_type == 3`, ids 0-16 here) added as special tokens, which are
//! recognised inside the text as llama.cpp does with `special = true`.
//!
//! Other byte-level BPE vocabularies differ only in the pre-tokenizer, chosen by
//! `tokenizer.ggml.pre` with llama.cpp's regular expressions (`llama-vocab.cpp`):
//! `qwen2` (one regex that splits digits one by one), `deepseek-coder` (five regexes
//! in turn), `starcoder` / `smollm` / `refact` / `codeshell` (digits, then GPT-2's),
//! `gpt2`. Each regex is a `Split` keeping matches and the text between them, as
//! llama.cpp's `unicode_regex_split` does. Tested against the vocabulary-only GGUFs and
//! their `.inp` / `.out` vectors that ship with llama.cpp (`tests/it/vocab_golden.rs`).
//! Fill-in-the-middle tokens are found in the vocabulary ([`FimTokens`]).

use std::collections::HashMap;

use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::BPE;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::{AddedToken, PreTokenizerWrapper, SplitDelimiterBehavior};

use crate::gguf::{Gguf, GgufError};

/// GGUF token type of control tokens (`<|im_start|>`, `<|endoftext|>`...).
const TOKEN_TYPE_CONTROL: u64 = 3;
/// GGUF token type of user-defined tokens (matched literally, not special).
const TOKEN_TYPE_USER_DEFINED: u64 = 4;
/// GGUF token type of unused ids (rows that no text encodes to).
const TOKEN_TYPE_UNUSED: u64 = 5;

/// Why the tokenizer could not be built or could not encode/decode.
#[derive(Debug, thiserror::Error)]
pub enum TokenizerError {
    /// A metadata key the tokenizer needs is missing or has the wrong type.
    #[error("tokenizer metadata: {0}")]
    Metadata(#[from] GgufError),
    /// The GGUF describes a tokenizer kind this crate does not build.
    #[error("unsupported tokenizer {key} = {found:?} (supported: {supported})")]
    Unsupported {
        /// The metadata key.
        key: &'static str,
        /// The value found.
        found: String,
        /// What is supported.
        supported: &'static str,
    },
    /// A merge rule without the space that separates its two parts.
    #[error("tokenizer.ggml.merges[{index}] = {merge:?} has no space separating its two parts")]
    BadMerge {
        /// Index in the merges array.
        index: usize,
        /// The merge string.
        merge: String,
    },
    /// A token id out of the vocabulary's range (bos / eos ids, or decode input).
    #[error("token id {id} ({what}) is out of the vocabulary's range 0..{vocab_size}")]
    BadId {
        /// The id.
        id: u32,
        /// Where it came from.
        what: &'static str,
        /// Vocabulary size.
        vocab_size: usize,
    },
    /// The `tokenizers` crate refused the model or the input.
    #[error("tokenizers: {0}")]
    Tokenizers(String),
}

/// The model's tokenizer: encode text to ids, decode ids to text, and each token's raw
/// bytes (what grammar constraints need).
#[derive(Clone)]
pub struct Tokenizer {
    inner: tokenizers::Tokenizer,
    token_bytes: Vec<Vec<u8>>,
    special: Vec<bool>,
    bos: u32,
    eos: u32,
    chat_template: Option<String>,
    fim: Option<FimTokens>,
    add_bos: bool,
    pre: Option<String>,
}

/// A vocabulary's fill-in-the-middle tokens: a prompt is `prefix` + code before the
/// cursor + `suffix` + code after it + `middle`, and the model writes the middle
/// (the prefix-suffix-middle order that Qwen2.5-Coder, StarCoder and DeepSeek-Coder
/// were trained with).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FimTokens {
    /// `<|fim_prefix|>`, `<fim_prefix>` or `<｜fim▁begin｜>`.
    pub prefix: u32,
    /// `<|fim_suffix|>`, `<fim_suffix>` or `<｜fim▁hole｜>`.
    pub suffix: u32,
    /// `<|fim_middle|>`, `<fim_middle>` or `<｜fim▁end｜>`.
    pub middle: u32,
}

impl FimTokens {
    /// The token spellings of the known families, in (prefix, suffix, middle) order.
    pub const SPELLINGS: [[&'static str; 3]; 3] = [
        ["<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"],
        ["<fim_prefix>", "<fim_suffix>", "<fim_middle>"],
        ["<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>"],
    ];

    /// The ids named by the GGUF (`tokenizer.ggml.fim_{pre,suf,mid}_token_id`), else
    /// the first family whose three spellings are all in `tokens`.
    fn find(gguf: &Gguf, tokens: &[&str]) -> Option<Self> {
        let key = |k: &str| {
            gguf.get_u64(k).ok().filter(|&v| (v as usize) < tokens.len()).map(|v| v as u32)
        };
        if let (Some(prefix), Some(suffix), Some(middle)) = (
            key("tokenizer.ggml.fim_pre_token_id"),
            key("tokenizer.ggml.fim_suf_token_id"),
            key("tokenizer.ggml.fim_mid_token_id"),
        ) {
            return Some(Self { prefix, suffix, middle });
        }
        let index: HashMap<&str, u32> =
            tokens.iter().enumerate().map(|(i, &t)| (t, i as u32)).collect();
        Self::SPELLINGS.iter().find_map(|[p, s, m]| {
            Some(Self { prefix: *index.get(p)?, suffix: *index.get(s)?, middle: *index.get(m)? })
        })
    }
}

/// llama.cpp's regex for `qwen2` (case-insensitive contractions spelled out).
const QWEN2_REGEX: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// llama.cpp's regexes for `deepseek-coder`, applied in turn.
const DEEPSEEK_CODER_REGEXES: [&str; 5] =
    [r"[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", "[一-龥ࠀ-一가-퟿]+", r"\p{N}"];

/// The pre-tokenizer for `tokenizer.ggml.pre = pre`: llama.cpp's regexes as splits,
/// then the byte-level mapping.
fn pre_tokenizer(pre: &str) -> Result<PreTokenizerWrapper, TokenizerError> {
    let split = |re: &str| -> Result<PreTokenizerWrapper, TokenizerError> {
        Split::new(SplitPattern::Regex(re.to_owned()), SplitDelimiterBehavior::Isolated, false)
            .map(PreTokenizerWrapper::Split)
            .map_err(|e| TokenizerError::Tokenizers(e.to_string()))
    };
    let bytes = PreTokenizerWrapper::ByteLevel(ByteLevel::new(false, false, false));
    // ByteLevel with its own regex is GPT-2's (the 330 SmolLM2 texts were matched so).
    let gpt2 = PreTokenizerWrapper::ByteLevel(ByteLevel::new(false, false, true));
    let mut steps = match pre {
        "smollm" | "starcoder" | "refact" | "codeshell" => {
            return Ok(PreTokenizerWrapper::Sequence(Sequence::new(vec![
                PreTokenizerWrapper::Digits(Digits::new(true)),
                gpt2,
            ])))
        }
        "gpt2" => return Ok(gpt2),
        "qwen2" => vec![split(QWEN2_REGEX)?],
        "deepseek-coder" => {
            DEEPSEEK_CODER_REGEXES.iter().map(|re| split(re)).collect::<Result<_, _>>()?
        }
        other => {
            return Err(TokenizerError::Unsupported {
                key: "tokenizer.ggml.pre",
                found: other.into(),
                supported: "smollm, starcoder, refact, codeshell, gpt2, qwen2, deepseek-coder",
            })
        }
    };
    steps.push(bytes);
    Ok(PreTokenizerWrapper::Sequence(Sequence::new(steps)))
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer")
            .field("vocab_size", &self.token_bytes.len())
            .field("bos", &self.bos)
            .field("eos", &self.eos)
            .finish()
    }
}

/// The byte-level BPE model of the vocabulary's tokens and its merges (`"a b"` each).
fn bpe(tokens: &[&str], merges_raw: &[&str]) -> Result<BPE, TokenizerError> {
    let vocab: tokenizers::models::bpe::Vocab =
        tokens.iter().enumerate().map(|(i, t)| ((*t).to_owned(), i as u32)).collect();
    let mut merges = Vec::with_capacity(merges_raw.len());
    for (index, m) in merges_raw.iter().enumerate() {
        let (a, b) = m
            .split_once(' ')
            .ok_or_else(|| TokenizerError::BadMerge { index, merge: (*m).to_owned() })?;
        merges.push((a.to_owned(), b.to_owned()));
    }
    BPE::builder()
        .vocab_and_merges(vocab, merges)
        .build()
        .map_err(|e| TokenizerError::Tokenizers(e.to_string()))
}

/// Adds the control tokens (special) and user-defined tokens to `inner`, by the
/// vocabulary's token types; which ids are special (never text: control, unused and
/// padding tokens).
fn add_special_tokens(
    inner: &mut tokenizers::Tokenizer,
    tokens: &[&str],
    types: &[u64],
) -> Result<Vec<bool>, TokenizerError> {
    let mut special = vec![false; tokens.len()];
    let mut specials = Vec::new();
    let mut user = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match types.get(i).copied() {
            Some(TOKEN_TYPE_CONTROL) => {
                special[i] = true;
                specials.push(AddedToken::from(*t, true));
            }
            Some(TOKEN_TYPE_USER_DEFINED) => {
                // llama.cpp's converter pads the vocabulary to the embedding's rows
                // with `[PAD<id>]` (Qwen2: 290 of them): never a real token.
                special[i] = is_padding(t, i);
                user.push(AddedToken::from(*t, false));
            }
            Some(TOKEN_TYPE_UNUSED) => special[i] = true,
            _ => {}
        }
    }
    inner.add_special_tokens(specials).map_err(|e| TokenizerError::Tokenizers(e.to_string()))?;
    inner.add_tokens(user).map_err(|e| TokenizerError::Tokenizers(e.to_string()))?;
    Ok(special)
}

impl Tokenizer {
    /// Builds the tokenizer from a GGUF file's `tokenizer.*` metadata.
    pub fn from_gguf(gguf: &Gguf) -> Result<Self, TokenizerError> {
        let model = gguf.get_str("tokenizer.ggml.model")?;
        if model != "gpt2" {
            return Err(TokenizerError::Unsupported {
                key: "tokenizer.ggml.model",
                found: model.into(),
                supported: "gpt2 (byte-level BPE)",
            });
        }
        // Files without the key predate it; SmolLM2's pre-tokenizer is the one they had.
        let pre_name = gguf.get_str("tokenizer.ggml.pre").ok().map(str::to_owned);
        let pre = pre_tokenizer(pre_name.as_deref().unwrap_or("smollm"))?;
        let tokens = gguf.get_str_array("tokenizer.ggml.tokens")?;
        let merges = gguf.get_str_array("tokenizer.ggml.merges")?;
        let types: Vec<u64> = match gguf.get_array("tokenizer.ggml.token_type") {
            Ok(a) => a.iter().map(|v| v.as_u64().unwrap_or(1)).collect(),
            Err(_) => vec![1; tokens.len()],
        };
        let vocab_size = tokens.len();
        let id = |key: &'static str| -> Result<u32, TokenizerError> {
            let v = gguf.get_u64(key)?;
            u32::try_from(v).ok().filter(|&v| (v as usize) < vocab_size).ok_or(
                TokenizerError::BadId { id: v.min(u32::MAX as u64) as u32, what: key, vocab_size },
            )
        };
        let bos = id("tokenizer.ggml.bos_token_id")?;
        let eos = id("tokenizer.ggml.eos_token_id")?;
        let mut inner = tokenizers::Tokenizer::new(bpe(&tokens, &merges)?);
        inner.with_pre_tokenizer(Some(pre));
        inner.with_decoder(Some(ByteLevelDecoder::default()));
        let special = add_special_tokens(&mut inner, &tokens, &types)?;
        let token_bytes = tokens
            .iter()
            .zip(&special)
            .map(|(t, &s)| if s { t.as_bytes().to_vec() } else { byte_level_decode(t) })
            .collect();
        // llama.cpp's default for byte-level BPE vocabularies without the key: no BOS.
        let add_bos = matches!(
            gguf.get("tokenizer.ggml.add_bos_token"),
            Ok(crate::gguf::MetadataValue::Bool(true))
        );
        Ok(Self {
            inner,
            token_bytes,
            special,
            bos,
            eos,
            chat_template: gguf.get_str("tokenizer.chat_template").ok().map(str::to_owned),
            fim: FimTokens::find(gguf, &tokens),
            add_bos,
            pre: pre_name,
        })
    }

    /// The fill-in-the-middle tokens of this vocabulary, if it has them.
    pub fn fim_tokens(&self) -> Option<FimTokens> {
        self.fim
    }

    /// The prompt of a model trained to infill, where the vocabulary has FIM tokens:
    /// BOS where the vocabulary asks for it (as llama.cpp's infill), then `prefix` +
    /// the code before the cursor + `suffix` + the code after it + `middle`, in the
    /// prefix-suffix-middle order. `None` for a vocabulary without them (the caller
    /// writes a chat prompt instead).
    pub fn fim_prompt(
        &self,
        before: &str,
        after: &str,
    ) -> Option<Result<Vec<u32>, TokenizerError>> {
        let fim = self.fim?;
        let ids = (|| {
            let mut ids = if self.add_bos { vec![self.bos, fim.prefix] } else { vec![fim.prefix] };
            ids.extend(self.encode(before)?);
            ids.push(fim.suffix);
            ids.extend(self.encode(after)?);
            ids.push(fim.middle);
            Ok(ids)
        })();
        Some(ids)
    }

    /// Encodes `text` to token ids as llama.cpp's `tokenize(add_bos = false,
    /// special = true)` does: control tokens written in the text (`<|im_start|>`) become
    /// their ids; no BOS is added.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, TokenizerError> {
        let enc = self
            .inner
            .encode_fast(text, false)
            .map_err(|e| TokenizerError::Tokenizers(e.to_string()))?;
        Ok(enc.get_ids().to_vec())
    }

    /// Encodes a whole prompt as llama.cpp's `tokenize(add_special = true, special =
    /// true)` does: [`Tokenizer::encode`], with the BOS token first when the vocabulary
    /// asks for one (`tokenizer.ggml.add_bos_token`, DeepSeek-Coder) and the text does
    /// not already start with it (a chat template that writes `bos_token` itself).
    pub fn encode_prompt(&self, text: &str) -> Result<Vec<u32>, TokenizerError> {
        let mut ids = self.encode(text)?;
        if self.add_bos && ids.first() != Some(&self.bos) {
            ids.insert(0, self.bos);
        }
        Ok(ids)
    }

    /// Whether prompts start with the BOS token (`tokenizer.ggml.add_bos_token`).
    pub fn adds_bos(&self) -> bool {
        self.add_bos
    }

    /// Decodes ids to text (control tokens appear as their text). Bytes that do not
    /// form valid UTF-8 on their own are replaced by U+FFFD; use
    /// [`Tokenizer::decode_bytes`] for a lossless result.
    pub fn decode(&self, ids: &[u32]) -> Result<String, TokenizerError> {
        self.check_ids(ids)?;
        Ok(String::from_utf8_lossy(&self.decode_bytes(ids)?).into_owned())
    }

    /// The exact bytes of `ids` concatenated (control tokens as their text).
    pub fn decode_bytes(&self, ids: &[u32]) -> Result<Vec<u8>, TokenizerError> {
        self.check_ids(ids)?;
        Ok(ids.iter().flat_map(|&id| self.token_bytes[id as usize].iter().copied()).collect())
    }

    fn check_ids(&self, ids: &[u32]) -> Result<(), TokenizerError> {
        match ids.iter().find(|&&id| id as usize >= self.token_bytes.len()) {
            Some(&id) => Err(TokenizerError::BadId {
                id,
                what: "decode input",
                vocab_size: self.token_bytes.len(),
            }),
            None => Ok(()),
        }
    }

    /// The raw bytes of token `id` (GPT-2's byte alphabet mapped back to bytes; a
    /// control token's text for control tokens; empty for ids out of range).
    pub fn token_bytes(&self, id: u32) -> &[u8] {
        self.token_bytes.get(id as usize).map_or(&[], Vec::as_slice)
    }

    /// Every token's raw bytes, indexed by id (the input of a constraint vocabulary).
    pub fn all_token_bytes(&self) -> &[Vec<u8>] {
        &self.token_bytes
    }

    /// Whether `id` is a control token (`<|im_start|>`, `<|endoftext|>`...), an unused
    /// id or a `[PAD<id>]` padding row: tokens a grammar never produces.
    pub fn is_special(&self, id: u32) -> bool {
        self.special.get(id as usize).copied().unwrap_or(false)
    }

    /// The ids of all control tokens, unused ids and padding rows.
    pub fn special_ids(&self) -> Vec<u32> {
        (0..self.special.len() as u32).filter(|&i| self.special[i as usize]).collect()
    }

    /// Number of token ids.
    pub fn vocab_size(&self) -> usize {
        self.token_bytes.len()
    }

    /// Beginning-of-sequence id (`<|im_start|>` for SmolLM2).
    pub fn bos_id(&self) -> u32 {
        self.bos
    }

    /// End-of-sequence id (`<|im_end|>` for SmolLM2).
    pub fn eos_id(&self) -> u32 {
        self.eos
    }

    /// The pre-tokenizer's name (`tokenizer.ggml.pre`), if the file names one.
    pub fn pre_tokenizer(&self) -> Option<&str> {
        self.pre.as_deref()
    }

    /// The text of token `id` (a control token's spelling, `<|im_start|>`); empty
    /// when its bytes are not UTF-8 or `id` is out of range.
    pub fn token_text(&self, id: u32) -> &str {
        std::str::from_utf8(self.token_bytes(id)).unwrap_or("")
    }

    /// The Jinja chat template stored in the GGUF (`tokenizer.chat_template`), if any.
    pub fn chat_template(&self) -> Option<&str> {
        self.chat_template.as_deref()
    }

    /// A single-turn ChatML prompt as SmolLM2's template renders it (system, user,
    /// then the assistant header), ready for [`Tokenizer::encode`].
    pub fn chat_prompt(system: &str, user: &str) -> String {
        format!("<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n")
    }
}

/// Whether token `id` spelled `token` is one of the `[PAD<id>]` rows llama.cpp's
/// converter adds beyond a vocabulary's real tokens.
fn is_padding(token: &str, id: usize) -> bool {
    token
        .strip_prefix("[PAD")
        .and_then(|r| r.strip_suffix(']'))
        .is_some_and(|n| n == id.to_string())
}

/// GPT-2's byte-to-character table: printable Latin-1 bytes map to themselves, the
/// others to U+0100 onwards in byte order.
fn byte_to_char() -> [char; 256] {
    let mut table = ['\0'; 256];
    let mut n = 0u32;
    for b in 0..=255u8 {
        let printable = matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
        table[b as usize] = if printable {
            char::from(b)
        } else {
            n += 1;
            char::from_u32(255 + n).unwrap_or('\0')
        };
    }
    table
}

/// Maps a byte-level (GPT-2 alphabet) token string back to its bytes. Characters
/// outside the alphabet (none in a well-formed vocabulary) are kept as their UTF-8
/// encoding. Public for vocabularies read from a Hugging Face `tokenizer.json`.
pub fn byte_level_decode(token: &str) -> Vec<u8> {
    use std::sync::OnceLock;
    static INVERSE: OnceLock<HashMap<char, u8>> = OnceLock::new();
    let inverse = INVERSE
        .get_or_init(|| byte_to_char().iter().enumerate().map(|(b, &c)| (c, b as u8)).collect());
    let mut out = Vec::with_capacity(token.len());
    for ch in token.chars() {
        match inverse.get(&ch) {
            Some(&b) => out.push(b),
            None => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_alphabet_is_a_bijection() {
        let table = byte_to_char();
        let mut seen = std::collections::HashSet::new();
        for (b, &c) in table.iter().enumerate() {
            assert!(seen.insert(c), "duplicate char for byte {b}");
            assert_eq!(byte_level_decode(&c.to_string()), vec![b as u8]);
        }
        assert_eq!(table[b' ' as usize], 'Ġ');
        assert_eq!(table[b'\n' as usize], 'Ċ');
    }

    #[test]
    fn only_a_pad_named_after_its_own_id_is_padding() {
        assert!(is_padding("[PAD151646]", 151646));
        assert!(!is_padding("[PAD151646]", 151647));
        assert!(!is_padding("[PAD]", 7));
        assert!(!is_padding("<|EOT|>", 32021));
    }
}
