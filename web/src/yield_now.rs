//! Hands control back to the browser's event loop between generation steps, so the
//! page repaints and stays responsive while the model runs (a macrotask through
//! `setTimeout(0)`; a resolved promise would not let the page paint).

use wasm_bindgen_futures::JsFuture;

/// Resolves on the next turn of the event loop, after the browser had a chance to
/// render and handle input.
pub async fn yield_now() {
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        if let Some(window) = web_sys::window() {
            // A failed setTimeout only means we resume at once.
            if window
                .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0)
                .is_err()
            {
                let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
            }
        } else {
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// Milliseconds since page load, from `performance.now()` (monotonic, sub-ms).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}
