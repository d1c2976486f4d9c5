//! The constraint's masks are exact: at every step of replaying valid scripts, a token
//! is in the mask exactly when committing it (byte by byte, no caches) succeeds, over
//! a synthetic vocabulary rich in boundary-crossing tokens (`x,`, `);`, whitespace
//! runs, keywords with spaces). EOS is allowed exactly at the end. The trie walk
//! behind `fill_mask` agrees with the token-by-token reference and with committing
//! each token on states from random walks.

use std::rc::Rc;

use espalier_constraint::{Constraint, TokenSet, Vocab};
use espalier_slua::{Api, Env, SluaConstraint};

use crate::common;
use common::{vocab, walk_states};

/// Asserts that `mask` holds exactly the tokens that commit from `c` (special tokens
/// aside), and that `allows` agrees; `at` says where, for the message.
fn assert_mask_is_exact(c: &SluaConstraint, v: &Vocab, mask: &TokenSet, at: &str) {
    for id in 0..v.len() as u32 {
        if v.is_special(id) {
            continue;
        }
        let truth = c.clone().commit(v.bytes(id)).is_ok();
        let token = String::from_utf8_lossy(v.bytes(id));
        assert_eq!(truth, mask.contains(id as usize), "token {token:?} {at}");
        assert_eq!(truth, c.allows(v.bytes(id)), "allows, token {token:?} {at}");
    }
}

/// Commits the longest token of `mask` that the script's `rest` starts with; the rest
/// after it.
fn commit_longest<'s>(
    c: &mut SluaConstraint,
    v: &Vocab,
    mask: &TokenSet,
    rest: &'s [u8],
) -> &'s [u8] {
    let best = mask
        .iter()
        .filter(|&id| rest.starts_with(v.bytes(id as u32)))
        .max_by_key(|&id| v.bytes(id as u32).len())
        .expect("the script's next bytes are allowed");
    c.commit(v.bytes(best as u32)).unwrap();
    &rest[v.bytes(best as u32).len()..]
}

#[test]
fn masks_equal_the_tokens_that_commit() {
    let v = vocab();
    // One script keeps this under half a minute in release mode; `mask_speed` with
    // VERIFY=1 does the same over the real vocabulary.
    let scripts = [include_str!("../scripts/valid/11_firebolt.slua")];
    for script in scripts {
        let env = Rc::new(Env::new(Api::dungeon(), vec!["Burning".into()]));
        let mut c = SluaConstraint::new(env);
        let mut mask = TokenSet::empty(v.len());
        let mut rest = script.trim_end().as_bytes();
        while !rest.is_empty() {
            c.fill_mask(&v, &mut mask);
            assert!(!mask.contains(v.eos() as usize));
            let before = String::from_utf8_lossy(&rest[..rest.len().min(30)]);
            assert_mask_is_exact(&c, &v, &mask, &format!("before {before:?}"));
            rest = commit_longest(&mut c, &v, &mask, rest);
        }
        c.fill_mask(&v, &mut mask);
        assert_eq!(mask.iter().collect::<Vec<_>>(), vec![v.eos() as usize]);
    }
}

#[test]
fn the_trie_walk_equals_the_per_token_mask_on_random_walk_states() {
    let v = vocab();
    let env = common::env();
    let mut fast = TokenSet::empty(v.len());
    let mut slow = TokenSet::empty(v.len());
    let (mut states, mut disagreements, mut allowed) = (0, Vec::new(), 0);
    for (mut c, prefix) in walk_states(&env, 60, 99) {
        c.fill_mask(&v, &mut fast);
        c.fill_mask_per_token(&v, &mut slow);
        allowed += fast.count();
        for id in 0..v.len() {
            if v.is_special(id as u32) {
                assert_eq!(fast.contains(id), c.is_complete(), "EOS exactly when complete");
                continue;
            }
            let truth = c.clone().commit(v.bytes(id as u32)).is_ok();
            if fast.contains(id) != truth
                || slow.contains(id) != truth
                || c.allows(v.bytes(id as u32)) != truth
            {
                disagreements.push(format!(
                    "after {:?}: token {:?} trie {} per-token {} truth {truth}",
                    &prefix[prefix.len().saturating_sub(40)..],
                    String::from_utf8_lossy(v.bytes(id as u32)),
                    fast.contains(id),
                    slow.contains(id)
                ));
            }
        }
        states += 1;
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements, first: {:#?}",
        disagreements.len(),
        &disagreements[..disagreements.len().min(5)]
    );
    assert!(states == 60 && allowed > states * 20, "{states} states, {allowed} allowed tokens");
}

/// Names in scope are one alternative, but the tree after one depends on its kind:
/// `user ,` must be refused and `target ,` allowed as `WithActorAt`'s first argument
/// (an actor needs `.pos`), whichever the trie walk meets first.
#[test]
fn tokens_past_a_name_in_scope_are_judged_by_its_kind() {
    let base = vocab();
    let mut toks: Vec<Vec<u8>> = base.tokens().to_vec();
    for t in [
        "target ,",
        "user ,",
        "target .",
        "user .",
        " target .",
        " user .",
        "user .pos",
        "target ,f",
    ] {
        toks.push(t.as_bytes().to_vec());
    }
    let eos = base.eos();
    let v = espalier_constraint::Vocab::new(toks, &[eos], eos);
    let mut c = SluaConstraint::new(common::env());
    c.commit(b"talent T;\nhook Do = function(user, target)\n  WithActorAt(").unwrap();
    let mut mask = TokenSet::empty(v.len());
    c.fill_mask(&v, &mut mask);
    assert_mask_is_exact(&c, &v, &mask, "after `WithActorAt(`");
    let allowed =
        |t: &str| mask.contains(v.tokens().iter().position(|x| x == t.as_bytes()).unwrap());
    assert!(
        allowed("target ,") && allowed("user .pos") && !allowed("user ,") && !allowed("target .")
    );
}

/// The masks cached by segment DFA state (string literals, the tokens after a
/// look-ahead byte) equal the token-by-token reference when they are reused: two
/// scripts with strings replayed twice over one environment.
#[test]
fn masks_from_cached_state_masks_equal_the_reference() {
    let v = vocab();
    let env = Rc::new(Env::new(Api::dungeon(), vec!["Burning".into()]));
    let scripts = [
        include_str!("../scripts/valid/19_strings.slua"),
        include_str!("../scripts/valid/11_firebolt.slua"),
    ];
    let (mut fast, mut slow) = (TokenSet::empty(v.len()), TokenSet::empty(v.len()));
    let mut steps = 0;
    for script in scripts.iter().chain(scripts.iter()) {
        let mut c = SluaConstraint::new(env.clone());
        let mut rest = script.trim_end().as_bytes();
        while !rest.is_empty() {
            c.fill_mask(&v, &mut fast);
            c.fill_mask_per_token(&v, &mut slow);
            assert_eq!(
                fast,
                slow,
                "before {:?}",
                String::from_utf8_lossy(&rest[..rest.len().min(30)])
            );
            rest = commit_longest(&mut c, &v, &fast, rest);
            steps += 1;
        }
    }
    // Without masks built (and so reused) this test would not test them.
    assert!(
        env.dfas.state_masks_built() > 10,
        "{} state masks built over {steps} steps",
        env.dfas.state_masks_built()
    );
}
