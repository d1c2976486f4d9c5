//! Hands control back to the event loop between generation steps: in the worker this
//! lets a Stop message in between two steps (or prompt chunks); on the page it lets the
//! browser paint. A macrotask (`setTimeout(0)`): a resolved promise would do neither.

use wasm_bindgen_futures::JsFuture;

use crate::host;

/// Resolves on the next turn of the event loop.
pub async fn yield_now() {
    let _ = JsFuture::from(host::next_turn()).await;
}

/// Resolves after the page had a chance to paint (in the worker: on the next turn).
/// Used between loading phases, whose messages should show before the next phase.
pub async fn yield_to_paint() {
    let _ = JsFuture::from(host::after_paint()).await;
}

/// Milliseconds since this thread started, from `performance.now()` (monotonic,
/// sub-ms; the page and the worker have different origins, so only differences are
/// exchanged).
pub fn now_ms() -> f64 {
    host::now_ms()
}

/// Writes one line to the browser console, prefixed `espalier:` (phase timings for
/// developers; the browser test collects them, from the worker too).
pub fn console_log(line: &str) {
    web_sys::console::log_1(&format!("espalier: {line}").into());
}
