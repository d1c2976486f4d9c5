//! The model in the browser's Cache Storage: the first visit downloads it (with
//! progress), checks its SHA-256 and stores it; later visits read it from the cache,
//! check it again and never touch the network. A cached copy with the wrong hash is
//! dropped and downloaded again; a download with the wrong hash is an error.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::Response;

use crate::{
    fetch::{fetch_bytes, read_body},
    host,
    model_file::{hash_mismatch, MODEL_SHA256},
    yield_now::console_log,
};

/// Where the bytes came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The browser's Cache Storage.
    Cache,
    /// The network (and now stored in the cache when it could be).
    Network,
}

impl Source {
    /// How the page names it.
    pub fn name(self) -> &'static str {
        match self {
            Source::Cache => "the browser's cache",
            Source::Network => "the network",
        }
    }
}

fn js_text(value: JsValue) -> String {
    value.as_string().unwrap_or_else(|| format!("{value:?}"))
}

async fn sha256(bytes: &[u8]) -> Result<String, String> {
    let hex = JsFuture::from(host::sha256_hex(bytes))
        .await
        .map_err(|e| format!("SHA-256 failed: {}", js_text(e)))?;
    hex.as_string().ok_or_else(|| "SHA-256 returned no text".to_owned())
}

/// The cached model's bytes when the cache holds a copy with the right hash.
async fn from_cache(
    url: &str,
    progress: &mut impl FnMut(u64, Option<u64>, Source),
) -> Option<Vec<u8>> {
    let found = JsFuture::from(host::cache_match(url))
        .await
        .map_err(|e| console_log(&format!("cache: {}", js_text(e))))
        .ok()?;
    let response: Response = found.dyn_into().ok()?;
    let bytes = read_body(url, response, |got, total| progress(got, total, Source::Cache))
        .await
        .map_err(|e| console_log(&format!("cache: {e}")))
        .ok()?;
    match sha256(&bytes).await.map(|h| hash_mismatch(&h)) {
        Ok(None) => Some(bytes),
        Ok(Some(why)) | Err(why) => {
            console_log(&format!("cache: the cached model is dropped: {why}"));
            let _ = JsFuture::from(host::cache_delete(url)).await;
            None
        }
    }
}

/// The model's bytes, from the cache when it holds a good copy, else from the network
/// (then stored in the cache). `progress(received, total, source)` follows the bytes.
pub async fn load_model(
    url: &str,
    mut progress: impl FnMut(u64, Option<u64>, Source),
) -> Result<(Vec<u8>, Source), String> {
    if let Some(bytes) = from_cache(url, &mut progress).await {
        console_log(&format!(
            "model: {} bytes from the browser's cache, SHA-256 {MODEL_SHA256}",
            bytes.len()
        ));
        return Ok((bytes, Source::Cache));
    }
    let bytes = fetch_bytes(url, |got, total| progress(got, total, Source::Network))
        .await
        .map_err(|e| e.to_string())?;
    if let Some(why) = hash_mismatch(&sha256(&bytes).await?) {
        return Err(format!("the downloaded model {url} is not the expected file: {why}"));
    }
    match JsFuture::from(host::cache_put(url, &bytes)).await.map(js_text).map_err(js_text) {
        Ok(why) if why.is_empty() => console_log("model: stored in the browser's cache"),
        Ok(why) | Err(why) => console_log(&format!("model: not cached ({why})")),
    }
    Ok((bytes, Source::Network))
}
