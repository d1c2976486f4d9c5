//! Exact masks inside f-strings, against the brute-force oracle over the whole
//! vocabulary (every token's bytes pushed through a copy of the recognizer): texts
//! ending inside f-string literals of CPython files (at every byte of the literal),
//! and texts whose open replacement field makes the enclosing quote invalid (issue
//! 13's `dead_end` on BOUNDARY 328 / RANDSPAN 339: `f"{name.replace(Name(` then `"`).

use crate::common;

use espalier_constraint::{Constraint, GrammarConstraint, Strategy, TokenSet};

/// Texts whose f-string cannot close here (the quote is refused), and some that can.
const HAND: &[&str] = &[
    "x = f\"{name.replace(Name(",
    "print(f'{a[",
    "x = f\"{a!",
    "x = f\"{",
    "x = f\"{a",
    "x = f\"{a:{b",
    "x = f",
    "x = rf",
    "x = f\"\"\"{a(\"\"",
    "x = f'{a}}",
    "x = f'{x!r",
    "x = f\"{'s'",
    "if x:\n    y = F'{a=}",
    // Texts ending inside replacement fields (the next byte decides what the field
    // allows: before the field scanner `{)`, `{a b`, `{a!x`, a third spec level and
    // `{#` were allowed there, and the mask differed from the oracle).
    "x = f\"{a:{b:",
    "x = f\"{lambda",
    "x = f\"{'a",
    "x = f'{\"a\"",
    "x = f\"\"\"{'''a",
    "x = f\"\"\"{a\n",
    "x = f\"{a if b",
    "x = f\"{a=",
    "x = f\"{a!r",
    "x = f\"{x:{y}",
    "x = f\"\\",
    "x = f\"\\N",
    "x = f\"}",
    "x = f\"{ ",
    "x = f\"{(a",
    "x = f\"{[a,",
    "x = f'{f\"{a",
    "x = f\"{a<",
    "x = f\"{a =",
    "x = f\"{{",
    "x = f\"{a['",
    "x = f\"{a}",
    "x = f\"{a:>",
    "x = f\"{''",
    "print(f\"{self.name!r}: {",
];

#[test]
fn exact_masks_inside_fstrings_equal_the_brute_force_oracle() {
    let (_tok, vocab, trie) = common::smollm2();
    let kit = common::PYTHON.kit(&trie);
    let lang = kit.language().clone();
    let mut texts: Vec<String> = HAND.iter().map(|s| s.to_string()).collect();
    // Every byte of the first f-string literals of a few CPython files.
    let files = common::cpython_sample(if common::slow() { 20 } else { 80 }, 3, 60_000);
    let per_file = if common::slow() { 2 } else { 1 };
    for (_, text) in &files {
        let mut found = 0;
        for (i, w) in text.as_bytes().windows(2).enumerate() {
            if found == per_file {
                break;
            }
            if w[0] == b'f'
                && (w[1] == b'"' || w[1] == b'\'')
                && i > 0
                && !text.as_bytes()[i - 1].is_ascii_alphanumeric()
            {
                let end = text[i + 2..].find(w[1] as char).map_or(text.len(), |e| i + 3 + e);
                let mut k = i + 1;
                while k <= end && k < text.len() {
                    if text.is_char_boundary(k) {
                        texts.push(text[..k].to_string());
                    }
                    k += 1;
                }
                found += 1;
            }
        }
    }
    let mut mask = TokenSet::empty(vocab.len());
    let (mut positions, mut refused_quotes, mut disagreements) = (0, 0, Vec::new());
    for text in &texts {
        let mut rec = lang.recognizer();
        if !rec.try_push_bytes(text.as_bytes()) {
            continue; // a file whose prefix our grammar refuses is not this test's subject
        }
        positions += 1;
        let mut c = GrammarConstraint::from_start(rec.clone(), &kit, Strategy::Exact, "python-lr");
        c.fill_mask(&vocab, &mut mask);
        for id in 0..vocab.len() as u32 {
            if vocab.is_special(id) {
                continue;
            }
            let bytes = vocab.bytes(id);
            let viable = rec.clone().try_push_bytes(bytes);
            if !viable
                && matches!(bytes.last(), Some(b'"' | b'\''))
                && rec.clone().try_push_bytes(&bytes[..bytes.len() - 1])
            {
                refused_quotes += 1;
            }
            if mask.contains(id as usize) != viable {
                disagreements.push(format!(
                    "{:?} + token {id} {:?}: exact {} oracle {viable}",
                    &text[text.len().saturating_sub(40)..],
                    String::from_utf8_lossy(bytes),
                    mask.contains(id as usize)
                ));
            }
        }
    }
    eprintln!(
        "f-string masks: {positions} positions x {} tokens, {refused_quotes} tokens refused at a closing quote, {} disagreements",
        vocab.len(),
        disagreements.len()
    );
    assert!(positions >= 60, "too few positions: {positions}");
    assert!(refused_quotes > 0, "no closing quote was refused: the test lost its subject");
    espalier_testkit::assert_none(&disagreements, "f-string mask disagreements");
}

#[test]
fn the_quote_token_is_not_allowed_inside_an_open_field() {
    let (tok, vocab, trie) = common::smollm2();
    let kit = common::PYTHON.kit(&trie);
    let lang = kit.language().clone();
    let quote = tok.encode("\"").unwrap();
    assert_eq!(quote.len(), 1);
    let mut mask = TokenSet::empty(vocab.len());
    let mut rec = lang.recognizer();
    rec.push_bytes(b"def fix(name):\n    return f\"{name.replace(Name(").unwrap();
    let mut c = GrammarConstraint::from_start(rec, &kit, Strategy::Exact, "python-lr");
    c.fill_mask(&vocab, &mut mask);
    assert!(!mask.contains(quote[0] as usize), "`\"` ends the literal with the field open");
    assert!(mask.contains(tok.encode("'").unwrap()[0] as usize), "`'` opens a nested string");
}

#[test]
fn tokens_that_break_a_field_are_not_allowed() {
    // Independent of the recognizer (the oracle above): on main (3ff683c) each of
    // these was allowed, and nothing could close the literal after it.
    let (tok, vocab, trie) = common::smollm2();
    let kit = common::PYTHON.kit(&trie);
    let lang = kit.language().clone();
    let mut mask = TokenSet::empty(vocab.len());
    for (text, bad, good) in [
        ("x = f\"{", ")", "a"),
        ("x = f\"{a", " b", " +"),
        ("x = f\"{a!", "x", "r"),
        ("x = f\"{a:{b:", "{", ">"),
        ("x = f\"{", "#", "("),
        ("x = f\"{lambda", " x", "s"),
        ("x = f'{a", "\n", "}"),
        ("x = f\"{a=", "x", "}"),
        ("x = f\"", "{}", "{"),
    ] {
        let mut rec = lang.recognizer();
        rec.push_bytes(text.as_bytes()).unwrap();
        let mut c = GrammarConstraint::from_start(rec, &kit, Strategy::Exact, "python-lr");
        c.fill_mask(&vocab, &mut mask);
        let id = |s: &str| {
            let ids = tok.encode(s).unwrap();
            assert_eq!(ids.len(), 1, "{s:?} is one token");
            ids[0] as usize
        };
        assert!(!mask.contains(id(bad)), "{text:?} + {bad:?} breaks the field: not allowed");
        assert!(mask.contains(id(good)), "{text:?} + {good:?} is allowed");
    }
}
