//! Soundness on real code: CPython files tokenized with the SmolLM2 tokenizer are fed
//! token by token; at every step the file's true next token must be allowed (by the
//! mask for `exact` and `syncode`, by `allows` for `check`); the mask's EOS bit must
//! equal "the text so far is a complete program" (so EOS is allowed at the end, and
//! mid-file only where the prefix is itself a whole program). Zero violations. The
//! checks are every grammar language's (`common::masks`); Go's run in `go_masks`.
//!
//! CI runs a fixed sample; `ESPALIER_SLOW=1 cargo nextest run --release -p
//! espalier-constraint --test soundness` runs a sample about five times larger.

use crate::common;

use common::masks::{snippets_are_sound, true_next_token_is_always_allowed, Rejected};

#[test]
fn true_next_token_is_always_allowed_on_cpython_files() {
    // Files our grammar rejects are skipped (and listed): the grammar's corpus suite
    // accounts for them.
    true_next_token_is_always_allowed(
        &common::PYTHON,
        (80, 12_000),
        (25, 30_000),
        3,
        Rejected::Skip,
    );
}

/// Hand-picked corners: remainders that split into several lexemes (`..` is `.` `.`
/// unless a third dot comes), indentation inside tokens, f-strings, soft keywords.
#[test]
fn tricky_snippets_are_sound_for_every_strategy() {
    snippets_are_sound(
        &common::PYTHON,
        &[
            "from .. import x\n",
            "from ... import y\n",
            "x = 1..real\n",
            "if x:\n    pass\nelse:\n    y = 'a'  # c\n",
            "def f(a, /, *b, **c) -> None: ...\n",
            "s = f'{x!r:>{w}}'\n",
            "match p:\n    case [1, *rest]:\n        pass\n",
            "class A:\n\tdef g(self):\n\t\treturn (yield)\n",
        ],
    );
}
