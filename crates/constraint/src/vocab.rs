//! The model's vocabulary as raw bytes: constraints reason about bytes, never about
//! token ids or the tokenizer's internal alphabet.

/// The raw byte string of every token id, with special (control) tokens marked.
#[derive(Clone, Debug)]
pub struct Vocab {
    tokens: Vec<Vec<u8>>,
    special: Vec<bool>,
    eos: u32,
}

impl Vocab {
    /// Builds a vocabulary from each id's bytes, the ids of special tokens (never
    /// allowed by a grammar) and the end-of-sequence id. Ids out of range are ignored.
    pub fn new(tokens: Vec<Vec<u8>>, special_ids: &[u32], eos: u32) -> Self {
        let mut special = vec![false; tokens.len()];
        for &id in special_ids {
            if let Some(flag) = special.get_mut(id as usize) {
                *flag = true;
            }
        }
        Self { tokens, special, eos }
    }

    /// Number of token ids.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether the vocabulary has no token.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The bytes of token `id` (empty for ids out of range).
    pub fn bytes(&self, id: u32) -> &[u8] {
        self.tokens.get(id as usize).map_or(&[], |t| t.as_slice())
    }

    /// Whether `id` is a special (control) token.
    pub fn is_special(&self, id: u32) -> bool {
        self.special.get(id as usize).copied().unwrap_or(false)
    }

    /// The end-of-sequence token id.
    pub fn eos(&self) -> u32 {
        self.eos
    }

    /// All token byte strings, indexed by id.
    pub fn tokens(&self) -> &[Vec<u8>] {
        &self.tokens
    }
}
