//! The wrap-up against the real sLua tree of parsers: from any point of a script a
//! random model that is only offered the finishing mask ends the script, and what it
//! wrote type-checks, translates and runs (the guarantee `espalier eval slua` leans
//! on when a budget runs low or the model loops).

use crate::common;

use std::sync::Arc;

use common::HashModel;
use espalier_constraint::Vocab;
use espalier_decode::languages::slua::slua_constraint;
use espalier_decode::{run, Generator, StopReason};
use espalier_lab::harness::slua::{check_and_run, ScriptOutcome};

/// Printable ASCII, newline and a few common multi-byte lexemes; id 0 is EOS.
fn byte_vocab() -> Vocab {
    let mut all = vec![b"<eos>".to_vec()];
    all.extend((0x20u8..0x7f).map(|b| vec![b]));
    all.push(b"\n".to_vec());
    for t in [
        "local", " end", "function", " then", "  ", "\n  ", "(target", "Damage", "effect", "talent",
    ] {
        all.push(t.as_bytes().to_vec());
    }
    Vocab::new(all, &[0], 0)
}

#[test]
fn wrapping_up_finishes_effects_and_talents_that_then_run() {
    let vocab = Arc::new(byte_vocab());
    for (kind, wander) in [("effect", 0), ("effect", 30), ("talent", 0), ("talent", 40)] {
        for seed in 0..3 {
            // Wander freely for `wander` tokens, then wrap up within 600 tokens.
            let config = common::wander_then_wrap_up(seed, wander, 600);
            let mut model = HashModel::new(vocab.len());
            // The finishing mask reaches the loop through `LangConstraint`'s delegation.
            let mut g =
                Generator::new(vocab.clone(), slua_constraint(kind, Vec::new()), &[1], config)
                    .unwrap();
            run(&mut g, &mut model, |_, _| {}).unwrap();
            let what = format!("{kind} wander {wander} seed {seed}: {:?}", g.text());
            assert_eq!(g.stop_reason(), Some(&StopReason::Eos), "{what}");
            assert_eq!(g.stats().wrap_up_from, Some(wander), "{what}");
            let (outcome, _) = check_and_run(&g.text(), &[], 20, seed);
            assert!(matches!(outcome, ScriptOutcome::Ran { .. }), "{what}: {outcome:?}");
        }
    }
}
