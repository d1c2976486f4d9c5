//! Soundness on real code, for every grammar language ([`common::LANGS`]): standard
//! library files tokenized with the SmolLM2 tokenizer are fed token by token; at every
//! step the file's true next token must be allowed (by the mask for `exact` and
//! `syncode`, by `allows` for `check`); the mask's EOS bit must equal "the text so far
//! is a complete program" (so EOS is allowed at the end, and mid-file only where the
//! prefix is itself a whole program). Zero violations. Also hand-picked corners per
//! language. The checks are `common::masks`'; each language's sizes and corners are
//! [`CASES`].
//!
//! CI runs a fixed sample; `ESPALIER_SLOW=1 cargo nextest run --release -p
//! espalier-constraint -E 'test(/^soundness::/)'` runs samples about five times larger.

use crate::common::{self, GrammarLang};
use common::masks::{snippets_are_sound, true_next_token_is_always_allowed, Rejected};
use espalier_constraint::{Constraint, Strategy, TokenSet};

/// One language's soundness run.
struct Case {
    lang: &'static GrammarLang,
    /// The sample's (stride, largest file) in CI and under `ESPALIER_SLOW=1`.
    ci: (usize, usize),
    slow: (usize, usize),
    /// The sample's first file.
    first: usize,
    /// What a sampled file the grammar rejects does.
    rejected: Rejected,
    /// Hand-picked corners, sound for every strategy.
    snippets: &'static [&'static str],
}

const CASES: [Case; 2] = [
    Case {
        lang: &common::PYTHON,
        ci: (80, 12_000),
        slow: (25, 30_000),
        first: 3,
        // The grammar's corpus suite accounts for the files it rejects.
        rejected: Rejected::Skip,
        // Remainders that split into several lexemes (`..` is `.` `.` unless a third dot
        // comes), indentation inside tokens, f-strings, soft keywords.
        snippets: &[
            "from .. import x\n",
            "from ... import y\n",
            "x = 1..real\n",
            "if x:\n    pass\nelse:\n    y = 'a'  # c\n",
            "def f(a, /, *b, **c) -> None: ...\n",
            "s = f'{x!r:>{w}}'\n",
            "match p:\n    case [1, *rest]:\n        pass\n",
            "class A:\n\tdef g(self):\n\t\treturn (yield)\n",
        ],
    },
    Case {
        lang: &common::GO,
        ci: (400, 6_000),
        slow: (60, 20_000),
        first: 5,
        // Every file of the sample must be accepted.
        rejected: Rejected::Fail,
        // Corners of the semicolon layer.
        snippets: &[
            "package p\n\nfunc f() int {\n\treturn 1\n}\n",
            "package p\n\nvar x = []int{\n\t1,\n\t2,\n}\n",
            "package p\n\nfunc f() {\n\tx++ /* a\n\tcomment */\n\tgo g()\n}\n",
            "package p\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(`raw\n`, 'x', 1.5i, 0x1p-2) }",
            "package p\n\ntype T[P any] struct{ v P }\n",
        ],
    },
];

#[test]
fn true_next_token_is_always_allowed_on_standard_library_files() {
    common::each_lang(
        &CASES,
        |c| c.lang,
        |c| true_next_token_is_always_allowed(c.lang, c.ci, c.slow, c.first, c.rejected),
    );
}

#[test]
fn tricky_snippets_are_sound_for_every_strategy() {
    common::each_lang(&CASES, |c| c.lang, |c| snippets_are_sound(c.lang, c.snippets));
}

/// After `go f` no newline-bearing token is allowed by `exact` (a newline would insert
/// ";" where a call must continue), and `(` is.
#[test]
fn no_newline_after_a_go_statement_s_callee() {
    let (tok, vocab, trie) = common::smollm2();
    let kit = common::GO.kit(&trie);
    let mut mask = TokenSet::empty(vocab.len());
    let mut c = common::GO.constraint(&kit, Strategy::Exact, None);
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
