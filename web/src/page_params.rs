//! The page's URL parameters as the worker sees them: `host.js` hands the worker the
//! page's `location.search` as `self.ESPALIER_SEARCH` (a worker's own location is its
//! script's). Used for opt-in checks the browser test asks for:
//!
//! - `backend=cpu`: the CPU backend even where WebGPU is offered (read by the page);
//!   `backend=webgpu`: WebGPU whatever its speed (no warm-up race, `backend_race`);
//! - `check=cpu`: on WebGPU, compare the logits with the CPU path's (`gpu_agreement`);
//! - `weights=<format>`: load another weight format (`model_bridge`);
//! - `test-panic=run`: the worker panics at the start of the next run, so
//!   web/tests/hostile.mjs can check the page reports a crashed worker and starts a
//!   new one. Only the first worker of a page sees it: the page hands a restarted
//!   worker its parameters without it ([`without`]), so the restart can be tested.

/// The parameter that makes the worker panic (see the module's notes).
pub const TEST_PANIC: &str = "test-panic";

/// The value of parameter `name` in `search` (`?name=value&...`), `None` when absent.
pub fn find(search: &str, name: &str) -> Option<String> {
    search
        .trim_start_matches('?')
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_owned())
}

/// `search` without parameter `name` (`?` kept only when parameters remain).
pub fn without(search: &str, name: &str) -> String {
    let kept: Vec<&str> = search
        .trim_start_matches('?')
        .split('&')
        .filter(|pair| !pair.is_empty() && pair.split('=').next() != Some(name))
        .collect();
    match kept.is_empty() {
        true => String::new(),
        false => format!("?{}", kept.join("&")),
    }
}

/// In the worker: the value of the page's parameter `name`, `None` when absent.
#[cfg(target_arch = "wasm32")]
pub fn get(name: &str) -> Option<String> {
    let search =
        js_sys::Reflect::get(&js_sys::global(), &"ESPALIER_SEARCH".into()).ok()?.as_string()?;
    find(&search, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_parameter_by_its_whole_name() {
        assert_eq!(find("?backend=cpu&check=cpu", "check").as_deref(), Some("cpu"));
        assert_eq!(find("?test-panic=run", "panic"), None);
        assert_eq!(find("", "check"), None);
    }

    #[test]
    fn drops_one_parameter_and_keeps_the_others() {
        assert_eq!(without("?test-panic=run", TEST_PANIC), "");
        assert_eq!(
            without("?backend=cpu&test-panic=run&check=cpu", TEST_PANIC),
            "?backend=cpu&check=cpu"
        );
        assert_eq!(without("?backend=cpu", TEST_PANIC), "?backend=cpu");
        assert_eq!(without("", TEST_PANIC), "");
    }
}
