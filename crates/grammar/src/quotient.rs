//! Fill-in-the-middle: the language of middles `m` with `prefix + m + suffix` a valid
//! program, i.e. the left quotient of the language by the prefix, right-quotiented by
//! the suffix.
//!
//! # Design, and why it is the quotient
//!
//! Write `L` for the language (Python), `V` for its viable prefixes. A middle `m` may
//! be extended to one that joins the suffix `s` iff
//! `J(prefix + m) := ∃ w. prefix + m + w + s ∈ L`. For Python, `J` splits in two:
//!
//! `J(x)  ⟺  x ∈ V  ∧  T(s)`, where `T(s) := ∃ z. z + s ∈ L` (some program ends with
//! `s`).
//!
//! (⇒) `x + w + s ∈ L` makes `x` viable and `z = x + w` a witness. (⇐) `x ∈ V` has a
//! completion `c` with `x + c ∈ L`; with `z + s ∈ L`, take `w = c + "\n" + z`: two
//! complete files joined by a newline form a complete file (a file is a sequence of
//! statements at column 0; a complete file ends outside brackets, strings and line
//! continuations, so the newline ends its last line and resets the layout, and a
//! complete file's first content line is at column 0). So `J` does not depend on
//! the middle beyond viability, and:
//!
//! - **per token only the left side advances**: the mask is the exact viable-prefix
//!   mask of `prefix + middle`, by the same recognizer and trie walk as the plain
//!   grammar constraint (lexemes straddling the prefix/middle boundary are the
//!   recognizer's pending remainder; Python's layout is its indentation layer);
//! - **EOS is membership**: `prefix + middle + s ∈ L`, decided by running the
//!   recognizer over `s` from the left state ([`SuffixQuotient::joins`]), so a
//!   lexeme straddling the middle/suffix boundary, brackets opened on the left and
//!   closed in the suffix, INDENT/DEDENT of the suffix's lines against the left's
//!   indentation stack, strings and comments open at the cursor and line
//!   continuations are all decided by the same lexer and layer that decide whole
//!   files. Runs are memoized at the suffix's line starts: two left states that
//!   reach a line start of `s` in the same recognizer state (same LR stacks, layout
//!   and pending bytes; [`Recognizer::same_future`]) have the same outcome, so after
//!   the first run a check usually stops at the suffix's first or second line;
//! - **the suffix analysis runs once per request**: `T(s)` is established first by a
//!   cheap witness (`prefix + w + s` complete for `w` empty or a newline), else
//!   decided exactly by substring parsing: an Earley recognizer whose first set
//!   stands for any text before `s` ([`crate::suffix_earley`]), driven by the same
//!   lexer and Python layer started in each layout the cursor may be in
//!   ([`crate::cursor_layout::cursor_layouts`]: inside a string or comment or not, the brackets
//!   the suffix closes without opening, at a line start or inside a line, the
//!   indentation stack from the columns of the suffix's lines). When the suffix
//!   reaches a line at column 0 where the text so far may end a program, and the
//!   rest is itself a complete program (checked by the fast LR recognizer), the two
//!   join and the Earley run stops there.
//!
//! What is exact and what is not: masks and EOS are exact once `T(s)` holds (up to
//! the recognizer's own documented corner: f-string fields are checked at the
//! closing quote). `T(s)` is exact per layout; the layouts tried are a finite
//! family read off the suffix (openers `' " \'\'\' """ # \`, three indentation
//! stacks per cursor position, spaces for tabs' alternate columns), so a suffix
//! that only joins in another layout would be refused — the corpus test
//! (`tests/it/fim_corpus.rs`) counts refusals of suffixes the true middle joins.
//!
//! Why not the paper's right-quotient grammar on Earley for the left side too: the
//! reduction above makes the left side plain viable-prefix parsing, where the LR
//! recognizer is ~40x faster than our Earley recognizer per lexeme and the existing
//! exact trie walk applies unchanged; Earley is needed only once per request, for
//! `T(s)`, and there only up to the end of the suffix's first top-level statement
//! in the common case.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::cursor_layout::cursor_layouts;
use crate::error::ParseError;
use crate::language::Language;
use crate::recognizer::Recognizer;
use crate::suffix_earley::{SuffixEarley, SuffixGrammar};
use crate::LrRecognizer;

/// Snapshots kept per suffix line start (distinct left states seen there).
const MEMO_PER_LINE: usize = 8;

/// Which input a [`FimError`] points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The text before the cursor.
    Prefix,
    /// The text after the cursor.
    Suffix,
}

impl std::fmt::Display for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Part::Prefix => "prefix",
            Part::Suffix => "suffix",
        })
    }
}

/// Why a fill-in-the-middle request cannot be served.
#[derive(Clone, Debug, PartialEq)]
pub enum FimError {
    /// The prefix or suffix is not UTF-8.
    NotUtf8 {
        /// Which text.
        part: Part,
        /// Byte offset of the first invalid byte in that text.
        offset: usize,
        /// The byte.
        byte: u8,
    },
    /// The prefix is not the beginning of any valid program.
    PrefixNotViable {
        /// The parser's error (offset into the prefix).
        error: ParseError,
    },
    /// No middle found that joins the suffix.
    Unjoinable {
        /// Byte offset into the suffix that no cursor layout gets past.
        offset: usize,
        /// 1-based line and column of that byte in the suffix.
        line: usize,
        /// Column (1-based, in bytes).
        col: usize,
        /// The parser's complaint there.
        detail: String,
    },
}

impl std::fmt::Display for FimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FimError::NotUtf8 { part, offset, byte } => write!(f, "the {part} is not UTF-8: byte 0x{byte:02X} at offset {offset}"),
            FimError::PrefixNotViable { error } => write!(f, "the prefix is not the start of a valid program: {error}"),
            FimError::Unjoinable { offset, line, col, detail } => write!(
                f,
                "no middle joins the suffix: it cannot be parsed past its byte {offset} (line {line}, column {col}) whatever precedes it: {detail}"
            ),
        }
    }
}

impl std::error::Error for FimError {}

/// The outcome of running the suffix from a left state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `left + suffix` is a complete program.
    Joins,
    /// The recognizer refused suffix byte `n` (`n == suffix.len()`: the end).
    FailsAt(u32),
}

/// Usage counters of the memo (for benchmarks and tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoStats {
    /// Suffix runs started.
    pub runs: u64,
    /// Runs cut short by a memo hit.
    pub hits: u64,
    /// Suffix bytes pushed in all runs.
    pub bytes: u64,
}

#[derive(Default)]
struct Memo {
    lines: HashMap<u32, Vec<(LrRecognizer, Outcome)>>,
    stats: MemoStats,
}

/// The suffix side of a request: the suffix, and memoized runs of it.
pub struct SuffixQuotient {
    lang: Arc<Language>,
    suffix: Vec<u8>,
    memo: Mutex<Memo>,
}

impl std::fmt::Debug for SuffixQuotient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SuffixQuotient").field("suffix_len", &self.suffix.len()).finish()
    }
}

fn same_lr(a: &crate::LrParser, b: &crate::LrParser) -> bool {
    a.stacks() == b.stacks()
}

/// Checks that `text` is UTF-8, naming the first bad byte.
pub fn check_utf8(part: Part, text: &[u8]) -> Result<(), FimError> {
    std::str::from_utf8(text).map(|_| ()).map_err(|e| {
        let offset = e.valid_up_to();
        FimError::NotUtf8 { part, offset, byte: text[offset] }
    })
}

/// Runs the prefix: the left state at the cursor, or the prefix's error.
pub fn left_state(lang: &Arc<Language>, prefix: &[u8]) -> Result<LrRecognizer, FimError> {
    check_utf8(Part::Prefix, prefix)?;
    let mut r = lang.recognizer();
    r.push_bytes(prefix).map_err(|error| FimError::PrefixNotViable { error })?;
    Ok(r)
}

impl SuffixQuotient {
    /// The suffix analysis of a request (checks UTF-8; no search yet).
    pub fn new(lang: &Arc<Language>, suffix: &[u8]) -> Result<Self, FimError> {
        check_utf8(Part::Suffix, suffix)?;
        Ok(Self { lang: lang.clone(), suffix: suffix.to_vec(), memo: Mutex::new(Memo::default()) })
    }

    /// The suffix.
    pub fn suffix(&self) -> &[u8] {
        &self.suffix
    }

    /// The language.
    pub fn language(&self) -> &Arc<Language> {
        &self.lang
    }

    /// Memo counters so far.
    pub fn stats(&self) -> MemoStats {
        self.memo.lock().map(|m| m.stats).unwrap_or_default()
    }

    /// Whether `left + suffix` is a complete program (membership).
    pub fn joins(&self, left: &LrRecognizer) -> bool {
        self.run(left) == Outcome::Joins
    }

    /// Runs the suffix from `left`, memoized at the suffix's line starts.
    pub fn run(&self, left: &LrRecognizer) -> Outcome {
        let s = &self.suffix;
        let mut r = left.clone();
        let mut pending: Vec<(u32, LrRecognizer)> = Vec::new();
        let mut out = None;
        let mut pushed = 0u64;
        let mut hit = false;
        for i in 0..s.len() {
            if i > 0 && s[i - 1] == b'\n' {
                if let Some(o) = self.lookup(i as u32, &r) {
                    out = Some(o);
                    hit = true;
                    break;
                }
                pending.push((i as u32, r.clone()));
            }
            pushed += 1;
            if !r.try_push_byte(s[i]) {
                out = Some(Outcome::FailsAt(i as u32));
                break;
            }
        }
        let out = out.unwrap_or_else(|| {
            if r.is_complete() {
                Outcome::Joins
            } else {
                Outcome::FailsAt(s.len() as u32)
            }
        });
        if let Ok(mut m) = self.memo.lock() {
            m.stats.runs += 1;
            m.stats.hits += u64::from(hit);
            m.stats.bytes += pushed;
            for (at, snap) in pending {
                let v = m.lines.entry(at).or_default();
                if v.len() < MEMO_PER_LINE {
                    v.push((snap, out));
                }
            }
        }
        out
    }

    fn lookup(&self, at: u32, r: &LrRecognizer) -> Option<Outcome> {
        let m = self.memo.lock().ok()?;
        m.lines.get(&at)?.iter().find(|(snap, _)| snap.same_future(r, same_lr)).map(|(_, o)| *o)
    }

    /// The parser's complaint for `left + suffix` (cold path, for messages), with
    /// offsets into the suffix.
    pub fn explain(&self, left: &LrRecognizer) -> Option<ParseError> {
        let base = left.offset();
        let mut r = left.clone();
        let e = match r.push_bytes(&self.suffix) {
            Err(e) => e,
            Ok(()) => r.finish().err()?,
        };
        Some(ParseError { offset: e.offset.saturating_sub(base), ..e })
    }

    /// Establishes `T(suffix)` (some program ends with the suffix) for a request whose
    /// left state at the cursor is `left`. Cheap witnesses first (the empty bridge and
    /// a newline: `left + w + suffix` complete), returned as `Some(w)`; otherwise the
    /// exact decision by the suffix Earley recognizer ([`crate::suffix_earley`]) over
    /// the cursor layouts the suffix admits ([`cursor_layouts`]), `Ok(None)` when some
    /// layout joins. The error names the suffix byte that no layout got past.
    pub fn establish(&self, left: &LrRecognizer) -> Result<Option<Vec<u8>>, FimError> {
        for w in [&b""[..], b"\n"] {
            let mut st = left.clone();
            if st.try_push_bytes(w) && self.joins(&st) {
                return Ok(Some(w.to_vec()));
            }
        }
        self.tail_exists().map(|()| None)
    }

    /// Whether some program ends with the suffix (see [`Self::establish`]).
    pub fn tail_exists(&self) -> Result<(), FimError> {
        let sg = SuffixGrammar::new(self.lang.grammar.clone());
        let mut best: Option<(usize, String)> = None;
        let mut complete_from: HashMap<usize, bool> = HashMap::new();
        for layout in cursor_layouts(&self.lang, &self.suffix) {
            let mut r = Recognizer::with_layout(
                self.lang.clone(),
                SuffixEarley::new(sg.clone()),
                layout.depth,
                &layout.cols,
                layout.line_start,
            );
            if r.push_bytes(&layout.opener).is_err() {
                continue;
            }
            match self.run_tail(&mut r, &mut complete_from) {
                Ok(()) => return Ok(()),
                Err((at, why)) => {
                    if best.as_ref().is_none_or(|b| at > b.0) {
                        best = Some((at, why));
                    }
                }
            }
        }
        let (offset, detail) = best.unwrap_or((0, "the suffix does not lex".into()));
        let (line, col) = self.line_col(offset);
        Err(FimError::Unjoinable { offset, line, col, detail })
    }

    /// Runs the suffix through a suffix recognizer. Shortcut: at a line that starts
    /// at column 0 outside brackets, if the text so far can end a program and the
    /// rest of the suffix is itself a complete program (the fast LR recognizer), the
    /// two join (a complete file followed by a complete file is one).
    fn run_tail(
        &self,
        r: &mut Recognizer<SuffixEarley>,
        complete_from: &mut HashMap<usize, bool>,
    ) -> Result<(), (usize, String)> {
        let s = &self.suffix;
        let mut shortcuts = 0;
        for i in 0..s.len() {
            if shortcuts < 3
                && i > 0
                && s[i - 1] == b'\n'
                && !matches!(s[i], b' ' | b'\t' | b'\x0c' | b'\r' | b'\n' | b'#')
                && r.bracket_depth() == 0
                && r.is_complete()
            {
                shortcuts += 1;
                let rest_ok = *complete_from.entry(i).or_insert_with(|| {
                    let mut lr = self.lang.recognizer();
                    lr.push_bytes(&s[i..]).is_ok() && lr.is_complete()
                });
                if rest_ok {
                    return Ok(());
                }
            }
            if let Err(e) = r.push_byte(s[i]) {
                return Err((i, e.to_string()));
            }
        }
        match r.finish() {
            Ok(()) => Ok(()),
            Err(e) => Err((s.len(), e.to_string())),
        }
    }

    fn line_col(&self, offset: usize) -> (usize, usize) {
        let before = &self.suffix[..offset.min(self.suffix.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = offset - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
        (line, col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python;

    fn request(
        prefix: &str,
        suffix: &str,
    ) -> (LrRecognizer, SuffixQuotient, Result<Option<Vec<u8>>, FimError>) {
        let py = python().unwrap();
        let left = left_state(&py, prefix.as_bytes()).unwrap();
        let q = SuffixQuotient::new(&py, suffix.as_bytes()).unwrap();
        let b = q.establish(&left);
        (left, q, b)
    }

    fn joins(left: &LrRecognizer, q: &SuffixQuotient, middle: &str) -> bool {
        let mut st = left.clone();
        st.try_push_bytes(middle.as_bytes()) && q.joins(&st)
    }

    #[test]
    fn membership_across_both_boundaries() {
        // A name straddling both cuts; brackets opened on the left closed on the right.
        let (left, q, b) = request("def f(a):\n    return fo", "o(a, [1,\n 2])\n");
        assert!(b.is_ok(), "{b:?}");
        assert!(joins(&left, &q, "o(a) + fo"));
        assert!(joins(&left, &q, ""));
        assert!(!joins(&left, &q, "o("), "an unclosed bracket never joins");
        // Indentation: the suffix's dedented line closes the block the middle opens.
        let (left, q, b) = request("x = 1\n", "    y = 2\nz = 3\n");
        assert!(b.is_ok(), "{b:?}");
        assert!(joins(&left, &q, "if x:\n"));
        assert!(!joins(&left, &q, "x = 2\n"), "unexpected indent");
        // A string open at the cursor: the suffix closes it.
        let (left, q, b) = request("s = '''abc", "def'''\n");
        assert!(b.is_ok());
        assert!(joins(&left, &q, "\n\n"));
        assert!(!joins(&left, &q, "'''"), "closing early leaves the suffix's quotes dangling");
        // An f-string open at the cursor: its fields are checked when the suffix closes it.
        let (left, q, b) = request("s = f'{x", " + 1}'\n");
        assert!(b.is_ok());
        assert!(joins(&left, &q, ""));
        assert!(!joins(&left, &q, "}"), "f'{{x}} + 1}}': a single '}}'");
        // A line continuation and a comment at the cursor.
        let (left, q, b) = request("x = 1 + \\", "\n    2\n");
        assert!(b.is_ok());
        assert!(joins(&left, &q, ""));
        let (left, q, b) = request("x = 1  # note", "\ny = 2\n");
        assert!(b.is_ok());
        assert!(joins(&left, &q, " more"));
        assert!(!joins(&left, &q, "\n("));
        // Why a left state does not join, with the offset into the suffix.
        let left = left_state(&python().unwrap(), b"x = 1\n").unwrap();
        let q = SuffixQuotient::new(&python().unwrap(), b"y = 2\nz = = 3\n").unwrap();
        assert_eq!(q.run(&left), Outcome::FailsAt(10));
        assert_eq!(q.explain(&left).map(|e| e.offset), Some(10));
        // Empty sides.
        let (left, q, b) = request("", "");
        assert!(b.is_ok() && joins(&left, &q, "") && joins(&left, &q, "pass\n"));
        assert!(!joins(&left, &q, "pass("));
    }

    #[test]
    fn bridges_are_found_for_suffixes_needing_context() {
        for (prefix, suffix) in [
            ("def f(a):\n    x = foo(", ", 3])\n    return x\n"),
            ("x = 1\n", "    else:\n        y = 2\n"),
            ("", "abc'''\nprint(s)\n"),
            ("import os\n", ")\n"),
            ("class A:\n    def f(self):\n        pass\n", "        return 1\n"),
            // Inside a keyword and a line continuation at the cursor: `a|nd \`.
            ("if x", "nd \\\n        y:\n    pass\n"),
        ] {
            let (left, q, b) = request(prefix, suffix);
            let w = b.unwrap_or_else(|e| panic!("{prefix:?} / {suffix:?}: {e}"));
            assert!(q.tail_exists().is_ok());
            let Some(w) = w else { continue };
            let mut text = prefix.as_bytes().to_vec();
            text.extend_from_slice(&w);
            text.extend_from_slice(suffix.as_bytes());
            let mut r = python().unwrap().recognizer();
            assert!(
                r.push_bytes(&text).is_ok() && r.is_complete(),
                "{:?}",
                String::from_utf8_lossy(&text)
            );
            let mut st = left.clone();
            assert!(st.try_push_bytes(&w) && q.joins(&st));
        }
    }

    #[test]
    fn bad_input_is_named() {
        let py = python().unwrap();
        match left_state(&py, b"x = )") {
            Err(FimError::PrefixNotViable { error }) => assert_eq!(error.offset, 4),
            other => panic!("{other:?}"),
        }
        match SuffixQuotient::new(&py, b"x = '\xff'") {
            Err(e @ FimError::NotUtf8 { offset: 5, byte: 0xff, part: Part::Suffix }) => {
                assert!(e.to_string().contains("offset 5"))
            }
            other => panic!("{other:?}"),
        }
        // A bad first line could sit in a comment the middle opens: `# y = = 2`.
        let (_, _, b) = request("x = 1\n", "y = = 2\n");
        assert_eq!(b, Ok(None));
        // On a later line `= =` can follow nothing.
        let (_, _, b) = request("x = 1\n", "\ny = = 2\n");
        match b {
            Err(e @ FimError::Unjoinable { offset, line: 2, .. }) => {
                assert_eq!(offset, 5, "{e}");
                assert!(e.to_string().contains("no middle joins the suffix"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn memo_cuts_later_runs_short() {
        let body: String = (0..200).map(|i| format!("    v{i} = {i}\n")).collect();
        let (left, q, b) = request("def f():\n    a = ", &format!("2\n{body}"));
        assert_eq!(b, Ok(Some(Vec::new())));
        let before = q.stats();
        assert!(joins(&left, &q, "1 + "));
        assert!(joins(&left, &q, "1 +"), "`a = 1 +2` is valid");
        assert!(!joins(&left, &q, "("), "a bracket the suffix never closes");
        let after = q.stats();
        assert!(after.hits > before.hits, "{before:?} {after:?}");
    }
}
