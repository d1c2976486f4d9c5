//! The Earley recognizer and the LR parser, behind the same lexer and Python layer,
//! agree on accept/reject. CI: 60 corpus files, the tree-sitter snippets and truncated
//! files; `ESPALIER_SLOW=1`: the whole corpus.

use crate::common;

use common::*;
use espalier_grammar::{python, TokenParser};

fn verdicts<P: TokenParser>(
    mut r: espalier_grammar::Recognizer<P>,
    text: &[u8],
) -> Result<(), usize> {
    r.push_bytes(text).and_then(|_| r.finish()).map_err(|e| e.offset)
}

#[test]
fn earley_agrees_with_lr_on_corpus() {
    require_oracle();
    let files = if slow() { corpus_files() } else { corpus_sample(60) };
    let n = checks::earley_agrees_with_lr("python", &python().unwrap(), &files, 7);
    assert!(n >= 60 || slow(), "python: only {n} texts");
}

#[test]
fn earley_agrees_with_lr_on_tree_sitter_snippets() {
    let path =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/tree-sitter-python-corpus.json");
    let data: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let py = python().unwrap();
    for it in data.as_array().unwrap() {
        let code = it["code"].as_str().unwrap().as_bytes();
        assert_eq!(
            verdicts(py.recognizer(), code),
            verdicts(py.earley_recognizer(), code),
            "{}",
            it["name"]
        );
    }
}
