//! The browser calls both of the playground's threads make (`web/js/host.js`): they
//! work the same on the page and in its Web Worker, where `web_sys::window()` is
//! absent.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/host.js")]
extern "C" {
    /// Whether this code runs in the worker (no `window`).
    #[wasm_bindgen(js_name = inWorker)]
    pub fn in_worker() -> bool;
    /// Starts the engine's worker on `module` (this app's compiled WebAssembly), with
    /// `search` as the page's URL parameters it sees.
    #[wasm_bindgen(js_name = spawnWorker)]
    pub fn spawn_worker(
        module: &JsValue,
        on_message: &Function,
        on_error: &Function,
        search: &str,
    ) -> JsValue;
    /// Stops the worker at once.
    #[wasm_bindgen(js_name = terminateWorker)]
    pub fn terminate_worker(worker: &JsValue);
    /// The page's URL parameters (`location.search`).
    #[wasm_bindgen(js_name = pageSearch)]
    pub fn page_search() -> String;
    /// Sends a message to the worker.
    #[wasm_bindgen(js_name = postToWorker)]
    pub fn post_to_worker(worker: &JsValue, text: &str);
    /// Sends a message with a File beside it.
    #[wasm_bindgen(js_name = postFileToWorker)]
    pub fn post_file_to_worker(worker: &JsValue, text: &str, file: &JsValue);
    /// The first file a file input holds, or null.
    #[wasm_bindgen(js_name = pickedFile)]
    pub fn picked_file(input: &JsValue) -> JsValue;
    /// A File's name.
    #[wasm_bindgen(js_name = fileName)]
    pub fn file_name(file: &JsValue) -> String;
    /// A File's size in bytes.
    #[wasm_bindgen(js_name = fileSize)]
    pub fn file_size(file: &JsValue) -> f64;
    /// A promise of a File's bytes (a Uint8Array).
    #[wasm_bindgen(js_name = readFile)]
    pub fn read_file(file: &JsValue) -> Promise;
    /// In the worker: routes the page's messages to `on_message(text, file)`.
    #[wasm_bindgen(js_name = listenToPage)]
    pub fn listen_to_page(on_message: &Function);
    /// In the worker: sends a message to the page.
    #[wasm_bindgen(js_name = postToPage)]
    pub fn post_to_page(text: &str);
    /// A promise resolved on the next turn of the event loop.
    #[wasm_bindgen(js_name = nextTurn)]
    pub fn next_turn() -> Promise;
    /// A promise resolved once the page could paint.
    #[wasm_bindgen(js_name = afterPaint)]
    pub fn after_paint() -> Promise;
    /// Calls `callback` once at the next animation frame (or after 50 ms without frames).
    #[wasm_bindgen(js_name = onNextFrame)]
    pub fn on_next_frame(callback: &Function);
    /// `performance.now()`.
    #[wasm_bindgen(js_name = nowMs)]
    pub fn now_ms() -> f64;
    /// `fetch(url)`: a promise of a Response.
    #[wasm_bindgen(js_name = fetchUrl)]
    pub fn fetch_url(url: &str) -> Promise;
    /// `navigator.gpu`, or null.
    #[wasm_bindgen(js_name = navigatorGpu)]
    pub fn navigator_gpu() -> JsValue;
    /// A promise of the cached Response for `url`, or null.
    #[wasm_bindgen(js_name = cacheMatch)]
    pub fn cache_match(url: &str) -> Promise;
    /// A promise of "" once a copy of `bytes` is cached for `url`, or of why not.
    #[wasm_bindgen(js_name = cachePut)]
    pub fn cache_put(url: &str, bytes: &[u8]) -> Promise;
    /// A promise that the cached entry for `url` is gone.
    #[wasm_bindgen(js_name = cacheDelete)]
    pub fn cache_delete(url: &str) -> Promise;
    /// A promise of the SHA-256 of `bytes`, lowercase hex.
    #[wasm_bindgen(js_name = sha256Hex)]
    pub fn sha256_hex(bytes: &[u8]) -> Promise;
}
