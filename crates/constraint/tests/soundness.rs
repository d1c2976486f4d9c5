//! Soundness on real code: CPython files tokenized with the SmolLM2 tokenizer are fed
//! token by token; at every step the file's true next token must be allowed (by the
//! mask for `exact` and `syncode`, by `allows` for `check`); the mask's EOS bit must
//! equal "the text so far is a complete program" (so EOS is allowed at the end, and
//! mid-file only where the prefix is itself a whole program). Zero violations.
//!
//! CI runs a fixed sample; `ESPALIER_SLOW=1 cargo nextest run --release -p
//! espalier-constraint --test soundness` runs a sample about five times larger.

mod common;

use espalier_constraint::{Constraint, Strategy, TokenSet};

#[test]
fn true_next_token_is_always_allowed_on_cpython_files() {
    let (tok, vocab, trie) = common::smollm2();
    let store = common::python_store(&vocab);
    let (stride, max_bytes) = if common::slow() { (25, 30_000) } else { (80, 12_000) };
    let files = common::cpython_sample(stride, 3, max_bytes);
    let mut mask = TokenSet::empty(vocab.len());
    let mut checked_files = 0;
    let mut skipped = Vec::new();
    let mut violations = Vec::new();
    let mut steps = 0usize;
    for (path, text) in &files {
        if !common::grammar_accepts(text) {
            skipped.push(path.clone());
            continue;
        }
        checked_files += 1;
        let ids = tok.encode(text).expect("tokenize");
        for strategy in Strategy::ALL {
            let mut c = common::python_constraint(&trie, strategy, Some(&store));
            for (i, &id) in ids.iter().enumerate() {
                let allowed = match strategy {
                    Strategy::Check => c.allows(vocab.bytes(id)),
                    _ => {
                        c.fill_mask(&vocab, &mut mask);
                        if mask.contains(vocab.eos() as usize) != c.is_complete() {
                            violations
                                .push(format!("{path}: {strategy}: EOS bit wrong at token {i}"));
                        }
                        mask.contains(id as usize)
                    }
                };
                if !allowed {
                    violations.push(format!(
                        "{path}: {strategy}: token {i} {:?} refused after {:?}",
                        String::from_utf8_lossy(vocab.bytes(id)),
                        String::from_utf8_lossy(&c.text()[c.text().len().saturating_sub(60)..])
                    ));
                    break;
                }
                c.commit(vocab.bytes(id)).expect("an allowed token commits");
                steps += 1;
            }
            if !c.is_complete() {
                violations.push(format!("{path}: {strategy}: EOS not allowed at the end"));
            }
            c.fill_mask(&vocab, &mut mask);
            if !mask.contains(vocab.eos() as usize) && strategy != Strategy::Check {
                violations.push(format!("{path}: {strategy}: EOS not in the final mask"));
            }
        }
    }
    eprintln!(
        "soundness: {checked_files} files, {steps} steps over all strategies, {} skipped \
         (grammar rejects): {skipped:?}, {} violations",
        skipped.len(),
        violations.len()
    );
    assert!(checked_files >= 5, "too few files checked: {checked_files}");
    assert!(violations.is_empty(), "violations:\n{}", violations.join("\n"));
}

/// Hand-picked corners: remainders that split into several lexemes (`..` is `.` `.`
/// unless a third dot comes), indentation inside tokens, f-strings, soft keywords.
#[test]
fn tricky_snippets_are_sound_for_every_strategy() {
    let (tok, vocab, trie) = common::smollm2();
    let store = common::python_store(&vocab);
    let snippets = [
        "from .. import x\n",
        "from ... import y\n",
        "x = 1..real\n",
        "if x:\n    pass\nelse:\n    y = 'a'  # c\n",
        "def f(a, /, *b, **c) -> None: ...\n",
        "s = f'{x!r:>{w}}'\n",
        "match p:\n    case [1, *rest]:\n        pass\n",
        "class A:\n\tdef g(self):\n\t\treturn (yield)\n",
    ];
    let mut mask = TokenSet::empty(vocab.len());
    let mut violations = Vec::new();
    for text in snippets {
        assert!(common::grammar_accepts(text), "the grammar rejects {text:?}");
        let ids = tok.encode(text).expect("tokenize");
        for strategy in Strategy::ALL {
            let mut c = common::python_constraint(&trie, strategy, Some(&store));
            for &id in &ids {
                let ok = match strategy {
                    Strategy::Check => c.allows(vocab.bytes(id)),
                    _ => {
                        c.fill_mask(&vocab, &mut mask);
                        mask.contains(id as usize)
                    }
                };
                if !ok {
                    violations.push(format!(
                        "{strategy}: {:?} refused in {text:?}",
                        String::from_utf8_lossy(vocab.bytes(id))
                    ));
                    break;
                }
                c.commit(vocab.bytes(id)).expect("an allowed token commits");
            }
            c.fill_mask(&vocab, &mut mask);
            if !mask.contains(vocab.eos() as usize) {
                violations.push(format!("{strategy}: EOS refused at the end of {text:?}"));
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}
