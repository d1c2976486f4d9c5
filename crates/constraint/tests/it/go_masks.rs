//! The mask strategies on Go (automatic semicolons in the lexer layer): soundness
//! on standard-library files tokenized with the SmolLM2 tokenizer (the true next
//! token is always allowed, EOS exactly when the text is a complete file) for
//! `exact`, `syncode` and `check`; exactness of `exact` against the brute-force
//! viable-prefix oracle at random positions for 2000 sampled tokens; `syncode`
//! never under-approximates. Tokens that span a newline (where a semicolon may be
//! inserted) are the interesting ones; the snippets test pins some down.
//!
//! `ESPALIER_SLOW=1` runs larger samples.

use crate::common;

use common::masks::{
    exact_masks_equal_the_brute_force_oracle, snippets_are_sound,
    true_next_token_is_always_allowed, Exactness, Rejected,
};
use espalier_constraint::{Constraint, Strategy, TokenSet};

#[test]
fn true_next_token_is_always_allowed_on_go_files() {
    // Every file of the sample must be accepted.
    true_next_token_is_always_allowed(&common::GO, (400, 6_000), (60, 20_000), 5, Rejected::Fail);
}

#[test]
fn exact_go_masks_equal_the_brute_force_oracle() {
    exact_masks_equal_the_brute_force_oracle(
        &common::GO,
        &Exactness {
            seed: 0x60_5EED,
            positions_per_file: (10, 40),
            stride: (350, 80),
            first: 11,
            max_bytes: 20_000,
            rejected: Rejected::Fail,
            newline_tokens: true,
        },
    );
}

/// Corners of the semicolon layer, for every strategy: the true tokens of each
/// snippet are allowed, EOS at the end; and after `go f` no newline-bearing token
/// is allowed by `exact` (a newline would insert ";" where a call must continue).
#[test]
fn go_semicolon_snippets_for_every_strategy() {
    snippets_are_sound(
        &common::GO,
        &[
            "package p\n\nfunc f() int {\n\treturn 1\n}\n",
            "package p\n\nvar x = []int{\n\t1,\n\t2,\n}\n",
            "package p\n\nfunc f() {\n\tx++ /* a\n\tcomment */\n\tgo g()\n}\n",
            "package p\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(`raw\n`, 'x', 1.5i, 0x1p-2) }",
            "package p\n\ntype T[P any] struct{ v P }\n",
        ],
    );
    let (tok, vocab, trie) = common::smollm2();
    let kit = common::GO.kit(&trie);
    let mut mask = TokenSet::empty(vocab.len());
    let mut c = common::go_constraint(&kit, Strategy::Exact, None);
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
