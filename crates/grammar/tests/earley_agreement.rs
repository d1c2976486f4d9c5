//! The Earley recognizer and the LR parser, behind the same lexer and Python layer,
//! agree on accept/reject. CI: 60 corpus files, the tree-sitter snippets and truncated
//! files; `ESPALIER_SLOW=1`: the whole corpus.

mod common;

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
    let py = python().unwrap();
    let files = if slow() { corpus_files() } else { corpus_sample(60) };
    let mut rng = Rng(7);
    let mut n = 0;
    for f in &files {
        let text = std::fs::read(f).unwrap();
        let cut = rng.below(text.len() + 1);
        for t in [&text[..], &text[..cut]] {
            let lr = verdicts(py.recognizer(), t);
            let ea = verdicts(py.earley_recognizer(), t);
            assert_eq!(
                lr,
                ea,
                "{} (first {} bytes): LR {lr:?} vs Earley {ea:?}",
                f.display(),
                t.len()
            );
            n += 1;
        }
    }
    eprintln!("LR and Earley agree on {n} texts (files and truncated files)");
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
