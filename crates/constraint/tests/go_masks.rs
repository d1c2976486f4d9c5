//! The mask strategies on Go (automatic semicolons in the lexer layer): soundness
//! on standard-library files tokenized with the SmolLM2 tokenizer (the true next
//! token is always allowed, EOS exactly when the text is a complete file) for
//! `exact`, `syncode` and `check`; exactness of `exact` against the brute-force
//! viable-prefix oracle at random positions for 2000 sampled tokens; `syncode`
//! never under-approximates. Tokens that span a newline (where a semicolon may be
//! inserted) are the interesting ones; the snippets test pins some down.
//!
//! `ESPALIER_SLOW=1` runs larger samples.

mod common;

use espalier_constraint::{Constraint, GrammarConstraint, Strategy, TokenSet};

#[test]
fn true_next_token_is_always_allowed_on_go_files() {
    let (tok, vocab, trie) = common::smollm2();
    let store = common::go_store(&vocab);
    let (stride, max_bytes) = if common::slow() { (60, 20_000) } else { (400, 6_000) };
    let files = common::go_sample(stride, 5, max_bytes);
    let mut mask = TokenSet::empty(vocab.len());
    let (mut checked, mut steps) = (0, 0usize);
    let mut violations = Vec::new();
    for (path, text) in &files {
        assert!(common::go_accepts(text), "the Go grammar rejects {path}");
        checked += 1;
        let ids = tok.encode(text).expect("tokenize");
        for strategy in Strategy::ALL {
            let mut c = common::go_constraint(&trie, strategy, Some(&store));
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
                violations.push(format!("{path}: {strategy}: not complete at the end"));
            }
        }
    }
    eprintln!(
        "go soundness: {checked} files, {steps} steps over all strategies, {} violations",
        violations.len()
    );
    assert!(checked >= 5, "too few files checked: {checked}");
    assert!(violations.is_empty(), "violations:\n{}", violations.join("\n"));
}

#[test]
fn exact_go_masks_equal_the_brute_force_oracle() {
    let (_tok, vocab, trie) = common::smollm2();
    let store = common::go_store(&vocab);
    let mut rng = common::Rng(0x60_5EED);
    let sample: Vec<u32> = {
        let mut ids: Vec<u32> =
            (0..vocab.len() as u32).filter(|&id| !vocab.is_special(id)).collect();
        for i in 0..2000 {
            let j = i + rng.below(ids.len() - i);
            ids.swap(i, j);
        }
        ids.truncate(2000);
        ids
    };
    // newline-bearing tokens are few in a random sample: add every one of them
    let mut sample = sample;
    let with_newline: Vec<u32> = (0..vocab.len() as u32)
        .filter(|&id| {
            !vocab.is_special(id) && vocab.bytes(id).contains(&b'\n') && !sample.contains(&id)
        })
        .collect();
    sample.extend(with_newline);
    let positions_per_file = if common::slow() { 40 } else { 10 };
    let files = common::go_sample(if common::slow() { 80 } else { 350 }, 11, 20_000);
    let lang = espalier_grammar::go().unwrap();
    let mut mask = TokenSet::empty(vocab.len());
    let mut syncode_mask = TokenSet::empty(vocab.len());
    let (mut positions, mut over, mut viable_total, mut store_answers) =
        (0, 0usize, 0usize, 0usize);
    let (mut disagreements, mut under) = (Vec::new(), Vec::new());
    for (path, text) in &files {
        let bytes = text.as_bytes();
        for _ in 0..positions_per_file {
            let pos = rng.below(bytes.len() + 1);
            let mut rec = lang.recognizer();
            rec.push_bytes(&bytes[..pos]).expect("a prefix of an accepted file is viable");
            let mut c = GrammarConstraint::new(rec.clone(), trie.clone(), Strategy::Exact, "go-lr")
                .with_store(store.clone());
            c.fill_mask(&vocab, &mut mask);
            c.set_strategy(Strategy::Syncode);
            // false when the remainder may split (`/*` starts with the lexeme `/`):
            // the constraint then answers exactly, without the store
            let answered = c.syncode_mask(&mut syncode_mask);
            store_answers += answered as usize;
            positions += 1;
            for &id in &sample {
                let viable = rec.clone().push_bytes(vocab.bytes(id)).is_ok();
                viable_total += viable as usize;
                if mask.contains(id as usize) != viable {
                    disagreements.push(format!(
                        "{path} @{pos}: token {id} {:?}: exact {} oracle {viable} (after {:?})",
                        String::from_utf8_lossy(vocab.bytes(id)),
                        mask.contains(id as usize),
                        String::from_utf8_lossy(&bytes[pos.saturating_sub(40)..pos])
                    ));
                }
                let s = syncode_mask.contains(id as usize);
                if !answered {
                    continue;
                }
                over += (s && !viable) as usize;
                if !s && viable {
                    under.push(format!(
                        "{path} @{pos}: token {id} {:?}",
                        String::from_utf8_lossy(vocab.bytes(id))
                    ));
                }
            }
            assert_eq!(c.is_complete(), rec.is_complete());
        }
    }
    eprintln!(
        "go exactness: {positions} positions x {} tokens, {viable_total} viable pairs, {} disagreements; \
         syncode (store used at {store_answers} positions) allows {over} non-viable pairs ({:.2}% of the \
         viable count), misses {}",
        sample.len(),
        disagreements.len(),
        100.0 * over as f64 / viable_total.max(1) as f64,
        under.len()
    );
    assert!(positions >= 50, "too few positions: {positions}");
    assert!(
        store_answers * 10 >= positions * 9,
        "the store answered at only {store_answers} of {positions} positions"
    );
    assert!(
        disagreements.is_empty(),
        "{}",
        disagreements[..disagreements.len().min(30)].join("\n")
    );
    assert!(
        under.is_empty(),
        "syncode misses viable tokens:\n{}",
        under[..under.len().min(30)].join("\n")
    );
}

/// Corners of the semicolon layer, for every strategy: the true tokens of each
/// snippet are allowed, EOS at the end; and after `go f` no newline-bearing token
/// is allowed by `exact` (a newline would insert ";" where a call must continue).
#[test]
fn go_semicolon_snippets_for_every_strategy() {
    let (tok, vocab, trie) = common::smollm2();
    let store = common::go_store(&vocab);
    let snippets = [
        "package p\n\nfunc f() int {\n\treturn 1\n}\n",
        "package p\n\nvar x = []int{\n\t1,\n\t2,\n}\n",
        "package p\n\nfunc f() {\n\tx++ /* a\n\tcomment */\n\tgo g()\n}\n",
        "package p\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(`raw\n`, 'x', 1.5i, 0x1p-2) }",
        "package p\n\ntype T[P any] struct{ v P }\n",
    ];
    let mut mask = TokenSet::empty(vocab.len());
    let mut violations = Vec::new();
    for text in snippets {
        assert!(common::go_accepts(text), "the grammar rejects {text:?}");
        let ids = tok.encode(text).expect("tokenize");
        for strategy in Strategy::ALL {
            let mut c = common::go_constraint(&trie, strategy, Some(&store));
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
            if strategy != Strategy::Check && !mask.contains(vocab.eos() as usize) {
                violations.push(format!("{strategy}: EOS refused at the end of {text:?}"));
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
    let mut c = common::go_constraint(&trie, Strategy::Exact, None);
    c.commit(b"package p\nfunc f() { go f").unwrap();
    c.fill_mask(&vocab, &mut mask);
    let nl_tokens: Vec<u32> =
        (0..vocab.len() as u32).filter(|&id| vocab.bytes(id).first() == Some(&b'\n')).collect();
    assert!(!nl_tokens.is_empty());
    assert!(
        nl_tokens.iter().all(|&id| !mask.contains(id as usize)),
        "a newline is allowed where it would insert ';'"
    );
    assert!(mask.contains(tok.encode("(").unwrap()[0] as usize));
}
