//! Example prompts offered beside the prompt box, read from
//! `static/examples/examples.json` at compile time.

use serde::Deserialize;

use espalier_decode::Lang;

/// One example request.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct Example {
    /// A language of the registry ([`espalier_decode::LangSpec::name`]).
    pub lang: String,
    /// Short name on the button.
    pub title: String,
    /// The request text.
    pub prompt: String,
}

const EXAMPLES_JSON: &str = include_str!("../../static/examples/examples.json");

/// Every example, or an empty list if the file is malformed (a test guards that).
pub fn all() -> Vec<Example> {
    serde_json::from_str(EXAMPLES_JSON).unwrap_or_default()
}

/// The examples for one language.
pub fn for_lang(lang: Lang) -> Vec<Example> {
    all().into_iter().filter(|e| e.lang == lang.name()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_has_examples() {
        let all: Vec<Example> = serde_json::from_str(EXAMPLES_JSON).expect("examples.json parses");
        for e in &all {
            assert!(Lang::from_name(&e.lang).is_ok(), "unknown language {}", e.lang);
        }
        for lang in Lang::all() {
            assert!(!for_lang(lang).is_empty(), "no example for {}", lang.name());
        }
    }
}
