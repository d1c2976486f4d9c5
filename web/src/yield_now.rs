//! Hands control back to the browser's event loop between generation steps, so the
//! page repaints and stays responsive while the model runs (a macrotask through
//! `setTimeout(0)`; a resolved promise would not let the page paint).

use wasm_bindgen::JsCast;
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

/// Resolves after the browser had a chance to paint: on the task after the next
/// animation frame, or after 100 ms when no frame comes (a hidden tab runs no
/// animation frames, and loading must not stall there). Used between loading phases,
/// whose messages should show before the next phase blocks.
pub async fn yield_to_paint() {
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        let Some(window) = web_sys::window() else {
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
            return;
        };
        // The fallback timer and the frame race; resolving twice is harmless.
        let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 100);
        let after_frame = wasm_bindgen::closure::Closure::once_into_js(move || {
            if let Some(window) = web_sys::window() {
                if window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0).is_err() {
                    let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
                }
            }
        });
        let _ = window.request_animation_frame(after_frame.unchecked_ref());
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

/// Writes one line to the browser console, prefixed `espalier:` (phase timings for
/// developers; the browser test collects them).
pub fn console_log(line: &str) {
    web_sys::console::log_1(&format!("espalier: {line}").into());
}
