//! The Python grammar on tree-sitter-python's corpus of snippets
//! (`../shared/data/tree-sitter-python-corpus.json`, each with CPython's `ast.parse`
//! verdict): our LR recognizer's verdict is CPython's, and the Earley recognizer,
//! behind the same lexer and Python layer, agrees with LR (verdict and error offset).

use espalier_grammar::{python, TokenParser};

/// The 116 snippets: (file, name, code, CPython's verdict).
fn snippets() -> Vec<serde_json::Value> {
    let path =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/tree-sitter-python-corpus.json");
    let data: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("tree-sitter corpus")).unwrap();
    data.as_array().unwrap().clone()
}

#[test]
fn tree_sitter_snippets_agree() {
    let py = python().unwrap();
    let mut bad = Vec::new();
    let items = snippets();
    for it in &items {
        let code = it["code"].as_str().unwrap();
        let expected = it["cpython_ast_ok"].as_bool().unwrap();
        let mut r = py.recognizer();
        let ours = r.push_bytes(code.as_bytes()).and_then(|_| r.finish());
        if ours.is_ok() != expected {
            bad.push(format!(
                "{} / {}: expected {expected}, ours {:?}",
                it["file"],
                it["name"],
                ours.err()
            ));
        }
    }
    eprintln!("tree-sitter: {} of {} snippets agree", items.len() - bad.len(), items.len());
    assert_eq!(items.len(), 116);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn verdicts<P: TokenParser>(
    mut r: espalier_grammar::Recognizer<P>,
    text: &[u8],
) -> Result<(), usize> {
    r.push_bytes(text).and_then(|_| r.finish()).map_err(|e| e.offset)
}

#[test]
fn earley_agrees_with_lr_on_tree_sitter_snippets() {
    let py = python().unwrap();
    for it in snippets() {
        let code = it["code"].as_str().unwrap().as_bytes();
        assert_eq!(
            verdicts(py.recognizer(), code),
            verdicts(py.earley_recognizer(), code),
            "{}",
            it["name"]
        );
    }
}
