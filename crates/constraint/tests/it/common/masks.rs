//! The mask checks every grammar language gets (run for each language by the suites
//! `soundness` and `exactness`): soundness on the language's standard library and on
//! hand-picked snippets, and `exact` against the brute-force viable-prefix oracle. Every
//! message starts with the language's name.

use espalier_constraint::{Constraint, GrammarConstraint, Strategy, TokenSet};

use super::{slow, smollm2, token_sample, GrammarLang, Rng};

/// What a suite does with a sampled file its grammar rejects.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Rejected {
    /// Skip it (and list it): the grammar's own corpus suite accounts for it.
    Skip,
    /// Fail: every file of the sample must be accepted.
    Fail,
}

/// Soundness on real code: the language's sample (`(stride, max_bytes)`, the CI size or
/// the `ESPALIER_SLOW=1` size, from the `first`-th file), tokenized with the SmolLM2
/// tokenizer and fed token by token; at every step the file's true next token must be
/// allowed (by the mask for `exact` and `syncode`, by `allows` for `check`), the mask's
/// EOS bit must equal "the text so far is a complete program", and at the end the text
/// is complete and EOS is in the final mask. Zero violations, at least 5 files.
pub fn true_next_token_is_always_allowed(
    lang: &GrammarLang,
    ci: (usize, usize),
    slow_size: (usize, usize),
    first: usize,
    rejected: Rejected,
) {
    let name = lang.name;
    let (tok, vocab, trie) = smollm2();
    let kit = lang.kit(&trie);
    let store = lang.store(&vocab);
    let (stride, max_bytes) = if slow() { slow_size } else { ci };
    let files = lang.sample(stride, first, max_bytes);
    let mut mask = TokenSet::empty(vocab.len());
    let mut checked_files = 0;
    let mut skipped = Vec::new();
    let mut violations = Vec::new();
    let mut steps = 0usize;
    for (path, text) in &files {
        if !lang.accepts(text) {
            assert!(rejected == Rejected::Skip, "the {name} grammar rejects {path}");
            skipped.push(path.clone());
            continue;
        }
        checked_files += 1;
        let ids = tok.encode(text).expect("tokenize");
        for strategy in Strategy::ALL {
            let mut c = lang.constraint(&kit, strategy, Some(&store));
            for (i, &id) in ids.iter().enumerate() {
                let allowed = match strategy {
                    Strategy::Check => c.allows(vocab.bytes(id)),
                    _ => {
                        c.fill_mask(&vocab, &mut mask);
                        if mask.contains(vocab.eos() as usize) != c.is_complete() {
                            violations.push(format!(
                                "{name} {path}: {strategy}: EOS bit wrong at token {i}"
                            ));
                        }
                        mask.contains(id as usize)
                    }
                };
                if !allowed {
                    violations.push(format!(
                        "{name} {path}: {strategy}: token {i} {:?} refused after {:?}",
                        String::from_utf8_lossy(vocab.bytes(id)),
                        String::from_utf8_lossy(&c.text()[c.text().len().saturating_sub(60)..])
                    ));
                    break;
                }
                c.commit(vocab.bytes(id)).expect("an allowed token commits");
                steps += 1;
            }
            if !c.is_complete() {
                violations.push(format!(
                    "{name} {path}: {strategy}: not complete (EOS not allowed) at the end"
                ));
            }
            c.fill_mask(&vocab, &mut mask);
            if !mask.contains(vocab.eos() as usize) && strategy != Strategy::Check {
                violations.push(format!("{name} {path}: {strategy}: EOS not in the final mask"));
            }
        }
    }
    eprintln!(
        "{name} soundness: {checked_files} files, {steps} steps over all strategies, {} skipped \
         (grammar rejects): {skipped:?}, {} violations",
        skipped.len(),
        violations.len()
    );
    assert!(checked_files >= 5, "{name}: too few files checked: {checked_files}");
    assert!(violations.is_empty(), "{name} violations:\n{}", violations.join("\n"));
}

/// Hand-picked corners, for every strategy: the grammar accepts each snippet, its true
/// tokens are allowed one by one, and EOS is in the mask at its end.
pub fn snippets_are_sound(lang: &GrammarLang, snippets: &[&str]) {
    let name = lang.name;
    let (tok, vocab, trie) = smollm2();
    let kit = lang.kit(&trie);
    let store = lang.store(&vocab);
    let mut mask = TokenSet::empty(vocab.len());
    let mut violations = Vec::new();
    for text in snippets {
        assert!(lang.accepts(text), "the {name} grammar rejects {text:?}");
        let ids = tok.encode(text).expect("tokenize");
        for strategy in Strategy::ALL {
            let mut c = lang.constraint(&kit, strategy, Some(&store));
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
                        "{name} {strategy}: {:?} refused in {text:?}",
                        String::from_utf8_lossy(vocab.bytes(id))
                    ));
                    break;
                }
                c.commit(vocab.bytes(id)).expect("an allowed token commits");
            }
            c.fill_mask(&vocab, &mut mask);
            if !mask.contains(vocab.eos() as usize) {
                violations.push(format!("{name} {strategy}: EOS refused at the end of {text:?}"));
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

/// The size and seed of an exactness run.
pub struct Exactness {
    /// The token sample's and the positions' seed.
    pub seed: u64,
    /// Random byte positions per file: (CI, `ESPALIER_SLOW=1`).
    pub positions_per_file: (usize, usize),
    /// The sample's stride: (CI, `ESPALIER_SLOW=1`).
    pub stride: (usize, usize),
    /// The sample's first file and largest file.
    pub first: usize,
    pub max_bytes: usize,
    /// What to do with a file the grammar rejects.
    pub rejected: Rejected,
    /// Add every newline-bearing token to the 2000 sampled ones (where Go's semicolon
    /// layer acts).
    pub newline_tokens: bool,
    /// The least share of positions (in percent) where the store answers `syncode`;
    /// it cannot where the unfinished lexeme has a complete lexeme as a proper prefix.
    pub store_floor_percent: usize,
}

/// Exactness: at random byte positions of real files, for a fixed random sample of
/// 2000 vocabulary tokens, `exact` allows a token iff pushing its bytes through a copy
/// of the incremental recognizer succeeds (the brute-force viable-prefix oracle), with
/// zero disagreements over at least 50 positions; the store answers `syncode` at
/// `store_floor_percent` of the positions or more, and everywhere the unfinished lexeme
/// has no complete lexeme as a proper prefix (where the lexer cannot back off); `syncode`
/// never under-approximates (its over-approximation is printed).
pub fn exact_masks_equal_the_brute_force_oracle(lang: &GrammarLang, run: &Exactness) {
    let name = lang.name;
    let (_tok, vocab, trie) = smollm2();
    let kit = lang.kit(&trie);
    let store = lang.store(&vocab);
    let mut rng = Rng(run.seed);
    let mut sample = token_sample(&vocab, &mut rng, 2000);
    if run.newline_tokens {
        // newline-bearing tokens are few in a random sample: add every one of them
        let with_newline: Vec<u32> = (0..vocab.len() as u32)
            .filter(|&id| {
                !vocab.is_special(id) && vocab.bytes(id).contains(&b'\n') && !sample.contains(&id)
            })
            .collect();
        sample.extend(with_newline);
    }
    let pick = |(ci, slow_size): (usize, usize)| if slow() { slow_size } else { ci };
    let positions_per_file = pick(run.positions_per_file);
    let files = lang.sample(pick(run.stride), run.first, run.max_bytes);
    let grammar = kit.language().clone();
    let mut mask = TokenSet::empty(vocab.len());
    let mut syncode_mask = TokenSet::empty(vocab.len());
    let (mut positions, mut over, mut viable_total, mut store_answers) =
        (0, 0usize, 0usize, 0usize);
    let (mut disagreements, mut under) = (Vec::new(), Vec::new());
    // Where the store was not used, by the opening of the unfinished lexeme; and
    // where it was not though the lexer could not back off.
    let mut unanswered = std::collections::BTreeMap::new();
    let mut no_store = Vec::new();
    for (path, text) in &files {
        if !lang.accepts(text) {
            assert!(run.rejected == Rejected::Skip, "the {name} grammar rejects {path}");
            continue;
        }
        let bytes = text.as_bytes();
        for _ in 0..positions_per_file {
            let pos = rng.below(bytes.len() + 1);
            let mut rec = grammar.recognizer();
            rec.push_bytes(&bytes[..pos]).expect("a prefix of an accepted file is viable");
            let mut c =
                GrammarConstraint::from_start(rec.clone(), &kit, Strategy::Exact, lang.kind)
                    .with_store(store.clone());
            c.fill_mask(&vocab, &mut mask);
            c.set_strategy(Strategy::Syncode);
            // false when the remainder may split (`/*` starts with the lexeme `/`):
            // the constraint then answers exactly, without the store
            let answered = c.syncode_mask(&mut syncode_mask);
            store_answers += answered as usize;
            if !answered {
                let rem = rec.remainder_bytes();
                *unanswered.entry(remainder_opening(rem)).or_insert(0usize) += 1;
                if !may_back_off(&grammar.dfa, rem) {
                    no_store.push(format!(
                        "{name} {path} @{pos}: the store was not used after {:?}",
                        String::from_utf8_lossy(&bytes[pos.saturating_sub(40)..pos])
                    ));
                }
            }
            positions += 1;
            for &id in &sample {
                let viable = rec.clone().push_bytes(vocab.bytes(id)).is_ok();
                viable_total += viable as usize;
                if mask.contains(id as usize) != viable {
                    disagreements.push(format!(
                        "{name} {path} @{pos}: token {id} {:?}: exact {} oracle {viable} (after {:?})",
                        String::from_utf8_lossy(vocab.bytes(id)),
                        mask.contains(id as usize),
                        String::from_utf8_lossy(&bytes[pos.saturating_sub(40)..pos])
                    ));
                }
                if !answered {
                    continue;
                }
                let s = syncode_mask.contains(id as usize);
                over += (s && !viable) as usize;
                if !s && viable {
                    under.push(format!(
                        "{name} {path} @{pos}: token {id} {:?}",
                        String::from_utf8_lossy(vocab.bytes(id))
                    ));
                }
            }
            assert_eq!(c.is_complete(), rec.is_complete(), "{name} {path} @{pos}");
        }
    }
    eprintln!(
        "{name} exactness: {positions} positions x {} tokens, {viable_total} viable pairs, {} \
         disagreements; syncode (store used at {store_answers} positions) allows {over} \
         non-viable pairs ({:.2}% of the viable count), misses {} viable pairs",
        sample.len(),
        disagreements.len(),
        100.0 * over as f64 / viable_total.max(1) as f64,
        under.len()
    );
    eprintln!("{name}: the store was not used at (the unfinished lexeme's opening: positions) {unanswered:?}");
    espalier_testkit::assert_none(&no_store, &format!("{name}: the store was not used"));
    assert!(positions >= 50, "{name}: too few positions: {positions}");
    assert!(
        store_answers * 100 >= positions * run.store_floor_percent,
        "{name}: the store answered at only {store_answers} of {positions} positions (floor \
         {}%)",
        run.store_floor_percent
    );
    espalier_testkit::assert_none(&disagreements, &format!("{name}: disagreements"));
    espalier_testkit::assert_none(&under, &format!("{name}: syncode misses viable tokens"));
}

/// The opening of an unfinished lexeme, to sort the positions where the store was not
/// used: up to its first quote and the two bytes after it (`"""`, `f"`), or its first
/// two bytes; four bytes at most.
fn remainder_opening(rem: &[u8]) -> String {
    let end = rem.iter().position(|&b| b == b'"' || b == b'\'').map_or(2, |q| q + 3);
    String::from_utf8_lossy(&rem[..end.min(4).min(rem.len())]).into_owned()
}

/// Whether the lexer may back off inside the unfinished lexeme `rem`: it is no complete
/// lexeme, but a proper prefix of it is (`""` of `"""doc`), to which the lexer returns
/// when a byte continues nothing. Read off the DFA here, apart from the constraint's
/// own test.
fn may_back_off(dfa: &espalier_grammar::LexerDfa, rem: &[u8]) -> bool {
    let Some((_, head)) = rem.split_last() else { return false };
    let mut q = espalier_grammar::LexerDfa::START;
    let mut prefix_complete = false;
    for &b in head {
        q = dfa.next(q, b);
        prefix_complete |= !dfa.winners(q).is_empty();
    }
    let whole = dfa.next(q, rem[rem.len() - 1]);
    prefix_complete && dfa.winners(whole).is_empty()
}
