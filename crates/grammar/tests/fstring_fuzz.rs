//! f-strings against CPython 3.11's `ast.parse`: seeded random literals built from
//! replacement fields (nested quotes of both kinds, nested f-strings, brackets, `!=`
//! and `==`, `!r`, `=`, format specs with nested fields, lambdas, walrus) and broken
//! pieces (a lone `}`, an open field, the enclosing quote inside a field, `#`, `\`).
//!
//! Checked at every prefix of `x = <literal>` that ends in a quote byte:
//! - the recognizer calls the prefix a complete program iff `ast.parse` accepts it;
//! - no dead end: when the recognizer accepts the prefix and its unfinished lexeme
//!   is a whole string literal, the prefix is complete (the literal is the last
//!   thing `x = ...` needs). Before the f-string closing check, `x = f"{a("` was
//!   accepted with the literal read, and no byte could follow it (issue 13's
//!   BOUNDARY 328 / RANDSPAN 339 `dead_end`).

mod common;

use common::Rng;
use espalier_grammar::python;

const EXPRS: &[&str] = &[
    "a", " a ", "a.b(c)", "a[1:2]", "a!=b", "a==b", "a<b", "a>=b<c", "{1: 2}[1]", "(x:=1)", "(lambda x: 1)",
    "[a for a in b]", "a if b else c", "a, b", "yield", "{'k': v}['k']", "a(b=1)", "not a", "-a", "{a}",
];
/// Expressions an f-string field refuses (or that leave it open).
const BAD_EXPRS: &[&str] = &[
    "x:=1", "lambda x: 1", "*a", "a(", "a)", "", " ", "a b", "a#b", "a\\n", "a[", "a.", "1+", "a!", "a=", "a!=",
    "(a", "a]",
];
const SPECS: &[&str] = &["", ">10", "{w}", "{w}.{p}", "{w:{x}}", "{w!r}", "x}", "{", "{{", "}}", "{}", "=^8"];
const CONVS: &[&str] = &["", "", "", "", "", "!r", "!s", "!a", "!x", "!", "!r ", "!rr"];
const LITS: &[&str] = &["a", " ", "{{", "}}", "}", "{", "\\{", "\\N{BULLET}", "#", ":", "!", "\\n", "é"];
const PREFIXES: &[&str] = &["f", "F", "rf", "fR", "Rf", "f", "f"];
const QUOTES: &[&str] = &["\"", "'", "\"\"\"", "'''", "\"", "'"];

/// An expression from the pool, or a string nested in it: the other quote kind, the
/// enclosing one (which ends the literal early), a nested f-string, a triple quote.
fn expr(rng: &mut Rng, q: u8) -> String {
    let other = if q == b'"' { '\'' } else { '"' };
    let same = q as char;
    match rng.below(9) {
        0 => format!("{other}s{other}"),
        1 => format!("a + {same}s{same}"),
        2 => format!("f{other}{{b{}}}{other}", ["", "!r", ":>3", "="][rng.below(4)]),
        3 => format!("{other}{other}{other}t{other}{other}{other}"),
        4 => format!("{other}:{{}}{other}.join(x)"),
        5 => BAD_EXPRS[rng.below(BAD_EXPRS.len())].to_string(),
        _ => EXPRS[rng.below(EXPRS.len())].to_string(),
    }
}

fn field(rng: &mut Rng, q: u8) -> String {
    let mut s = String::from("{");
    s += &expr(rng, q);
    if rng.below(5) == 0 {
        s += ["=", " = ", "="][rng.below(3)];
    }
    s += CONVS[rng.below(CONVS.len())];
    if rng.below(3) == 0 {
        s.push(':');
        s += SPECS[rng.below(SPECS.len())];
    }
    if rng.below(12) != 0 {
        s.push('}');
    }
    s
}

fn literal(rng: &mut Rng) -> String {
    let prefix = PREFIXES[rng.below(PREFIXES.len())];
    let quote = QUOTES[rng.below(QUOTES.len())];
    let mut body = String::new();
    for _ in 0..1 + rng.below(3) {
        if rng.below(4) == 0 {
            body += LITS[rng.below(LITS.len())];
        } else {
            body += &field(rng, quote.as_bytes()[0]);
        }
    }
    if rng.below(6) == 0 {
        let mut cut = rng.below(body.len() + 1);
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        body.truncate(cut);
    }
    format!("{prefix}{quote}{body}{quote}")
}

/// What the recognizer says of `text`: (viable, complete, viable with a whole string
/// literal as its unfinished lexeme).
fn ours(lang: &std::sync::Arc<espalier_grammar::Language>, text: &[u8]) -> (bool, bool, bool) {
    let mut r = lang.recognizer();
    if !r.try_push_bytes(text) {
        return (false, false, false);
    }
    let string = lang.python.as_ref().and_then(|p| p.string);
    let rem = r.remainder();
    let read = rem.len > 0 && lang.dfa.winners(rem.dfa_state).first().copied() == string;
    (true, r.is_complete(), read)
}

#[test]
fn fstrings_agree_with_cpython_at_every_closing_quote() {
    common::require_oracle();
    let lang = python().unwrap();
    let n = if common::slow() { 20_000 } else { 3_000 };
    let mut rng = Rng(0xF5_7217_6013);
    let mut texts: Vec<Vec<u8>> = Vec::new();
    for _ in 0..n {
        let t = format!("x = {}", literal(&mut rng)).into_bytes();
        for k in 5..=t.len() {
            if matches!(t[k - 1], b'"' | b'\'') {
                texts.push(t[..k].to_vec());
            }
        }
    }
    texts.sort();
    texts.dedup();
    let verdicts = common::oracle(&texts);
    let (mut accepted, mut differ, mut dead) = (0, Vec::new(), Vec::new());
    for (t, v) in texts.iter().zip(&verdicts) {
        let Some(cpython) = *v else { continue };
        let (_, complete, read) = ours(&lang, t);
        accepted += cpython as usize;
        if complete != cpython {
            differ.push(format!("{:?}: ast.parse {cpython}, ours {complete}", String::from_utf8_lossy(t)));
        }
        if read && !complete {
            dead.push(format!("{:?}", String::from_utf8_lossy(t)));
        }
    }
    eprintln!("f-string fuzz: {} prefixes ({accepted} accepted by ast.parse), {} differ, {} dead ends", texts.len(), differ.len(), dead.len());
    // Most prefixes end at a nested string's quote (`x = f"{'s`): a few are programs.
    assert!(accepted > texts.len() / 20 && accepted < texts.len() / 2, "the fuzz should mix valid and invalid: {accepted} of {}", texts.len());
    assert!(differ.is_empty(), "{} differ:\n{}", differ.len(), differ[..differ.len().min(30)].join("\n"));
    assert!(dead.is_empty(), "{} dead ends (viable, literal read, not complete):\n{}", dead.len(), dead[..dead.len().min(30)].join("\n"));
}

#[test]
fn the_quote_closing_an_open_field_is_refused() {
    let lang = python().unwrap();
    // BOUNDARY 328 (fix_parrot.py) and RANDSPAN 339 (tf_inherit_check.py): the
    // enclosing quote inside a replacement field ends the literal in Python 3.11.
    for (prefix, quote) in [("x = f\"{name.replace(Name(", b'"'), ("print(f'{a[", b'\''), ("x = f\"\"\"{a(\"\"", b'"')] {
        let mut r = lang.recognizer();
        assert!(r.try_push_bytes(prefix.as_bytes()), "{prefix} is viable");
        assert!(!r.clone().try_push_byte(quote), "{prefix} + {} must be refused", quote as char);
        let other = if quote == b'"' { b'\'' } else { b'"' };
        assert!(r.clone().try_push_byte(other), "{prefix}: the other quote kind opens a nested string");
    }
    // Kept: nested quotes of the other kind, nested f-strings, specs, conversions, `=`.
    for ok in ["x = f\"{a['b']!r:>{w}}\"", "x = f'{f\"{b=}\"}'", "x = f\"\"\"{\"a\"}\"\"\"", "x = rf\"{a!=b=}\""] {
        let mut r = lang.recognizer();
        assert!(r.try_push_bytes(ok.as_bytes()) && r.is_complete(), "{ok}");
    }
}
