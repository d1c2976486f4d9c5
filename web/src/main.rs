//! espalier-web: the Espalier playground, a Yew single-page app (built by `trunk`) that
//! runs the real model and the real constraints in the browser, one step at a time.
//!
//! The same WebAssembly module runs twice: on the page (the Yew app, which only renders
//! and forwards clicks) and in a Web Worker the page starts (`worker.rs`), which owns
//! the model and the generation. The worker reads the GGUF model from the browser's
//! cache (or downloads it, checks its SHA-256 and caches it) with a progress bar,
//! picks a backend (burn's wgpu on WebGPU when the browser offers an adapter, burn's
//! ndarray on the CPU otherwise), and drives an [`espalier_decode::Generator`] step
//! by step; they talk in [`protocol`] messages. Every step's trace
//! (token chips by origin, candidates with the masked ones struck out, the
//! constraint's parser tree / stack / regex, timings) is drawn as it arrives, and
//! Back / Forward move through the trace.
//!
//! Main types (browser build): `app::App` (the page), `engine_link::EngineLink` (the
//! page's end of the worker), `engine::Engine` (model + tokenizer + vocabulary, loaded
//! once, in the worker), `session::Session` (one generation in progress),
//! `backend::Backend` (which device runs the model). The pure parts —
//! [`lang::task`] (a request framed for the playground; the languages, their menu,
//! prompts and constraints come from `espalier_decode`'s registry),
//! [`settings::Settings`] (controls to decode config),
//! [`examples`], [`visible`], [`protocol`], [`model_file`], [`page_params`] — also build natively, where their tests run
//! (`scripts/test.sh` runs them).
//!
//! Run it with `trunk serve` (or `bash scripts/serve.sh`, which installs the tools
//! first); `scripts/browser-test.sh` drives it in headless Chromium:
//!
//! ```sh
//! bash scripts/serve.sh            # then open http://127.0.0.1:8080
//! bash scripts/browser-test.sh     # WebGPU (SwiftShader) and CPU runs
//! ```

// Natively only the tests use the pure modules.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

mod backend_race;
mod examples;
mod game;
mod lang;
mod model_facts;
mod model_file;
mod page_params;
mod protocol;
mod settings;
mod visible;

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod backend;
#[cfg(target_arch = "wasm32")]
mod bench;
#[cfg(target_arch = "wasm32")]
mod constructors;
#[cfg(target_arch = "wasm32")]
mod engine;
#[cfg(target_arch = "wasm32")]
mod engine_link;
#[cfg(target_arch = "wasm32")]
mod fetch;
#[cfg(target_arch = "wasm32")]
mod gpu_agreement;
#[cfg(target_arch = "wasm32")]
mod host;
#[cfg(target_arch = "wasm32")]
mod model_bridge;
#[cfg(target_arch = "wasm32")]
mod model_cache;
#[cfg(target_arch = "wasm32")]
mod session;
#[cfg(target_arch = "wasm32")]
mod view;
#[cfg(target_arch = "wasm32")]
mod worker;
#[cfg(target_arch = "wasm32")]
mod yield_now;

/// On the page: the app; in the worker the page started: the engine.
#[cfg(target_arch = "wasm32")]
fn main() {
    // Once per instance, before anything else (and so no export re-runs them: see the module).
    constructors::run_once();
    console_error_panic_hook::set_once();
    if host::in_worker() {
        worker::start();
    } else {
        yew::Renderer::<app::App>::new().render();
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "espalier-web is the browser playground: run `trunk serve` (or bash scripts/serve.sh) \
         and open http://127.0.0.1:8080"
    );
    std::process::exit(2);
}
