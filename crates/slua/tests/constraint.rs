//! The constraint's masks are exact: at every step of replaying valid scripts, a token
//! is in the mask exactly when committing it (byte by byte, no caches) succeeds, over
//! a synthetic vocabulary rich in boundary-crossing tokens (`x,`, `);`, whitespace
//! runs, keywords with spaces). EOS is allowed exactly at the end.

use std::rc::Rc;

use espalier_constraint::{Constraint, TokenSet, Vocab};
use espalier_slua::{Api, Env, SluaConstraint};

fn vocab() -> Vocab {
    let mut toks: Vec<Vec<u8>> = vec![b"<eos>".to_vec()];
    let printable: Vec<u8> = (32u8..127).chain([b'\n', b'\t']).collect();
    for &a in &printable {
        toks.push(vec![a]);
        for &b in &printable {
            if a.is_ascii_alphanumeric() != b.is_ascii_alphanumeric() || !a.is_ascii_alphanumeric() {
                toks.push(vec![a, b]);
            }
        }
    }
    for w in ["talent", "effect", "hook", "function", "local", "return", "end", "then", "do", "while", "for", "if", "else",
        "elseif", "not", "and", "or", "true", "false", "user", "target", "data", "owner", "power", "Damage", "Player", "pos",
        "NumStr", "GetDescription", "OnTurnEnd", "Do", "number", "string", "WithActorAt", "Burning", "victim", "hp"] {
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

#[test]
fn masks_equal_the_tokens_that_commit() {
    let v = vocab();
    // One script keeps this under half a minute in release mode; `mask_speed` with
    // VERIFY=1 does the same over the real vocabulary.
    let scripts = [include_str!("scripts/valid/11_firebolt.slua")];
    for script in scripts {
        let env = Rc::new(Env::new(Api::dungeon(), vec!["Burning".into()]));
        let mut c = SluaConstraint::new(env);
        let mut mask = TokenSet::empty(v.len());
        let mut rest = script.trim_end().as_bytes();
        while !rest.is_empty() {
            c.fill_mask(&v, &mut mask);
            assert!(!mask.contains(v.eos() as usize));
            for id in 0..v.len() as u32 {
                if v.is_special(id) {
                    continue;
                }
                let truth = c.clone().commit(v.bytes(id)).is_ok();
                assert_eq!(truth, mask.contains(id as usize), "token {:?} before {:?}", String::from_utf8_lossy(v.bytes(id)), String::from_utf8_lossy(&rest[..rest.len().min(30)]));
                assert_eq!(truth, c.allows(v.bytes(id)));
            }
            let best = mask
                .iter()
                .filter(|&id| rest.starts_with(v.bytes(id as u32)))
                .max_by_key(|&id| v.bytes(id as u32).len())
                .expect("the script's next bytes are allowed");
            c.commit(v.bytes(best as u32)).unwrap();
            rest = &rest[v.bytes(best as u32).len()..];
        }
        c.fill_mask(&v, &mut mask);
        assert_eq!(mask.iter().collect::<Vec<_>>(), vec![v.eos() as usize]);
    }
}
