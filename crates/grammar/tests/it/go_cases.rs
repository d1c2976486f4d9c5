//! Hand-written Go corners (automatic semicolons, comments that end lines, literals,
//! generics, composite literals in statement headers, parameter lists), each with
//! the verdict written down AND checked against `gofmt -e`: the expectation, our
//! recognizer and gofmt must all agree.

use crate::gofmt;

use espalier_grammar::go;
use gofmt::*;

/// (source after `package p\n`, valid?)
const CASES: &[(&str, bool)] = &[
    // semicolons: after identifiers, literals, return, ++, ), ], }
    ("func f() int {\n\treturn 1\n}\n", true),
    ("func f() {\n\tx++\n\ty--\n}\n", true),
    ("func f() { x++ y++ }\n", false),
    ("func f() { return }", true), // at the end of input too
    ("func f()\n{\n}\n", false),   // a newline after ) ends the declaration
    ("func f() {\n\tif x {\n\t}\n\telse {\n\t}\n}\n", false),
    ("func f() {\n\tif x {\n\t} else {\n\t}\n}\n", true),
    ("var x = []int{\n\t1,\n\t2\n}\n", false), // missing comma before newline
    ("var x = []int{\n\t1,\n\t2,\n}\n", true),
    ("var x = f(\n\ta,\n\tb)\n", true),
    ("var x = a +\n\tb\n", true),
    ("var x = a\n\t+ b\n", false),
    ("func f() { for { break }; for { continue } }\n", true),
    ("func f() { switch { case true: fallthrough\n default: } }\n", true),
    ("func f() { switch { case 1: x() case 2: } }\n", false), // ";" needed before case
    ("func f() { switch { case 1: x(); case 2: y() } }\n", true),
    ("func f() { select { case <-c: x() default: } }\n", false),
    ("func f() { switch { case 1: L: case 2: } }\n", false),
    ("func f() { switch { case 1: L: ; case 2: } }\n", true),
    ("func f() { L: }\n", true),
    ("type T struct { a int; b string }\n", true),
    ("type T struct { a int\n b string\n}\n", true),
    // comments: a /* */ comment with a newline acts as a newline
    ("var x = 1 /* one\nline */ var y = 2\n", true),
    ("var x = 1 /* same line */ var y = 2\n", false),
    ("var x = 1 // comment\nvar y = 2\n", true),
    ("var x = 1 /* unterminated\n", false),
    // literals
    ("var s = `raw\nstring \\ with \" quotes`\n", true),
    ("var s = \"line\nbreak\"\n", false),
    ("var r = '\\''\n", true),
    ("var r = '\\\"'\n", false),
    ("var s = \"\\'\"\n", false),
    ("var r = 'ab'\n", false),
    ("var r = '\\u00e9' + '\\U0001F600' + '\\x41' + '\\101'\n", true),
    ("var r = '\\ud800'\n", false), // surrogate
    ("var r = '\\U00110000'\n", false),
    ("var r = '\\400'\n", false), // octal escape > 255
    ("var r = '\\q'\n", false),
    ("var f = 0x1p-2 + 0X.8p1 + 0x1.8p+3 + 1e10 + .5 + 1. + 1_000.5e-3\n", true),
    ("var f = 0x1.8\n", false), // hex mantissa needs an exponent
    ("var i = 1i + 0i + 0x1i + 1.5i + 0b101i + 0o17i + 017i + 1e3i\n", true),
    ("var n = 0b1010 + 0o17 + 017 + 0xFF + 1_000_000 + 0_7\n", true),
    ("var n = 1__0\n", false),
    ("var n = 0x_1 + 0b_1 + 0o_7\n", true),
    ("var n = 08\n", false),
    ("var n = 08.5 + 09i\n", true),
    // generics
    ("func Map[T, U any](s []T, f func(T) U) []U { return nil }\n", true),
    ("type List[T any] struct { next *List[T]; v T }\n", true),
    ("type Number interface { ~int | ~int64 | float64 }\n", true),
    ("func (l *List[T]) Len() int { return 0 }\n", true),
    ("var x = Map[int, string](nil, nil)\n", true),
    ("type A [N]int\n", true),
    ("type A[P any] [N]P\n", true),
    ("func f[]() {}\n", false),
    ("type T[P any, Q comparable,] struct{}\n", true),
    // composite literals in statement headers need parentheses (name, selector, index)
    ("func f() { if x == (T{}) {} }\n", true),
    ("func f() { if x == T{} {} }\n", false),
    ("func f() { for _, v := range []int{1, 2} { _ = v } }\n", true),
    ("func f() { switch s := (S{a: 1}); s.a { case 1: } }\n", true),
    ("func f() { if f(T{}) {} }\n", true),
    // parameter lists: all named or all unnamed
    ("func f(a, b int, c string) {}\n", true),
    ("func f(int, string) {}\n", true),
    ("func f(a int, string) {}\n", false),
    ("func f(a, b) {}\n", true),
    ("func f(a ...int) {}\n", true),
    ("func f(a []int, b [4]int, c map[string]int) {}\n", true),
    // statements
    ("func f() { a, b := 1, 2; a.b := 3 }\n", false),
    ("func f() { for k, v := range m {}; for range m {}; for i := 0; i < n; i++ {} }\n", true),
    ("func f() { for a, b, c := range m {} }\n", false),
    ("func f() { switch x := y.(type) { case int, []string: default: } }\n", true),
    ("func f() { select { case v := <-c: _ = v; case c <- 1: default: } }\n", true),
    ("func f() { go f(); defer g() }\n", true),
    ("func f() { go (f()) }\n", false),
    ("func f() { L: for { break L }; goto L }\n", true),
    ("func f() { x := []byte(s); y := (*T)(p); z := <-chan int(nil); _, _, _ = x, y, z }\n", true),
    ("func f() { var x [...]int; _ = [...]int{1, 2} }\n", true),
    ("func f() { _ = struct{}{}; _ = map[string][]int{\"a\": {1}} }\n", true),
    ("import \"a b\"\n", false),
    ("import (\n\t\"fmt\"\n\tm \"math\"\n\t. \"strings\"\n\t_ \"os\"\n)\n", true),
];

#[test]
fn go_cases_agree_with_gofmt_and_expectations() {
    let go = go().unwrap();
    let texts: Vec<Vec<u8>> =
        CASES.iter().map(|(src, _)| format!("package p\n{src}").into_bytes()).collect();
    let oracle = gofmt_texts(&texts);
    let mut bad = Vec::new();
    for (((src, expected), text), g) in CASES.iter().zip(&texts).zip(&oracle) {
        let o = ours(&go, text);
        if o.is_ok() != *expected || *g != *expected {
            bad.push(format!("{src:?}: expected {expected}, gofmt {g}, ours {:?}", o.err()));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Texts gofmt -e accepts and we refuse on purpose (the grammar's list of deliberate
/// differences, `grammars/go.lark`): the specification refuses them.
const DELIBERATE: &[&str] = &["func f() { goto }\n", "func f() {\n\tgoto\n}\n"];

#[test]
fn deliberate_differences_from_gofmt() {
    let go = go().unwrap();
    let texts: Vec<Vec<u8>> =
        DELIBERATE.iter().map(|src| format!("package p\n{src}").into_bytes()).collect();
    let oracle = gofmt_texts(&texts);
    for ((src, text), g) in DELIBERATE.iter().zip(&texts).zip(&oracle) {
        assert!(*g, "{src:?}: gofmt -e now refuses it: not a difference any more");
        assert!(ours(&go, text).is_err(), "{src:?}: we accept it");
    }
}

#[test]
fn semicolon_layer_is_exact_on_newlines() {
    let go = go().unwrap();
    // after `x +` a newline is ignored; after `x` it inserts ";" which `+` cannot follow
    let mut r = go.recognizer();
    r.push_bytes(b"package p\nvar y = x +").unwrap();
    assert!(r.clone().push_bytes(b"\n1\n").is_ok());
    let mut r = go.recognizer();
    r.push_bytes(b"package p\nfunc f() { go f").unwrap();
    // a newline here would insert ";" where `go` needs a call: refused at the newline
    let e = r.clone().push_bytes(b"\n").unwrap_err();
    assert_eq!(e.offset, 25);
    // and a block comment with a newline is refused at its first newline byte
    assert!(r.clone().push_bytes(b" /* a */ ()}").is_ok());
    assert!(r.clone().push_bytes(b" /* a \n").is_err());
    // nothing pending after `(`: newlines are free
    assert!(r.clone().push_bytes(b"(\n\n)\n}\n").is_ok());
    // a line comment ends at a newline (or the end): refused where ";" cannot come,
    // at its first byte; a `/` (division) or a block comment may still come there
    let mut r = go.recognizer();
    r.push_bytes(b"package p\nfunc f() int {\n\treturn [2][0]").unwrap();
    assert!(r.clone().push_bytes(b" // a type must follow").is_err());
    assert!(r.clone().push_bytes(b" /* a */ int{}\n}\n").is_ok());
    let mut r = go.recognizer();
    r.push_bytes(b"package p\nfunc f() int {\n\treturn 2").unwrap();
    assert!(r.clone().push_bytes(b" // a comment ends the line\n}\n").is_ok());
    assert!(r.clone().push_bytes(b" / 2 //").is_ok());
    // the end of input inserts the last semicolon
    let mut r = go.recognizer();
    r.push_bytes(b"package p").unwrap();
    assert!(r.is_complete());
}
