//! The wrap-up against the Python grammar constraint: a random model wanders under the
//! exact mask, then is offered only the finishing mask; it must end with EOS (the
//! program complete) within the budget, and CPython's `ast.parse` must accept what it
//! wrote (the guarantee `espalier eval humaneval --wrap-up N` leans on). The checks are
//! every grammar language's (`grammar_wrap_up`); Go's run in `wrap_up_go`.

use crate::common;
use crate::grammar_wrap_up;

use grammar_wrap_up::{wrapping_up_finishes, Fixture};

#[test]
fn wrapping_up_finishes_python_that_ast_parse_accepts() {
    wrapping_up_finishes(&Fixture {
        lang: "python",
        // No `{`: a random walk soon writes an f-string whose replacement field is
        // already broken (`f"{)`), which the recognizer lets through until the closing
        // quote (it checks fields there) and which no text can complete, so no wrap-up
        // can either.
        left_out: b"{",
        lexemes: &[
            "def", " return", "    ", "\n    ", "if", " else", "lambda", "\"\"\"", "(x", "):",
            "for", " in",
        ],
        prompt: "",
        valid: "pass\n",
        oracle: (
            "/usr/bin/python3.11",
            "the ast.parse oracle (python3.11)",
            "bash scripts/setup.sh",
        ),
    });
}
