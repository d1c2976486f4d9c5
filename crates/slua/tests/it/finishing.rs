//! The finishing mask ends scripts: from states taken at random points of random
//! walks, always taking a random token of `fill_finishing_mask` reaches a complete
//! script within the bound the cost argument gives, every mask on the way is
//! non-empty and lowers the cost, and every script so finished type-checks,
//! translates to Lua and runs in the game.

use std::time::Duration;

use espalier_constraint::{Constraint, TokenSet};
use espalier_game::Game;
use espalier_slua::walker::Rng;
use espalier_slua::{check, translate::to_lua, Api};

use crate::common;
use common::{env, vocab, walk_states};

#[test]
fn taking_only_finishing_tokens_finishes_valid_scripts() {
    let v = vocab();
    let env = env();
    let mut rng = Rng::new(5);
    let mut mask = TokenSet::empty(v.len());
    let (mut total_tokens, mut worst) = (0usize, 0usize);
    let states = walk_states(&env, 40, 17);
    for (mut c, prefix) in states {
        let start = c.lexemes_to_finish();
        // Each token lowers (lexemes to finish, bytes to the end of the lexeme):
        // the second part never exceeds the longest shortest lexeme plus its
        // look-ahead (well under 40 bytes in this API).
        let bound = (start + 1) * 40;
        let mut text = prefix.clone();
        let mut tokens = 0;
        loop {
            let before = c.lexemes_to_finish();
            c.fill_finishing_mask(&v, &mut mask);
            assert!(!mask.is_empty(), "empty finishing mask after:\n{text}");
            if c.is_complete() {
                assert_eq!(mask.iter().collect::<Vec<_>>(), vec![v.eos() as usize]);
                break;
            }
            assert!(!mask.contains(v.eos() as usize));
            let ids: Vec<usize> = mask.iter().collect();
            let id = ids[rng.below(ids.len())];
            let bytes = v.bytes(id as u32);
            c.commit(bytes).unwrap_or_else(|e| panic!("a finishing token is allowed: {e}\n{text}"));
            assert!(
                c.lexemes_to_finish() <= before,
                "the plan grew after {:?}:\n{text}",
                String::from_utf8_lossy(bytes)
            );
            text.push_str(std::str::from_utf8(bytes).expect("ASCII vocabulary"));
            tokens += 1;
            assert!(
                tokens <= bound,
                "not finished within {bound} tokens (plan {start} lexemes) after:\n{text}"
            );
        }
        total_tokens += tokens;
        worst = worst.max(tokens);
        let script = check(env.clone(), &text)
            .unwrap_or_else(|e| panic!("finished script rejected at {e}:\n{text}"));
        let lua = to_lua(&script, &Api::dungeon());
        let mut game = Game::new(rng.next_u64()).expect("engine starts");
        game.load(&lua).unwrap_or_else(|e| panic!("{e}\n{lua}"));
        game.run(20, Duration::from_secs(20)).unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
    eprintln!(
        "40 scripts finished: {total_tokens} finishing tokens in all, at most {worst} for one"
    );
}

#[test]
fn the_finishing_mask_is_a_subset_of_the_mask_and_steers_to_the_end() {
    let v = vocab();
    let mut c = espalier_slua::SluaConstraint::new(env());
    c.commit(b"talent Zap;\nhook Do = function(user, target)\n  local n: number = 1").unwrap();
    let mut full = TokenSet::empty(v.len());
    let mut fin = TokenSet::empty(v.len());
    c.fill_mask(&v, &mut full);
    c.fill_finishing_mask(&v, &mut fin);
    assert!(!fin.is_empty() && fin.count() < full.count());
    assert!(fin.iter().all(|id| full.contains(id)));
    // Ending the local is progress; more digits or an operator are not.
    let id = |s: &str| v.tokens().iter().position(|t| t == s.as_bytes()).unwrap();
    assert!(
        fin.contains(id(";")),
        "{:?}",
        fin.iter()
            .map(|i| String::from_utf8_lossy(v.bytes(i as u32)).into_owned())
            .collect::<Vec<_>>()
    );
    assert!(full.contains(id("2")) && !fin.contains(id("2")));
    assert!(full.contains(id("+")) && !fin.contains(id("+")));
    let before = c.lexemes_to_finish();
    c.commit(b";").unwrap();
    assert!(c.lexemes_to_finish() < before);
}

/// Where names of several kinds may be written (`user`, an actor that needs
/// `.pos`, or `target`, a coordinate, as `WithActorAt`'s first argument), the cost of
/// a partly written name must be that of its own kind: scored by the plan of the
/// shortest name of any kind, the finishing mask offered `u`... and then no token
/// lowered the cost (whitespace was offered forever with the real vocabulary).
#[test]
fn a_half_written_name_is_finished_through_its_own_kind() {
    let v = vocab();
    let mut mask = TokenSet::empty(v.len());
    for seed in 0..8 {
        let mut rng = Rng::new(seed);
        let mut c = espalier_slua::SluaConstraint::new(env());
        let mut text = "talent T;\nhook Do = function(user, target)\n  WithActorAt(".to_string();
        c.commit(text.as_bytes()).unwrap();
        for _ in 0..400 {
            c.fill_finishing_mask(&v, &mut mask);
            if c.is_complete() {
                break;
            }
            let ids: Vec<usize> = mask.iter().collect();
            assert!(!ids.is_empty(), "empty finishing mask after:\n{text}");
            let bytes = v.bytes(ids[rng.below(ids.len())] as u32);
            c.commit(bytes).unwrap();
            text.push_str(std::str::from_utf8(bytes).unwrap());
        }
        assert!(c.is_complete(), "not finished within 400 tokens (seed {seed}):\n{text}");
        assert!(
            !text.contains("WithActorAt( u") && !text.contains("WithActorAt(u"),
            "a name of a longer plan was offered: {text}"
        );
        check(env(), &text).unwrap_or_else(|e| panic!("{e}: {text}"));
    }
}
