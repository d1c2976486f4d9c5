//! A toy language and vocabulary for the unit tests (test builds only): statements
//! `name = expr;` and `return expr;`, tokens of one to three bytes over the toy's
//! alphabet plus a few words.

use std::sync::Arc;

use espalier_grammar::{Language, LanguageOptions};

use crate::Vocab;

/// The toy grammar, compiled.
pub(crate) fn toy_language() -> Arc<Language> {
    Language::compile(
        "start: stmt*\nstmt: NAME \"=\" expr \";\" | \"return\" expr \";\"\nexpr: atom | expr \"+\" atom\natom: NAME | INT | \"(\" expr \")\"\nNAME: /[a-z]+/\nINT: /[0-9]+/\n%ignore \" \"\n",
        &LanguageOptions::default(),
    )
    .expect("the toy grammar compiles")
}

/// The special tokens `specials` (ids from 0; the first is EOS), every string of one
/// to three bytes over `x1 =;(+r)`, then `words`.
pub(crate) fn toy_vocab(specials: &[&str], words: &[&str]) -> Vocab {
    let mut tokens: Vec<Vec<u8>> = specials.iter().map(|s| s.as_bytes().to_vec()).collect();
    let alphabet: &[u8] = b"x1 =;(+r)";
    for len in 1..=3u32 {
        for n in 0..alphabet.len().pow(len) {
            let mut t = Vec::new();
            let mut k = n;
            for _ in 0..len {
                t.push(alphabet[k % alphabet.len()]);
                k /= alphabet.len();
            }
            tokens.push(t);
        }
    }
    tokens.extend(words.iter().map(|w| w.as_bytes().to_vec()));
    let special_ids: Vec<u32> = (0..specials.len() as u32).collect();
    Vocab::new(tokens, &special_ids, 0)
}
