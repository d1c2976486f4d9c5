//! Test fixtures for the generation loop: two small but complete constraints (a set
//! of target strings, and the same with segment boundaries that ask for token
//! healing) and a deterministic language model whose logits depend on every token in
//! its KV cache, so a cache that was rolled back wrongly changes the output.

#![allow(dead_code)]

use espalier_constraint::{Commit, Constraint, Inspection, Rejected, TokenSet, Vocab};
use espalier_decode::{GenerateConfig, LanguageModel, Mode, SamplingConfig};

pub mod real_data;

/// The text must become one of `targets`; with `boundaries`, a token that runs past
/// a boundary offset (and does not end exactly on one) is healed back to it. With
/// `finishing`, its finishing mask keeps the tokens that stay inside the shortest
/// target the text can still become (and EOS once it is complete); without, it has
/// none (the trait's default answer).
#[derive(Clone, Debug)]
pub struct Targets {
    pub targets: Vec<Vec<u8>>,
    pub boundaries: Vec<usize>,
    pub fed: Vec<u8>,
    pub finishing: bool,
}

impl Targets {
    pub fn new(targets: &[&str]) -> Self {
        Self {
            targets: targets.iter().map(|t| t.as_bytes().to_vec()).collect(),
            boundaries: vec![],
            fed: vec![],
            finishing: false,
        }
    }

    /// The same with a finishing mask.
    pub fn with_finishing(mut self) -> Self {
        self.finishing = true;
        self
    }

    pub fn with_boundaries(mut self, b: &[usize]) -> Self {
        self.boundaries = b.to_vec();
        self
    }

    fn valid(&self, extra: &[u8]) -> usize {
        let mut text = self.fed.clone();
        let mut best = 0;
        for (i, &b) in extra.iter().enumerate() {
            text.push(b);
            if self.targets.iter().any(|t| t.starts_with(&text)) {
                best = i + 1;
            } else {
                break;
            }
        }
        best
    }
}

impl Constraint for Targets {
    fn is_complete(&self) -> bool {
        self.targets.contains(&self.fed)
    }
    fn allows(&self, bytes: &[u8]) -> bool {
        self.valid(bytes) == bytes.len()
    }
    fn fill_mask(&mut self, vocab: &Vocab, mask: &mut TokenSet) {
        tokens_where(vocab, mask, |b| self.allows(b), self.is_complete());
    }
    fn commit(&mut self, bytes: &[u8]) -> Result<Commit, Rejected> {
        let ok = self.valid(bytes);
        if ok < bytes.len() {
            return Err(Rejected { offset: ok, expected: "a target".into() });
        }
        let start = self.fed.len();
        let end = start + bytes.len();
        if let Some(&b) = self.boundaries.iter().find(|&&b| b > start && b < end) {
            self.fed.extend_from_slice(&bytes[..b - start]);
            return Ok(Commit::Heal { accepted: b - start });
        }
        self.fed.extend_from_slice(bytes);
        Ok(Commit::Accepted)
    }
    fn fill_finishing_mask(&mut self, vocab: &Vocab, mask: &mut TokenSet) -> bool {
        if !self.finishing {
            return false;
        }
        mask.clear();
        let Some(shortest) =
            self.targets.iter().filter(|t| t.starts_with(&self.fed)).min_by_key(|t| t.len())
        else {
            return true;
        };
        let rest = &shortest[self.fed.len()..];
        tokens_where(vocab, mask, |b| rest.starts_with(b), rest.is_empty());
        true
    }
    fn inspect(&self) -> Inspection {
        Inspection {
            kind: "targets".into(),
            remainder: Some(String::from_utf8_lossy(&self.fed).into_owned()),
            ..Inspection::default()
        }
    }
}

/// Sets `mask` to the non-empty, non-special tokens whose bytes `keep` takes, and EOS
/// when `eos`.
fn tokens_where(vocab: &Vocab, mask: &mut TokenSet, keep: impl Fn(&[u8]) -> bool, eos: bool) {
    mask.clear();
    for id in 0..vocab.len() as u32 {
        let b = vocab.bytes(id);
        if !vocab.is_special(id) && !b.is_empty() && keep(b) {
            mask.insert(id as usize);
        }
    }
    if eos {
        mask.insert(vocab.eos() as usize);
    }
}

/// Mode `mask` at temperature 1 (`seed`'s draws) without the repetition guard: free
/// for `wander` tokens, then the wrap-up within `window` tokens.
pub fn wander_then_wrap_up(seed: u64, wander: usize, window: usize) -> GenerateConfig {
    GenerateConfig {
        mode: Mode::Mask,
        sampling: SamplingConfig { temperature: 1.0, top_k: 0, top_p: 1.0, seed },
        max_tokens: wander + window,
        wrap_up: Some(window),
        repetition: None,
        ..GenerateConfig::default()
    }
}

/// A vocabulary from strings; id 0 is `<eos>` (special).
pub fn vocab(tokens: &[&str]) -> Vocab {
    let mut all = vec![b"<eos>".to_vec()];
    all.extend(tokens.iter().map(|t| t.as_bytes().to_vec()));
    Vocab::new(all, &[0], 0)
}

/// The id of `text` in a [`vocab`].
pub fn id(vocab: &Vocab, text: &str) -> u32 {
    (0..vocab.len() as u32).find(|&i| vocab.bytes(i) == text.as_bytes()).expect("token in vocab")
}

/// Logits that depend on the whole cached context (a hash of it) plus a fixed
/// preference for some ids; records every call so tests can check the cache.
pub struct HashModel {
    pub vocab_len: usize,
    pub cache: Vec<u32>,
    pub prefer: Vec<(u32, f32)>,
    pub calls: Vec<(usize, Vec<u32>)>,
}

impl HashModel {
    pub fn new(vocab_len: usize) -> Self {
        Self { vocab_len, cache: vec![], prefer: vec![], calls: vec![] }
    }
}

#[derive(Debug)]
pub struct NeverFails;
impl std::fmt::Display for NeverFails {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("never")
    }
}
impl std::error::Error for NeverFails {}

impl LanguageModel for HashModel {
    type Error = NeverFails;
    fn truncate(&mut self, len: usize) {
        self.cache.truncate(len);
    }
    fn forward(&mut self, tokens: &[u32]) -> Result<Vec<f32>, NeverFails> {
        self.calls.push((self.cache.len(), tokens.to_vec()));
        self.cache.extend_from_slice(tokens);
        let mut h: u64 = 0xcbf29ce484222325;
        for &t in &self.cache {
            h = (h ^ t as u64).wrapping_mul(0x100000001b3);
        }
        let mut logits: Vec<f32> = (0..self.vocab_len as u64)
            .map(|i| {
                let x = (h ^ i.wrapping_mul(0x9e3779b97f4a7c15)).wrapping_mul(0xbf58476d1ce4e5b9);
                ((x >> 40) as f32 / (1u64 << 24) as f32) * 4.0
            })
            .collect();
        for &(id, bonus) in &self.prefer {
            logits[id as usize] += bonus;
        }
        Ok(logits)
    }
}
