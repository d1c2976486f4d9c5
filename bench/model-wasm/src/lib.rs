//! The wasm benchmark harness of espalier-model: the CPU path the playground runs
//! (burn-ndarray, q4_1 weights on this crate's kernels, host attention) exported to
//! JavaScript so node can time prefill and decode steps (wasm32 has no clock of its
//! own), and the kernels' self-check ([`espalier_model::kernel_check`]), which
//! `cargo test` cannot run in wasm.
//!
//! Build and run (from the repository root; `.cargo/config.toml` adds `+simd128`):
//! ```text
//! cargo build --release --target wasm32-unknown-unknown \
//!     --manifest-path bench/model-wasm/Cargo.toml
//! wasm-bindgen --target nodejs --out-dir DIR .../espalier_model_wasm_bench.wasm
//! node bench/model-wasm/run.mjs DIR [--check] [--rounds N] [--decode N]
//! ```
//! `scripts/bench-wasm-model.sh` does all three.

use std::cell::RefCell;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use espalier_model::{kernel_check, BackendKind, Gguf, KvCache, Llama, Tokenizer};
use wasm_bindgen::prelude::*;

/// Source text the prompt is cut from (the native bench example's text).
const TEXT: &str = "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n\n\nclass Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, item):\n        self.items.append(item)\n\n    def pop(self):\n        return self.items.pop()\n";

struct Loaded {
    model: Llama,
    tokenizer: Tokenizer,
    cache: KvCache,
}

thread_local! {
    static LOADED: RefCell<Option<Loaded>> = const { RefCell::new(None) };
}

/// Runs a future that must be ready at once (the CPU backend never waits).
fn ready<F: Future>(f: F) -> Result<F::Output, JsError> {
    match pin!(f).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => Ok(v),
        Poll::Pending => Err(JsError::new("the CPU backend returned a pending future")),
    }
}

fn with<T>(f: impl FnOnce(&mut Loaded) -> Result<T, JsError>) -> Result<T, JsError> {
    LOADED.with(|l| match l.borrow_mut().as_mut() {
        Some(loaded) => f(loaded),
        None => Err(JsError::new("call load() first")),
    })
}

fn argmax(logits: &[f32]) -> u32 {
    (0..logits.len()).max_by(|&a, &b| logits[a].total_cmp(&logits[b])).unwrap_or(0) as u32
}

/// The kernels' self-check as JSON: `isa`, `cases`, `max_error`, `failures`.
#[wasm_bindgen]
pub fn check() -> String {
    let c = kernel_check::run();
    let failures: Vec<String> = c.failures.iter().map(|f| format!("{f:?}")).collect();
    format!(
        "{{\"isa\":\"{}\",\"cases\":{},\"max_error\":{:e},\"failures\":[{}]}}",
        c.isa,
        c.cases,
        c.max_error,
        failures.join(",")
    )
}

/// Loads the GGUF (the file's bytes) on the CPU backend in its default format; returns
/// `format kernel_isa weight_bytes`.
#[wasm_bindgen]
pub fn load(bytes: Vec<u8>) -> Result<String, JsError> {
    let gguf = Gguf::from_bytes(bytes)?;
    let tokenizer = Tokenizer::from_gguf(&gguf)?;
    let device = ready(BackendKind::Ndarray.device_async())??;
    let model = Llama::load(&gguf, &device)?;
    let info = format!("{} {} {}", model.weight_format(), model.kernel_isa(), model.weight_bytes());
    let cache = model.new_cache();
    LOADED.with(|l| *l.borrow_mut() = Some(Loaded { model, tokenizer, cache }));
    Ok(info)
}

/// The first `n` tokens of the bench text (repeated as needed).
#[wasm_bindgen]
pub fn prompt(n: usize) -> Result<Vec<u32>, JsError> {
    with(|l| {
        let mut ids = Vec::new();
        while ids.len() < n {
            ids.extend(l.tokenizer.encode(TEXT)?);
        }
        ids.truncate(n);
        Ok(ids)
    })
}

/// Empties the cache and runs `ids` as one prefill; returns the greedy next token.
#[wasm_bindgen]
pub fn prefill(ids: Vec<u32>) -> Result<u32, JsError> {
    with(|l| {
        l.cache = l.model.new_cache();
        let logits = ready(l.model.forward_async(&ids, &mut l.cache))??;
        Ok(argmax(&logits))
    })
}

/// One decode step with `id`; returns the greedy next token.
#[wasm_bindgen]
pub fn step(id: u32) -> Result<u32, JsError> {
    with(|l| {
        let logits = ready(l.model.forward_async(&[id], &mut l.cache))??;
        Ok(argmax(&logits))
    })
}
