//! The page's URL parameters as the worker sees them: `host.js` hands the page's
//! `location.search` to the worker as `self.ESPALIER_SEARCH` (a worker's own location
//! is its script's). Used for opt-in checks the browser test asks for.

/// The value of parameter `name` (`?name=value&...`), `None` when absent.
pub fn get(name: &str) -> Option<String> {
    let search =
        js_sys::Reflect::get(&js_sys::global(), &"ESPALIER_SEARCH".into()).ok()?.as_string()?;
    search
        .trim_start_matches('?')
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_owned())
}
