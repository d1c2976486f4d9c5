//! Fill-in-the-middle against CPython: standard-library files cut at seeded random
//! points into prefix / true middle / suffix.
//!
//! Per cut: the prefix is viable; the suffix analysis finds a bridge (no false
//! refusal); every byte of the true middle is accepted (no false rejection); EOS
//! (membership, [`SuffixQuotient::joins`]) holds after the true middle; and for wrong
//! middles (truncations of the true middle, single-byte edits of it, spans taken from
//! elsewhere in the file) our membership verdict equals `ast.parse`'s on
//! prefix + middle + suffix, and the memoized run equals a plain recognizer run.
//!
//! Four known limitations of the Python recognizer itself (not of FIM) that wrong
//! middles hit are counted apart, by ast.parse's message (see below).
//!
//! CI: 300 cuts. `ESPALIER_SLOW=1`: 20,000 cuts. The oracle (python3.11 and the
//! CPython corpus) is required: without it the test fails.

use crate::common;

use common::*;
use espalier_grammar::quotient::left_state;
use espalier_grammar::{python, SuffixQuotient};

const EDIT_BYTES: &[u8] = b"()[]{}:,. \n'\"#x1=+\\\t";

fn char_boundary(text: &[u8], mut i: usize) -> usize {
    while i < text.len() && (text[i] & 0xC0) == 0x80 {
        i += 1;
    }
    i
}

#[test]
fn fim_cuts_agree_with_ast_parse() {
    require_oracle();
    let py = python().unwrap();
    let cuts = if slow() { 20_000 } else { 300 };
    let mut rng = Rng(0xF1A5_5EED);
    // Files small enough to keep the oracle's payload modest, valid per ast.parse.
    let mut files: Vec<Vec<u8>> = corpus_files()
        .iter()
        .filter_map(|f| std::fs::read(f).ok())
        .filter(|t| t.len() >= 64 && t.len() <= 12_000 && std::str::from_utf8(t).is_ok())
        .collect();
    let verdicts = oracle(&files);
    let before = files.len();
    files =
        files.into_iter().zip(verdicts).filter(|(_, v)| *v == Some(true)).map(|(t, _)| t).collect();
    assert!(files.len() > 100, "only {} of {before} corpus files usable", files.len());

    let mut refusals = Vec::new();
    let mut rejections = Vec::new();
    let mut eos_missing = Vec::new();
    let mut memo_mismatch = Vec::new();
    // (prefix + middle + suffix, our verdict, description) for the oracle.
    let mut wrong: Vec<(Vec<u8>, bool, String)> = Vec::new();
    let mut true_bytes = 0usize;
    for k in 0..cuts {
        let text = &files[rng.below(files.len())];
        let a = char_boundary(text, rng.below(text.len()));
        let max_mid = match rng.below(10) {
            0..=4 => 40,
            5..=7 => 200,
            _ => 1000,
        };
        let b = char_boundary(text, (a + 1 + rng.below(max_mid)).min(text.len()));
        let (prefix, middle, suffix) = (&text[..a], &text[a..b], &text[b..]);
        let left = left_state(&py, prefix)
            .unwrap_or_else(|e| panic!("cut {k}: prefix of a valid file refused: {e}"));
        let q = SuffixQuotient::new(&py, suffix).unwrap();
        if let Err(e) = q.establish(&left) {
            refusals.push(format!(
                "cut {k} at {a}..{b}: {e}\n  suffix starts {:?}",
                String::from_utf8_lossy(&suffix[..suffix.len().min(80)])
            ));
            continue;
        }
        let mut st = left.clone();
        let mut ok = true;
        for (i, &byte) in middle.iter().enumerate() {
            if !st.try_push_byte(byte) {
                rejections.push(format!(
                    "cut {k} at {a}..{b}: true middle byte {i} ({:?}) rejected",
                    byte as char
                ));
                ok = false;
                break;
            }
        }
        true_bytes += middle.len();
        if ok && !q.joins(&st) {
            eos_missing.push(format!(
                "cut {k} at {a}..{b}: EOS refused after the true middle: {:?}",
                q.explain(&st)
            ));
        }
        // Wrong middles.
        let mut candidates: Vec<(Vec<u8>, &str)> = Vec::new();
        for _ in 0..2 {
            candidates.push((
                middle[..char_boundary(middle, rng.below(middle.len().max(1)))].to_vec(),
                "truncated",
            ));
        }
        let mut edit = middle.to_vec();
        let at = rng.below(edit.len() + 1);
        match rng.below(3) {
            0 => edit.insert(at, EDIT_BYTES[rng.below(EDIT_BYTES.len())]),
            1 if at < edit.len() && edit[at].is_ascii() => {
                edit.remove(at);
            }
            _ if at < edit.len() && edit[at].is_ascii() => {
                edit[at] = EDIT_BYTES[rng.below(EDIT_BYTES.len())]
            }
            _ => edit.push(b'\n'),
        }
        candidates.push((edit, "edited"));
        let s = char_boundary(text, rng.below(text.len()));
        let e = char_boundary(text, (s + 1 + rng.below(60)).min(text.len()));
        candidates.push((text[s..e].to_vec(), "foreign span"));
        for (m, what) in candidates {
            let mut st = left.clone();
            let ours = st.try_push_bytes(&m) && q.joins(&st);
            let mut whole = prefix.to_vec();
            whole.extend_from_slice(&m);
            whole.extend_from_slice(suffix);
            let mut plain = py.recognizer();
            let direct = plain.push_bytes(&whole).is_ok() && plain.is_complete();
            if direct != ours {
                memo_mismatch
                    .push(format!("cut {k} ({what}): memoized {ours}, plain run {direct}"));
            }
            wrong.push((
                whole,
                ours,
                format!("cut {k} at {a}..{b} ({what} middle {:?})", String::from_utf8_lossy(&m)),
            ));
        }
    }
    let texts: Vec<Vec<u8>> = wrong.iter().map(|w| w.0.clone()).collect();
    let verdicts = oracle(&texts);
    let mut disagreeing = Vec::new();
    let mut accepted = 0;
    for (i, ((_, ours, _), v)) in wrong.iter().zip(&verdicts).enumerate() {
        let expected = v.unwrap_or(false);
        accepted += usize::from(expected);
        if *ours != expected {
            disagreeing.push(i);
        }
    }
    // Every disagreement is the whole-text recognizer's (memoized runs equal plain
    // runs, asserted below). Four limitations of the Python grammar's recognizer, not
    // of FIM, are counted apart: string escapes are checked by form only (`\x` two
    // hex digits, `\u` four, `\U` eight, `\N{...}`; not whether a name exists), and what
    // ast.parse still refuses as "(unicode error)" / "(value error)" is counted here (the
    // slow run, 20,000 cuts: 4 of 80,000 wrong middles); a backslash continuation inside a line's
    // indentation (CPython 3.11 joins it into the indentation) is refused; at the end
    // of the text the lexer backs out of an unterminated triple-quoted string into
    // shorter strings, which CPython's tokenizer never does; and a backslash
    // continuation right before the end is accepted.
    let messages =
        oracle_messages(&disagreeing.iter().map(|&i| texts[i].clone()).collect::<Vec<_>>());
    let (
        mut disagree,
        mut escapes,
        mut indent_continuations,
        mut backtracks,
        mut eof_continuations,
    ) = (Vec::new(), 0usize, 0usize, 0usize, 0usize);
    for (&i, msg) in disagreeing.iter().zip(&messages) {
        let (_, ours, what) = &wrong[i];
        if *ours && (msg.contains("(unicode error)") || msg.contains("(value error)")) {
            escapes += 1;
        } else if *ours && msg.starts_with("unterminated triple-quoted string literal") {
            backtracks += 1;
        } else if *ours
            && msg.starts_with("unexpected EOF while parsing")
            && texts[i].trim_ascii_end().ends_with(b"\\")
        {
            eof_continuations += 1;
        } else if !*ours && has_indent_continuation(&texts[i]) {
            indent_continuations += 1;
        } else {
            disagree.push(format!("{what}: ast.parse {msg:?}, ours {ours}"));
        }
    }
    eprintln!(
        "fim: grammar limitations met by wrong middles: unchecked string escapes {escapes}, continuation in indentation \
         {indent_continuations}, lexer backtracking out of an unterminated triple-quoted string {backtracks}, \
         continuation before the end {eof_continuations}"
    );
    eprintln!(
        "fim: {cuts} cuts, {} true-middle bytes; bridge refusals {}, true-middle rejections {}, EOS missing {}; \
         wrong middles {} (ast.parse accepts {accepted}), membership disagreements {}, memo vs plain {}",
        true_bytes,
        refusals.len(),
        rejections.len(),
        eos_missing.len(),
        wrong.len(),
        disagree.len(),
        memo_mismatch.len()
    );
    let show = |v: &Vec<String>| v.iter().take(10).cloned().collect::<Vec<_>>().join("\n");
    for (name, v) in [
        ("refusal", &refusals),
        ("rejection", &rejections),
        ("eos", &eos_missing),
        ("memo", &memo_mismatch),
        ("membership", &disagree),
    ] {
        for line in v.iter().take(40) {
            eprintln!("{name}: {line}");
        }
    }
    assert!(refusals.is_empty(), "false refusals:\n{}", show(&refusals));
    assert!(rejections.is_empty(), "false rejections:\n{}", show(&rejections));
    assert!(eos_missing.is_empty(), "{}", show(&eos_missing));
    assert!(memo_mismatch.is_empty(), "{}", show(&memo_mismatch));
    assert!(disagree.is_empty(), "{}", show(&disagree));
    // The excused kinds, counted exactly at both sizes (seeded), so that a new
    // disagreement of an excused kind fails too: (escapes, continuations in
    // indentation, backtracks, continuations before the end).
    let expected = if slow() { (4, 1, 0, 1) } else { (0, 0, 0, 0) };
    assert_eq!(
        (escapes, indent_continuations, backtracks, eof_continuations),
        expected,
        "excused disagreements changed"
    );
}

/// Whether some line holds only whitespace and a backslash continuation.
fn has_indent_continuation(text: &[u8]) -> bool {
    text.split(|&b| b == b'\n').any(|l| {
        let t: Vec<u8> =
            l.iter().copied().filter(|b| !matches!(b, b' ' | b'\t' | b'\x0c' | b'\r')).collect();
        t == b"\\"
    })
}

/// ast.parse's verdict as text: "ok", or the SyntaxError's message.
fn oracle_messages(texts: &[Vec<u8>]) -> Vec<String> {
    const SCRIPT: &str = r#"
import ast, sys
for b in texts():
    try:
        ast.parse(b.decode('utf-8')); m = 'ok'
    except Exception as e:
        m = str(e)
    sys.stdout.write(m.replace('\n', ' ') + '\n')
"#;
    let stdout = espalier_testkit::python_batch(PYTHON, SCRIPT, texts);
    let lines: Vec<String> = String::from_utf8_lossy(&stdout).lines().map(str::to_string).collect();
    assert_eq!(
        lines.len(),
        texts.len(),
        "the oracle answered {} of {} texts",
        lines.len(),
        texts.len()
    );
    lines
}
