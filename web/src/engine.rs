//! What the page loads once: the GGUF file, the tokenizer and vocabulary it carries,
//! the model placed on the chosen device, and each registered language's kit (a
//! grammar language's compiled grammar and vocabulary trie).
//!
//! Loading runs as a sequence of phases with a yield to the event loop (and a chance
//! to paint) between them, so the page shows each phase and never blocks for all of
//! them at once. The constraints' kits are built here rather than on the first
//! Generate, so pressing Generate starts generating at once.

use std::sync::Arc;

use espalier_constraint::Vocab;
use espalier_decode::{Kits, Lang, Mode};
use espalier_model::{Gguf, LlamaConfig, MemoryPlan, Tokenizer, WeightFormat};
use wasm_bindgen::JsCast;

use crate::{
    backend::{Backend, BackendKind},
    backend_race,
    model_facts::{format_counts, memory_verdict, ModelFacts, WASM32_MEMORY_LIMIT},
    yield_now::{console_log, now_ms, yield_to_paint},
};

/// The loaded model and everything derived from the GGUF file.
pub struct Engine {
    /// Encodes prompts, decodes tokens.
    pub tokenizer: Tokenizer,
    /// Every token's raw bytes, for the constraints and the decode loop.
    pub vocab: Arc<Vocab>,
    /// Where the model runs.
    pub backend: Backend,
    /// The model itself.
    model: crate::model_bridge::Model,
    /// The languages' kits (built while loading; one that failed is built again on
    /// first use, so the error reaches the user at Generate).
    pub kits: Kits,
    /// What the page says about the model.
    pub facts: ModelFacts,
}

/// Why loading failed, with the step that failed so the user knows what to fix.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    /// Which step failed (reading the GGUF, building the tokenizer, placing weights).
    pub step: &'static str,
    /// The underlying message.
    pub message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.step, self.message)
    }
}

impl std::error::Error for LoadError {}

/// A GGUF file read and checked, not loaded yet: its facts say what it is, and it
/// passed the checks that need no more than its header (a GGUF file, a supported
/// architecture and configuration, a fit in the memory left).
pub struct Opened {
    gguf: Gguf,
    facts: ModelFacts,
}

impl Opened {
    /// Parses the GGUF bytes (of the file `file_name`) and checks the model could be
    /// loaded on `backend`'s device in the memory the worker can still take.
    pub fn new(bytes: Vec<u8>, file_name: &str, backend: &Backend) -> Result<Opened, LoadError> {
        let gguf = Gguf::from_bytes(bytes)
            .map_err(|e| LoadError { step: "reading the GGUF file", message: e.to_string() })?;
        let facts = facts(&gguf, file_name, backend)?;
        if let Err(why) = &facts.memory {
            return Err(LoadError { step: "checking the memory", message: why.clone() });
        }
        Ok(Opened { gguf, facts })
    }
}

impl Engine {
    /// Builds the engine from a checked file on `backend`'s device. Before each phase
    /// it reports what comes next through `progress` and yields so the page can paint.
    pub async fn load(
        opened: Opened,
        backend: Backend,
        progress: impl Fn(&str),
    ) -> Result<Engine, LoadError> {
        let Opened { gguf, facts } = opened;
        // Each phase is announced, painted, then run; its time goes to the console.
        let last = std::cell::Cell::new((now_ms(), String::new()));
        let phase = |what: &str| {
            let (t, done) = last.replace((now_ms(), what.to_owned()));
            if !done.is_empty() {
                console_log(&format!("loading: {done}: {:.0} ms", now_ms() - t));
            }
            progress(what);
            yield_to_paint()
        };
        phase("building the tokenizer").await;
        let tokenizer = Tokenizer::from_gguf(&gguf)
            .map_err(|e| LoadError { step: "building the tokenizer", message: e.to_string() })?;
        let vocab = Arc::new(espalier_engine::vocab_of(&tokenizer));
        phase(&format!("placing the weights: {}", backend.detail)).await;
        let model = crate::model_bridge::Model::load(&gguf, &backend.device)
            .await
            .map_err(|message| LoadError { step: "placing the weights on the device", message })?;
        let (model, backend, facts) =
            match backend.kind == BackendKind::WebGpu && !backend_race::forced_webgpu() {
                true => {
                    phase("timing WebGPU against the CPU (a few tokens each)").await;
                    race(&gguf, &tokenizer, model, backend, facts).await
                }
                false => (model, backend, facts),
            };
        drop(gguf);
        // Each language's kit: for a grammar language the LR(1) tables (cached by the
        // grammar crate) and the vocabulary trie. A failure here is not fatal: the other
        // languages still work, and this one reports the error when it is picked.
        let mut kits = Kits::new(vocab.clone());
        for lang in Lang::all() {
            phase(&format!("preparing the {} constraint", lang.label())).await;
            // Built and warmed up (one throwaway mask: the trie's summaries, and V8
            // compiling the mask code), so the first step does not pay for either.
            match kits.get(lang, Mode::Mask) {
                Ok(kit) => kit.warm_up(&vocab),
                Err(e) => {
                    console_log(&format!("loading: the {} constraint failed: {e}", lang.name()))
                }
            }
        }
        phase("ready").await;
        Ok(Engine { tokenizer, vocab, backend, model, kits, facts })
    }

    /// Rolls the model's KV cache back to `keep` positions, runs `tokens`, and returns
    /// the logits of the last one.
    pub async fn forward(&mut self, keep: usize, tokens: &[u32]) -> Result<Vec<f32>, String> {
        self.model.forward(keep, tokens).await
    }

    /// [`Engine::forward`] with the logits left on the device, the pass submitted
    /// ([`crate::model_bridge::Model::forward_device`]).
    pub fn forward_device(
        &mut self,
        keep: usize,
        tokens: &[u32],
    ) -> Result<espalier_model::DeviceLogits, String> {
        self.model.forward_device(keep, tokens)
    }

    /// [`Engine::forward`] then the greedy next id, chosen on the device (on WebGPU only
    /// the id is read back: [`crate::model_bridge::Model::greedy`]).
    pub async fn greedy(&mut self, keep: usize, tokens: &[u32]) -> Result<Option<u32>, String> {
        self.model.greedy(keep, tokens).await
    }

    /// A one-line description of the model for the page.
    pub fn describe(&self) -> String {
        self.model.describe()
    }
}

/// Runs [`backend_race::race`] on a short piece of code and keeps the faster side,
/// with the facts (the memory verdict) of the backend kept.
async fn race(
    gguf: &Gguf,
    tokenizer: &Tokenizer,
    model: crate::model_bridge::Model,
    backend: Backend,
    facts: ModelFacts,
) -> (crate::model_bridge::Model, Backend, ModelFacts) {
    #[allow(deprecated)] // ndarray is what the model crate's CPU feature builds on
    let cpu = Backend {
        device: burn::tensor::Device::ndarray(),
        kind: BackendKind::Cpu,
        detail: String::new(),
    };
    let cpu_facts = self::facts(gguf, &facts.name, &cpu);
    let fits = match &cpu_facts {
        Ok(f) => f.memory.clone().map(|_| ()),
        Err(e) => Err(e.to_string()),
    };
    let ids = tokenizer.encode("def add(a, b):\n    return a + b\n").unwrap_or_default();
    let (model, backend) = backend_race::race(gguf, model, backend, &ids, fits).await;
    match (backend.kind, cpu_facts) {
        (BackendKind::Cpu, Ok(cpu_facts)) => (model, backend, cpu_facts),
        _ => (model, backend, facts),
    }
}

/// The model's facts (name, architecture, formats, size) and the memory check: the
/// load's [`MemoryPlan`] (weights in the format the device takes, RoPE tables, a
/// 2,048-token KV cache; the file is already in memory) against what the worker's
/// WebAssembly memory can still grow by.
fn facts(gguf: &Gguf, file_name: &str, backend: &Backend) -> Result<ModelFacts, LoadError> {
    let config = LlamaConfig::from_gguf(gguf).map_err(|e| LoadError {
        step: "reading the model's configuration",
        message: e.to_string(),
    })?;
    let plan = MemoryPlan::new(
        gguf,
        &config,
        WeightFormat::default_for(&backend.device),
        gguf.len() as u64,
    );
    let needed = plan
        .load_bytes()
        .saturating_sub(plan.file)
        .saturating_add(plan.kv_bytes_per_token.saturating_mul(2048));
    let str_or = |key: &str, default: &str| {
        gguf.get_str(key).map(str::to_owned).unwrap_or_else(|_| default.to_owned())
    };
    Ok(ModelFacts {
        name: str_or("general.name", file_name),
        architecture: str_or("general.architecture", "?"),
        formats: format_counts(gguf.tensors().iter().map(|t| t.ggml_type.name())),
        parameters: gguf.tensors().iter().map(|t| t.elements()).sum(),
        file_bytes: gguf.len() as u64,
        shape: format!(
            "{} blocks, hidden {}, vocabulary {}",
            config.layers, config.hidden, config.vocab_size
        ),
        memory: memory_verdict(needed, memory_left()),
    })
}

/// How much the worker's WebAssembly memory can still grow (what it has taken so far
/// stays taken: a wasm memory never shrinks, though the allocator reuses freed parts).
pub fn memory_left() -> u64 {
    let used = wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .ok()
        .and_then(|m| m.buffer().dyn_into::<js_sys::ArrayBuffer>().ok())
        .map_or(0, |b| b.byte_length() as u64);
    WASM32_MEMORY_LIMIT.saturating_sub(used)
}
