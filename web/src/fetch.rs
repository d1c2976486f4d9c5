//! Downloads a file (the 98 MB GGUF model) with progress reports, so the page can show
//! a progress bar instead of a frozen spinner. Uses the Fetch API's streaming body.

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{ReadableStreamDefaultReader, Response};

/// Why a download failed, with the URL so the user knows which file to fetch.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchError {
    /// The URL that was requested.
    pub url: String,
    /// What went wrong (HTTP status, network error).
    pub reason: String,
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "could not download {}: {} (run scripts/fetch-model.sh, then trunk serve)",
            self.url, self.reason
        )
    }
}

impl std::error::Error for FetchError {}

fn js_reason(value: JsValue) -> String {
    value.as_string().unwrap_or_else(|| format!("{value:?}"))
}

/// Fetches `url` and returns its bytes, calling `progress(received, total)` after each
/// chunk (`total` is `None` when the server sends no Content-Length).
pub async fn fetch_bytes(
    url: &str,
    progress: impl FnMut(u64, Option<u64>),
) -> Result<Vec<u8>, FetchError> {
    let err = |reason: String| FetchError { url: url.to_owned(), reason };
    let response: Response = JsFuture::from(crate::host::fetch_url(url))
        .await
        .map_err(|e| err(js_reason(e)))?
        .dyn_into()
        .map_err(|_| err("fetch did not return a Response".into()))?;
    if !response.ok() {
        return Err(err(format!("HTTP {} {}", response.status(), response.status_text())));
    }
    read_body(url, response, progress).await
}

/// Reads a response's body (from the network or the browser's cache) with progress
/// reports.
pub async fn read_body(
    url: &str,
    response: Response,
    mut progress: impl FnMut(u64, Option<u64>),
) -> Result<Vec<u8>, FetchError> {
    let err = |reason: String| FetchError { url: url.to_owned(), reason };
    let total =
        response.headers().get("content-length").ok().flatten().and_then(|v| v.parse::<u64>().ok());
    let body = response.body().ok_or_else(|| err("the response has no body".into()))?;
    let reader: ReadableStreamDefaultReader = body
        .get_reader()
        .dyn_into()
        .map_err(|_| err("the body stream has no default reader".into()))?;
    let mut bytes = Vec::with_capacity(total.unwrap_or(0) as usize);
    progress(0, total);
    loop {
        let chunk = JsFuture::from(reader.read()).await.map_err(|e| err(js_reason(e)))?;
        let done = Reflect::get(&chunk, &"done".into())
            .map_err(|e| err(js_reason(e)))?
            .as_bool()
            .unwrap_or(true);
        if done {
            break;
        }
        let value = Reflect::get(&chunk, &"value".into()).map_err(|e| err(js_reason(e)))?;
        let array: Uint8Array =
            value.dyn_into().map_err(|_| err("a body chunk was not bytes".into()))?;
        let start = bytes.len();
        bytes.resize(start + array.length() as usize, 0);
        array.copy_to(&mut bytes[start..]);
        progress(bytes.len() as u64, total);
    }
    Ok(bytes)
}
