//! NUL bytes under the Python constraint: CPython 3.11 refuses any source that holds
//! one ("source code string cannot contain null bytes"), so neither the exact nor the
//! checking mask, nor a finishing mask, may allow a token with a NUL byte, and no
//! strategy may commit one, wherever the text stands: in code, in every kind of string
//! literal, in a comment. (SynCode's mask over-approximates by design: a token that
//! runs past its accept sequences, like `a\0` after a name, may be listed, as any
//! other such token; the commit refuses it.)

use std::sync::Arc;

use espalier_constraint::{
    Commit, Constraint, GrammarConstraint, MaskKit, MaskStore, Strategy, TokenSet, Vocab,
};

/// Tokens with a NUL byte beside the ones that lead into each context.
fn vocab() -> Vocab {
    let mut tokens: Vec<Vec<u8>> = vec![b"<eos>".to_vec()];
    for t in ["\0", "a\0", "\0'", "\\\0", "\0\n", " \0", "#\0", "'\0'"] {
        tokens.push(t.as_bytes().to_vec());
    }
    for t in [
        "x", " =", " ", "'", "\"", "'''", "\"\"\"", "b", "r", "f", "rb", "a", "\\", "#", "\n", "{",
        "}", "1",
    ] {
        tokens.push(t.as_bytes().to_vec());
    }
    Vocab::new(tokens, &[0], 0)
}

/// Texts that end in code, in each kind of literal, after a backslash in one, in a
/// comment, in an f-string field.
const CONTEXTS: &[&str] = &[
    "",
    "x = ",
    "x = '",
    "x = \"a",
    "x = '''a",
    "x = \"\"\"",
    "x = b'",
    "x = rb'a",
    "x = r'\\",
    "x = '\\",
    "x = b'\\",
    "x = f'a",
    "x = f'{",
    "x = 1 #",
    "x = 1 # a",
];

fn has_nul(vocab: &Vocab, t: usize) -> bool {
    vocab.bytes(t as u32).contains(&0)
}

#[test]
fn no_mask_allows_a_nul_byte() {
    let vocab = vocab();
    let lang = espalier_grammar::python().unwrap();
    let kit = MaskKit::for_vocab(lang.clone(), &vocab);
    let store = Arc::new(MaskStore::build(&lang, &vocab));
    let mut mask = TokenSet::empty(vocab.len());
    for strategy in [Strategy::Exact, Strategy::Syncode, Strategy::Check] {
        for text in CONTEXTS {
            let mut c = GrammarConstraint::new(&kit, strategy, "python").with_store(store.clone());
            c.commit(text.as_bytes()).unwrap_or_else(|e| panic!("{text:?} is viable: {e:?}"));
            c.fill_mask(&vocab, &mut mask);
            assert!(mask.count() > 1, "{strategy:?} after {text:?}: the mask allows some token");
            let bad: Vec<usize> = mask.iter().filter(|&t| has_nul(&vocab, t)).collect();
            if strategy != Strategy::Syncode {
                assert!(bad.is_empty(), "{strategy:?} after {text:?} allows NUL tokens {bad:?}");
            }
            if c.fill_finishing_mask(&vocab, &mut mask) {
                assert!(mask.iter().all(|t| !has_nul(&vocab, t)), "finishing after {text:?}");
            }
            for t in 1..vocab.len() {
                if has_nul(&vocab, t) {
                    assert!(!c.allows(vocab.bytes(t as u32)), "{strategy:?}: {text:?} + {t}");
                    let commit = c.clone().commit(vocab.bytes(t as u32));
                    assert!(!matches!(commit, Ok(Commit::Accepted)), "{text:?} + {t}");
                }
            }
        }
    }
}

#[test]
fn the_recognizer_refuses_a_nul_byte_anywhere() {
    let lang = espalier_grammar::python().unwrap();
    for text in CONTEXTS {
        let mut r = lang.recognizer();
        assert!(r.push_bytes(text.as_bytes()).is_ok(), "{text:?}");
        assert!(r.push_bytes(b"\0").is_err(), "{text:?} + NUL");
    }
}
