//! The wrap-up against every grammar language of the registry with a finishing mask
//! (Python, Go: [`FIXTURES`]): a random model wanders under the exact mask after the
//! language's prompt, then is offered only the finishing mask; it must end with EOS (the
//! program complete) within the budget, and the language's own parser (the lab's
//! oracle, [`espalier_lab::harness::oracle_of`]: CPython's `ast.parse`, Go's `gofmt -e`)
//! must accept what it wrote (the guarantee `espalier eval humaneval --wrap-up N` and
//! `espalier eval humaneval-go --wrap-up N` lean on).

use std::sync::Arc;
use std::time::Duration;

use crate::common::HashModel;
use espalier_constraint::{Constraint, GrammarConstraint, MaskKit, Strategy, Vocab};
use espalier_decode::{run, Generator, Lang, LangConstraint, StopReason};
use espalier_lab::harness::oracle_of;

/// What a language's wrap-up test writes with.
struct Fixture {
    /// The registry's name of the language.
    lang: &'static str,
    /// Printable ASCII bytes left out of the vocabulary.
    left_out: &'static [u8],
    /// Multi-byte lexemes added to the vocabulary.
    lexemes: &'static [&'static str],
    /// The text the constraint is primed with; the oracle reads it with the generation.
    prompt: &'static str,
    /// A program the oracle must accept before the test starts (it runs).
    valid: &'static str,
    /// The oracle's program, its description and install command
    /// ([`espalier_testkit::require`]).
    oracle: (&'static str, &'static str, &'static str),
}

/// One fixture for each grammar language of the registry with a finishing mask.
const FIXTURES: [Fixture; 2] = [
    Fixture {
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
    },
    Fixture {
        lang: "go",
        left_out: b"",
        lexemes: &[
            "func", " return", "\n\t", "if", " else", "for", " range", ":=", "`", "/*", "//", "0x",
            "struct", "{\n",
        ],
        prompt: "package p\n\nfunc f() {\n",
        valid: "package p\n",
        oracle: ("/usr/bin/go", "the Go toolchain (go, gofmt)", "apt-get install golang-go"),
    },
];

#[test]
fn wrapping_up_finishes_programs_the_language_s_parser_accepts() {
    let registered: Vec<&str> = Lang::all()
        .filter(|l| l.grammar().is_some() && l.has_finishing_mask())
        .map(|l| l.name())
        .collect();
    espalier_testkit::each_language(&registered, &FIXTURES, |f| f.lang, wrapping_up_finishes);
}
/// Printable ASCII but `left_out`, newline, tab and `lexemes`; id 0 is EOS.
fn byte_vocab(f: &Fixture) -> Vocab {
    let mut all = vec![b"<eos>".to_vec()];
    all.extend((0x20u8..0x7f).filter(|b| !f.left_out.contains(b)).map(|b| vec![b]));
    all.push(b"\n".to_vec());
    all.push(b"\t".to_vec());
    for t in f.lexemes {
        all.push(t.as_bytes().to_vec());
    }
    Vocab::new(all, &[0], 0)
}

/// 12 generations (wandering 0, 20 or 60 tokens, seeds 0 to 3), each ending with EOS,
/// the wrap-up starting right after the wander (or the program ending before it), the
/// oracle accepting prompt + text; at least 6 of the 12 reach the wrap-up.
fn wrapping_up_finishes(f: &Fixture) {
    let name = f.lang;
    let lang = Lang::from_name(name).unwrap();
    assert!(lang.has_finishing_mask(), "{name} has no finishing mask to wrap up with");
    let (program, what, install) = f.oracle;
    let program = espalier_testkit::require(program, what, Some(install));
    let oracle = oracle_of(lang, Some(&program), Duration::from_secs(30))
        .unwrap_or_else(|| panic!("{name} has no oracle in the lab"));
    assert_eq!(oracle.syntax_error(f.valid), Ok(None), "{name}: the oracle refuses {:?}", f.valid);
    let vocab = Arc::new(byte_vocab(f));
    let grammar = lang.grammar().unwrap_or_else(|| panic!("{name} has no grammar")).unwrap();
    let kit = MaskKit::for_vocab(grammar, &vocab);
    let mut wrapped = 0;
    for wander in [0, 20, 60] {
        for seed in 0..4 {
            let config = crate::common::wander_then_wrap_up(seed, wander, 300);
            let mut c = GrammarConstraint::new(&kit, Strategy::Exact, format!("{name}-lr"));
            if !f.prompt.is_empty() {
                c.commit(f.prompt.as_bytes()).unwrap();
            }
            let mut model = HashModel::new(vocab.len());
            let mut g =
                Generator::new(vocab.clone(), LangConstraint::Grammar(Box::new(c)), &[1], config)
                    .unwrap();
            run(&mut g, &mut model, |_, _| {}).unwrap();
            let text = format!("{}{}", f.prompt, g.text());
            let what = format!("{name} wander {wander} seed {seed}: {text:?}");
            assert_eq!(g.stop_reason(), Some(&StopReason::Eos), "{what}");
            // A random model may end a complete program with EOS before the wrap-up.
            match g.stats().wrap_up_from {
                Some(from) => assert_eq!(from, wander, "{what}"),
                None => assert!(g.stats().steps <= wander, "{what}"),
            }
            wrapped += g.stats().wrap_up_from.is_some() as usize;
            assert_eq!(oracle.syntax_error(&text), Ok(None), "{what}");
        }
    }
    eprintln!("{name}: {wrapped} of 12 generations wrapped up");
    assert!(wrapped >= 6, "{name}: only {wrapped} of 12 generations reached the wrap-up");
}
