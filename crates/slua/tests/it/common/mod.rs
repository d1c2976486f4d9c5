//! Shared by the constraint and finishing tests: a synthetic vocabulary rich in
//! boundary-crossing tokens, and states taken from random walks.

#![allow(dead_code)]

use std::rc::Rc;

use espalier_constraint::{Constraint, Vocab};
use espalier_slua::walker::{walk, Rng, WalkConfig};
use espalier_slua::{Api, Env, SluaConstraint};

/// Single printable bytes, pairs mixing identifier and other bytes, API and keyword
/// words with leading whitespace or a dot and trailing punctuation, whitespace runs.
pub fn vocab() -> Vocab {
    let mut toks: Vec<Vec<u8>> = vec![b"<eos>".to_vec()];
    let printable: Vec<u8> = (32u8..127).chain([b'\n', b'\t']).collect();
    for &a in &printable {
        toks.push(vec![a]);
        for &b in &printable {
            if a.is_ascii_alphanumeric() != b.is_ascii_alphanumeric() || !a.is_ascii_alphanumeric()
            {
                toks.push(vec![a, b]);
            }
        }
    }
    for w in [
        "talent",
        "effect",
        "hook",
        "function",
        "local",
        "return",
        "end",
        "then",
        "do",
        "while",
        "for",
        "if",
        "else",
        "elseif",
        "not",
        "and",
        "or",
        "true",
        "false",
        "user",
        "target",
        "data",
        "owner",
        "power",
        "Damage",
        "Player",
        "pos",
        "NumStr",
        "GetDescription",
        "OnTurnEnd",
        "Do",
        "number",
        "string",
        "WithActorAt",
        "Burning",
        "victim",
        "hp",
    ] {
        for pre in ["", " ", "\n", "  ", "."] {
            for post in ["", "(", ")", ",", ";", " ", "()", ");", "(\n", ":", " ="] {
                toks.push(format!("{pre}{w}{post}").into_bytes());
            }
        }
    }
    for n in 1..12 {
        toks.push(" ".repeat(n).into_bytes());
        toks.push(format!("\n{}", " ".repeat(n)).into_bytes());
    }
    toks.sort();
    toks.dedup();
    let eos = toks.iter().position(|t| t == b"<eos>").unwrap() as u32;
    Vocab::new(toks, &[eos], eos)
}

/// `n` constraints at random points of random-walk scripts (cut at a random byte),
/// with the text committed so far; each walk starts from a fresh tree over `env`.
pub fn walk_states(env: &Rc<Env>, n: usize, seed: u64) -> Vec<(SluaConstraint, String)> {
    let mut rng = Rng::new(seed);
    let cfg = WalkConfig { soft_len: 60, ..WalkConfig::default() };
    let mut out = Vec::new();
    while out.len() < n {
        let w = walk(env.clone(), &mut rng, &cfg);
        assert!(w.finished, "the walker finishes:\n{}", w.text);
        let cut = rng.below(w.text.len() + 1);
        if !w.text.is_char_boundary(cut) {
            continue;
        }
        let prefix = &w.text[..cut];
        let mut c = SluaConstraint::new(env.clone());
        c.commit(prefix.as_bytes()).expect("a walk prefix is accepted");
        out.push((c, prefix.to_string()));
    }
    out
}

/// The dungeon API with no effects registered.
pub fn env() -> Rc<Env> {
    Rc::new(Env::new(Api::dungeon(), vec![]))
}
