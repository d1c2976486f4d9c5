//! The wrap-up against the Go grammar constraint: a random model wanders under the
//! exact mask after `package p\n\nfunc f() {\n`, then is offered only the finishing
//! mask; it must end with EOS (the file complete) within the budget, and Go's own
//! parser (`gofmt -e`) must accept what it wrote (the guarantee `espalier eval
//! humaneval-go --wrap-up N` leans on). The checks are every grammar language's
//! (`grammar_wrap_up`); Python's run in `wrap_up_python`.

use crate::common;
use crate::grammar_wrap_up;

use grammar_wrap_up::{wrapping_up_finishes, Fixture};

#[test]
fn wrapping_up_finishes_go_that_gofmt_accepts() {
    wrapping_up_finishes(&Fixture {
        lang: "go",
        left_out: b"",
        lexemes: &[
            "func", " return", "\n\t", "if", " else", "for", " range", ":=", "`", "/*", "//", "0x",
            "struct", "{\n",
        ],
        prompt: "package p\n\nfunc f() {\n",
        valid: "package p\n",
        oracle: ("/usr/bin/go", "the Go toolchain (go, gofmt)", "apt-get install golang-go"),
    });
}
