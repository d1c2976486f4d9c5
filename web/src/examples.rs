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
    /// The request text; for a fill-in-the-middle example, the code left of the cursor.
    pub prompt: String,
    /// A fill-in-the-middle example: the code right of the cursor.
    #[serde(default)]
    pub suffix: Option<String>,
}

const EXAMPLES_JSON: &str = include_str!("../../static/examples/examples.json");

/// Every example, or an empty list if the file is malformed (a test guards that).
pub fn all() -> Vec<Example> {
    serde_json::from_str(EXAMPLES_JSON).unwrap_or_default()
}

/// The examples for one language: requests, or with `fim` fill-in-the-middle ones.
pub fn for_lang(lang: Lang, fim: bool) -> Vec<Example> {
    all().into_iter().filter(|e| e.lang == lang.name() && e.suffix.is_some() == fim).collect()
}

#[cfg(test)]
mod tests {
    use espalier_decode::{Mode, Task};

    use super::*;

    /// Every fill-in-the-middle example can be joined (the constraint is built on a
    /// small vocabulary: the suffix analysis does not depend on it).
    #[test]
    fn fim_examples_are_joinable_requests() {
        let tokens: Vec<Vec<u8>> =
            ["<eos>", "x", " ", "\n"].iter().map(|t| t.as_bytes().to_vec()).collect();
        let mut kits = espalier_decode::Kits::new(std::sync::Arc::new(
            espalier_constraint::Vocab::new(tokens, &[0], 0),
        ));
        for lang in Lang::all() {
            for e in for_lang(lang, true) {
                let task = Task::fim(lang, Mode::Mask, e.prompt.clone(), e.suffix.clone().unwrap());
                assert!(
                    task.constraint(&mut kits).is_ok(),
                    "{}: {:?}",
                    e.title,
                    task.constraint(&mut kits).err()
                );
            }
        }
    }

    #[test]
    fn every_language_has_examples() {
        let all: Vec<Example> = serde_json::from_str(EXAMPLES_JSON).expect("examples.json parses");
        for e in &all {
            assert!(Lang::from_name(&e.lang).is_ok(), "unknown language {}", e.lang);
        }
        for lang in Lang::all() {
            assert!(!for_lang(lang, false).is_empty(), "no example for {}", lang.name());
            assert_eq!(
                !for_lang(lang, true).is_empty(),
                lang.fills_in_the_middle(),
                "fill-in-the-middle examples of {lang}"
            );
        }
    }
}
