//! Malformed grammars get errors naming line, column and problem; grammars that are
//! not LR(1) get conflicts naming rule, lookahead and both actions; LALR(1) vs LR(1)
//! is selectable.

use espalier_grammar::{GrammarError, Language, LanguageOptions, Pos, TableKind};

fn compile(src: &str, table: TableKind) -> Result<(), GrammarError> {
    Language::compile(src, &LanguageOptions { table, ..Default::default() }).map(|_| ())
}

#[test]
fn syntax_errors_carry_positions() {
    let cases: &[(&str, u32, u32, &str)] = &[
        ("start: \"a\"\n  | \n", 0, 0, ""), // empty alternative is allowed
        ("start: \"a\" )\n", 1, 12, "end of the line"),
        ("start: (\"a\"\n", 2, 1, "`)`"),
        ("start: [\"a\"\n", 2, 1, "`]`"),
        ("start \"a\"\n", 1, 7, "expected `:`"),
        ("start: /abc\n", 1, 8, "unterminated regular expression"),
        ("start: \"ab\n", 1, 8, "unterminated string"),
        ("start: \"a\" ~ x\n", 1, 14, "count after `~`"),
        ("start: \"a\"\n%import common.WS\n", 2, 1, "unsupported directive"),
        ("start: \"a\"\n$\n", 2, 1, "unexpected character"),
        ("start: \"\\q\"\n", 1, 9, "unknown escape"),
    ];
    for &(src, line, col, msg) in cases {
        let r = compile(src, TableKind::Lr1);
        if msg.is_empty() {
            assert!(r.is_ok(), "{src:?}: {r:?}");
            continue;
        }
        match r {
            Err(GrammarError::Syntax { pos, message }) => {
                assert_eq!(pos, Pos { line, col }, "{src:?}: {message}");
                assert!(message.contains(msg), "{src:?}: {message}");
            }
            other => panic!("{src:?}: expected a syntax error, got {other:?}"),
        }
    }
}

#[test]
fn semantic_errors_name_the_culprit() {
    assert_eq!(
        compile("start: a\n", TableKind::Lr1),
        Err(GrammarError::Undefined { pos: Pos { line: 1, col: 8 }, name: "a".into() })
    );
    assert_eq!(
        compile("start: \"a\"\nstart: \"b\"\n", TableKind::Lr1),
        Err(GrammarError::Duplicate { pos: Pos { line: 2, col: 1 }, name: "start".into() })
    );
    let e = compile("start: A\nA: /a?/\n", TableKind::Lr1).unwrap_err();
    assert!(
        matches!(&e, GrammarError::BadTerminal { name, message } if name == "A" && message.contains("empty")),
        "{e}"
    );
    let e = compile("start: A\nA: B\nB: A\n", TableKind::Lr1).unwrap_err();
    assert!(e.to_string().contains("in terms of itself"), "{e}");
    let e = compile("start: A\nA: b\nb: \"x\"\n", TableKind::Lr1).unwrap_err();
    assert!(e.to_string().contains("is a rule"), "{e}");
}

#[test]
fn conflicts_are_reported_and_lalr_is_selectable() {
    // LR(1) but not LALR(1)
    let g = "start: \"a\" e \"c\" | \"a\" f \"d\" | \"b\" e \"d\" | \"b\" f \"c\"\ne: \"e\"\nf: \"e\"\n";
    assert!(compile(g, TableKind::Lr1).is_ok());
    assert!(compile(g, TableKind::Pager).is_ok());
    let Err(GrammarError::Conflicts(cs)) = compile(g, TableKind::Lalr1) else {
        panic!("LALR must conflict")
    };
    let text = cs.iter().map(|c| c.to_string()).collect::<Vec<_>>().join("\n");
    assert!(text.contains("reduce e: \"e\"") && text.contains("reduce f: \"e\""), "{text}");
    // ambiguous: dangling else
    let g = "start: s\ns: \"if\" s | \"if\" s \"else\" s | \"x\"\n";
    let Err(GrammarError::Conflicts(cs)) = compile(g, TableKind::Lr1) else {
        panic!("dangling else must conflict")
    };
    let c = &cs[0];
    assert_eq!(c.lookahead, "\"else\"");
    assert_eq!(c.rule, "s");
    assert!(c.first.starts_with("shift") || c.second.starts_with("shift"), "{c}");
    assert!(
        c.first.starts_with("reduce s: \"if\" s") || c.second.starts_with("reduce s: \"if\" s"),
        "{c}"
    );
}

#[test]
fn python_tables_sizes() {
    let lr1 = espalier_grammar::python_with(TableKind::Lr1).unwrap();
    let pager = espalier_grammar::python_with(TableKind::Pager).unwrap();
    assert!(pager.table.stats.states < lr1.table.stats.states);
    assert!(lr1.table.exact_errors && !pager.table.exact_errors);
    // the Python grammar is LR(1) but not LALR(1): the LALR merge of target / expression
    // states makes a spurious reduce/reduce conflict
    let e = espalier_grammar::python_with(TableKind::Lalr1).unwrap_err();
    assert!(matches!(e, GrammarError::Conflicts(_)), "{e}");
}
