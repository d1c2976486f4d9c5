//! [`LlamaModel`]: the model with its KV cache, as the decode loop drives it (a
//! [`LanguageModel`]), remembering the tokens its cache holds so that the next
//! generation keeps the prompt prefix it shares with the last one.

use espalier_constraint::TokenSet;
use espalier_decode::{DrawMass, LanguageModel, Logits, LogitsError, Shortlist};

use crate::device_shortlist::{device_mass, shortlist_of};
use espalier_model::{
    DeviceLogits, KvCache, ListQuery, Llama, ModelError, ReplayState, TopList, WeightFormat,
};

/// The model with its KV cache.
pub struct LlamaModel {
    llama: Llama,
    cache: KvCache,
    /// The tokens `cache` holds, so that the next generation can keep the prompt
    /// prefix it shares with the last one (the sLua prompts share thousands).
    pub cached: Vec<u32>,
}

impl LlamaModel {
    /// The model with an empty cache.
    pub fn new(llama: Llama) -> Self {
        let cache = llama.new_cache();
        Self { llama, cache, cached: Vec::new() }
    }

    /// Runs `tokens` after the cached positions and leaves the last one's logits on the
    /// device, the pass recorded, not waited for (what
    /// [`crate::prefetched_logits::step_on_device`] takes; it goes to the device with
    /// [`DeviceLogits::submit`] or the first read).
    pub fn forward_device(&mut self, tokens: &[u32]) -> Result<DeviceLogits, ModelError> {
        self.llama.forward_logits(tokens, &mut self.cache)
    }

    /// How the model's linear layers hold their weights.
    pub fn weight_format(&self) -> WeightFormat {
        self.llama.weight_format()
    }

    /// Entries of a step's logits (the model's vocabulary rows).
    pub fn vocab_size(&self) -> usize {
        self.llama.config().vocab_size
    }

    /// Whether the cache's decode steps replay a recorded step (on a GPU).
    pub fn replay_state(&self) -> ReplayState {
        self.cache.replay_state()
    }
}

impl LanguageModel for LlamaModel {
    type Error = ModelError;

    fn truncate(&mut self, len: usize) {
        self.cache.truncate(len);
    }

    fn forward(&mut self, tokens: &[u32]) -> Result<Vec<f32>, ModelError> {
        self.llama.forward(tokens, &mut self.cache)
    }

    fn forward_logits(&mut self, tokens: &[u32]) -> Result<Box<dyn Logits + '_>, ModelError> {
        Ok(Box::new(ModelLogits(self.llama.forward_logits(tokens, &mut self.cache)?)))
    }
}

/// The model's logits as the loop asks for them: on a GPU the greedy draw runs on the
/// device ([`DeviceLogits::argmax`]) and reads back one id, the trace's candidates a
/// short list ([`DeviceLogits::tops`]).
struct ModelLogits(DeviceLogits);

impl Logits for ModelLogits {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn argmax(
        &mut self,
        n: usize,
        allowed: Option<&TokenSet>,
        refused: &[u32],
    ) -> Result<Option<u32>, LogitsError> {
        self.0.argmax(n, allowed.map(TokenSet::words), refused).map_err(failed)
    }

    fn host(&mut self) -> Result<&[f32], LogitsError> {
        self.0.host().map_err(failed)
    }

    fn shortlist(
        &mut self,
        n: usize,
        allowed: Option<&TokenSet>,
        refused: &[u32],
        mass: Option<DrawMass>,
    ) -> Result<Option<Shortlist>, LogitsError> {
        if !self.0.on_gpu() {
            return Ok(None); // on the CPU the sampler reads the vector it already has
        }
        let query = ListQuery::new(allowed.map(TokenSet::words), TopList::MAX_K);
        let query = mass.map_or(query, |m| query.with_mass(device_mass(m)));
        let mut lists = self.0.tops(n, &[query]).map_err(failed)?;
        Ok(lists.pop().map(|list| shortlist_of(&list, refused, mass, n)))
    }

    fn submit(&mut self) -> Result<(), LogitsError> {
        self.0.submit().map_err(failed)
    }

    fn wait(&mut self) -> Result<(), LogitsError> {
        self.0.wait().map_err(failed)
    }

    fn top(&mut self, n: usize, k: usize) -> Result<Vec<(u32, f32)>, LogitsError> {
        if k == 0 || k > TopList::MAX_K {
            let host = self.host()?;
            return Ok(espalier_decode::sampler::top_candidates(&host[..n.min(host.len())], k));
        }
        let mut lists = self.0.tops(n, &[ListQuery::new(None, k)]).map_err(failed)?;
        Ok(lists.pop().map(|l| l.probabilities()).unwrap_or_default())
    }
}

fn failed(e: ModelError) -> LogitsError {
    LogitsError::Failed(e.to_string())
}
