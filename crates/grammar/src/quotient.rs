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
//! - **the suffix analysis runs once per request**: `T(s)` is established by a
//!   witness, a bridge `w` with `prefix + w + s ∈ L` found by a bounded search
//!   ([`SuffixQuotient::find_bridge`]: the empty bridge and a newline first, then a
//!   beam over inserted lexemes, string openers, brackets the suffix closes and the
//!   indentation its lines need, scored by how far into `s` the parse gets).
//!
//! What is exact and what is not: a found witness proves `T(s)`, after which masks
//! and EOS are exact (up to the recognizer's own documented corner: f-string fields
//! are checked at the closing quote). When the search finds no witness the request
//! is refused with the suffix byte the best bridge could not get past; that refusal
//! is a bounded search's verdict, not a proof — the corpus test
//! (`tests/fim_corpus.rs`) counts such refusals of suffixes that do join (the true
//! middle joins them).
//!
//! Why not an Earley right quotient of the grammar (the paper's construction): the
//! Python layout makes the suffix's token stream depend on the unknown indentation
//! stack and bracket depth at the cursor, so the quotient grammar would have to be
//! built per layout guess; the LR recognizer is also ~40x faster than our Earley
//! recognizer per lexeme, which decides whether a 10k-character request prepares
//! in milliseconds.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::error::ParseError;
use crate::language::Language;
use crate::lexer::lex;
use crate::lexer_dfa::LexerDfa;
use crate::LrRecognizer;

/// Snapshots kept per suffix line start (distinct left states seen there).
const MEMO_PER_LINE: usize = 8;
/// Beam width and depth of the bridge search, and its budget of suffix runs.
const BEAM: usize = 6;
const MAX_PIECES: usize = 6;
const MAX_RUNS: usize = 6000;

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
        /// Byte offset into the suffix that no bridge got past.
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
                "no middle joins the suffix: no bridge gets past suffix byte {offset} (line {line}, column {col}): {detail}"
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
        let out = out.unwrap_or_else(|| if r.is_complete() { Outcome::Joins } else { Outcome::FailsAt(s.len() as u32) });
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
        let base = left.offset() + left.remainder_bytes().len();
        let mut r = left.clone();
        let e = match r.push_bytes(&self.suffix) {
            Err(e) => e,
            Ok(()) => r.finish().err()?,
        };
        Some(ParseError { offset: e.offset.saturating_sub(base), ..e })
    }

    fn line_col(&self, offset: usize) -> (usize, usize) {
        let before = &self.suffix[..offset.min(self.suffix.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = offset - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
        (line, col)
    }

    /// Establishes `T(suffix)` from the left state at the cursor: returns a bridge
    /// `w` with `left + w + suffix` a complete program, or the suffix byte no bridge
    /// tried got past (see the module doc: a bounded search).
    pub fn find_bridge(&self, left: &LrRecognizer) -> Result<Vec<u8>, FimError> {
        let mut best: (u32, Vec<u8>) = (0, Vec::new());
        for w in [&b""[..], b"\n", b" "] {
            let mut st = left.clone();
            if !st.try_push_bytes(w) {
                continue;
            }
            match self.run(&st) {
                Outcome::Joins => return Ok(w.to_vec()),
                Outcome::FailsAt(p) if p > best.0 => best = (p, w.to_vec()),
                _ => {}
            }
        }
        let pieces = Pieces::new(&self.lang, &self.suffix);
        let needed = pieces.needed_depth;
        let score = |st: &LrRecognizer, p: u32| -> (i64, u32) {
            let gap = needed.map_or(0, |n| -(i64::from(st.bracket_depth()) - i64::from(n)).abs());
            (gap, p)
        };
        let mut beam: Vec<(Vec<u8>, LrRecognizer, (i64, u32))> = vec![(Vec::new(), left.clone(), score(left, best.0))];
        let mut runs = 0;
        // Layout templates seed the beam beside the left state itself.
        for t in layout_templates(&self.suffix) {
            for nl in [&b""[..], b"\n"] {
                let mut w = nl.to_vec();
                w.extend_from_slice(&t);
                let mut st = left.clone();
                if !st.try_push_bytes(&w) {
                    continue;
                }
                runs += 1;
                match self.run(&st) {
                    Outcome::Joins => return Ok(w),
                    Outcome::FailsAt(p) => {
                        if p > best.0 {
                            best = (p, w.clone());
                        }
                        let sc = score(&st, p);
                        beam.push((w, st, sc));
                    }
                }
            }
        }
        for _ in 0..MAX_PIECES {
            let mut next: Vec<(Vec<u8>, LrRecognizer, (i64, u32))> = Vec::new();
            for (bridge, st, _) in &beam {
                for piece in pieces.for_state(st) {
                    let mut st2 = st.clone();
                    if !st2.try_push_bytes(&piece) {
                        continue;
                    }
                    runs += 1;
                    let mut w = bridge.clone();
                    w.extend_from_slice(&piece);
                    match self.run(&st2) {
                        Outcome::Joins => return Ok(w),
                        Outcome::FailsAt(p) => {
                            if p > best.0 {
                                best = (p, w.clone());
                            }
                            let sc = score(&st2, p);
                            if !next.iter().any(|(_, s, _)| s.same_future(&st2, same_lr)) {
                                next.push((w, st2, sc));
                            }
                        }
                    }
                    if runs >= MAX_RUNS {
                        return Err(self.unjoinable(left, &best.1, best.0));
                    }
                }
            }
            // Stable: among equal scores the earlier (structural, shorter) piece wins.
            next.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.len().cmp(&b.0.len())));
            next.truncate(BEAM);
            if next.is_empty() {
                break;
            }
            beam = next;
        }
        Err(self.unjoinable(left, &best.1, best.0))
    }

    #[cold]
    fn unjoinable(&self, left: &LrRecognizer, bridge: &[u8], at: u32) -> FimError {
        let mut st = left.clone();
        let detail = if st.try_push_bytes(bridge) {
            self.explain(&st).map_or_else(|| "unexpected end of input".to_string(), |e| e.to_string())
        } else {
            String::new()
        };
        let offset = at as usize;
        let (line, col) = self.line_col(offset);
        FimError::Unjoinable { offset, line, col, detail }
    }
}

/// Candidate pieces of a bridge.
struct Pieces {
    /// Structural pieces tried in every state: string and comment openers, brackets,
    /// newlines with the indentations the suffix's lines use.
    fixed: Vec<Vec<u8>>,
    /// A shortest text of each terminal (indexed by terminal id; empty if none).
    examples: Vec<Vec<u8>>,
    /// Brackets open at the cursor if the suffix is lexed from a lexeme start (or
    /// after the string opener that makes it lex), when it lexes.
    needed_depth: Option<u32>,
}

impl Pieces {
    fn new(lang: &Arc<Language>, suffix: &[u8]) -> Self {
        let mut fixed: Vec<Vec<u8>> = Vec::new();
        let openers: [&[u8]; 6] = [b"", b"'", b"\"", b"'''", b"\"\"\"", b"#"];
        let mut needed_depth = None;
        if let Some(py) = &lang.python {
            for o in openers {
                let mut text = o.to_vec();
                text.extend_from_slice(suffix);
                if let Ok(lexemes) = lex(&lang.dfa, &text) {
                    let (mut depth, mut needed) = (0u32, 0u32);
                    for l in &lexemes {
                        let t = l.terminals[0];
                        if py.open.contains(&t) {
                            depth += 1;
                        } else if py.close.contains(&t) {
                            if depth == 0 {
                                needed += 1;
                            } else {
                                depth -= 1;
                            }
                        }
                    }
                    needed_depth = Some(needed);
                    if !o.is_empty() {
                        fixed.push(o.to_vec());
                    }
                    break;
                }
            }
            fixed.extend([b"(".to_vec(), b"[".to_vec(), b"{".to_vec()]);
            let mut cols: Vec<usize> = Vec::new();
            for line in suffix.split(|&b| b == b'\n').skip(1) {
                let c = line.iter().take_while(|&&b| b == b' ').count();
                if c < line.len() && line[c] != b'#' && !cols.contains(&c) && cols.len() < 6 {
                    cols.push(c);
                }
            }
            for c in cols {
                let mut p = b"\n".to_vec();
                p.extend(std::iter::repeat_n(b' ', c));
                fixed.push(p);
            }
        }
        fixed.push(b"\n".to_vec());
        Self { fixed, examples: shortest_examples(lang), needed_depth }
    }

    /// The pieces to try after state `st`: the fixed ones, then one example of each
    /// acceptable terminal (alone and after a space).
    fn for_state(&self, st: &LrRecognizer) -> Vec<Vec<u8>> {
        let mut out = self.fixed.clone();
        let lang = st.language();
        for t in st.acceptable_terminals().iter() {
            if lang.ignored.contains(t) {
                continue;
            }
            let ex = &self.examples[t as usize];
            if ex.is_empty() || out.contains(ex) {
                continue;
            }
            out.push(ex.clone());
            let mut spaced = b" ".to_vec();
            spaced.extend_from_slice(ex);
            out.push(spaced);
        }
        out
    }
}

/// Texts that give the suffix's lines the indentation stack and the block they
/// continue: a ladder of `if 1:` headers at the columns the suffix dedents to, and,
/// when the suffix starts with a continuation clause (`else`, `elif`, `except`,
/// `finally`), the statement it continues. Two shapes: the cursor at a line start
/// (the suffix's first line carries its own indentation) and the cursor inside a
/// line (the template ends at the deepest column, in a statement).
fn layout_templates(suffix: &[u8]) -> Vec<Vec<u8>> {
    let lines: Vec<&[u8]> = suffix.split(|&b| b == b'\n').collect();
    let indent = |l: &[u8]| l.iter().take_while(|&&b| b == b' ').count();
    let content = |l: &[u8]| {
        let c = indent(l);
        c < l.len() && l[c] != b'#' && l[c] != b'\r'
    };
    let mut later: Vec<usize> = lines.iter().skip(1).filter(|l| content(l)).map(|l| indent(l)).collect();
    later.sort_unstable();
    later.dedup();
    let pad = |c: usize| std::iter::repeat_n(b' ', c).collect::<Vec<u8>>();
    let mut out = Vec::new();
    // The cursor at a line start: the first content line's indentation is its own.
    if let Some(first) = lines.iter().find(|l| content(l)) {
        let c0 = indent(first);
        let word: Vec<u8> = first[c0..].iter().take_while(|b| b.is_ascii_alphabetic()).copied().collect();
        let header: Option<&[u8]> = match &word[..] {
            b"else" | b"elif" => Some(b"if 1:"),
            b"except" | b"finally" => Some(b"try:"),
            _ => None,
        };
        let mut ladder: Vec<usize> = std::iter::once(0).chain(later.iter().copied()).filter(|&c| c < c0).collect();
        ladder.dedup();
        let mut t = Vec::new();
        for &c in &ladder {
            t.extend(pad(c));
            t.extend_from_slice(b"if 1:\n");
        }
        match header {
            Some(h) => {
                t.extend(pad(c0));
                t.extend_from_slice(h);
                t.push(b'\n');
                t.extend(pad(c0 + 1));
                t.extend_from_slice(b"pass\n");
                out.push(t);
            }
            None if c0 > 0 => out.push(t),
            None => {}
        }
    }
    // The cursor inside a line: a ladder to the deepest column the suffix uses.
    if !later.is_empty() {
        let mut ladder: Vec<usize> = std::iter::once(0).chain(later.iter().copied()).collect();
        ladder.dedup();
        let last = ladder.pop().unwrap_or(0);
        let mut t = Vec::new();
        for &c in &ladder {
            t.extend(pad(c));
            t.extend_from_slice(b"if 1:\n");
        }
        t.extend(pad(last));
        if !t.is_empty() {
            out.push(t);
        }
    }
    out
}

/// A shortest printable-ASCII text of each lexed terminal (a breadth-first search of
/// the lexer DFA), cached per language.
fn shortest_examples(lang: &Arc<Language>) -> Vec<Vec<u8>> {
    static CACHE: Mutex<Vec<(usize, Vec<Vec<u8>>)>> = Mutex::new(Vec::new());
    let key = Arc::as_ptr(lang) as usize;
    if let Ok(c) = CACHE.lock() {
        if let Some((_, v)) = c.iter().find(|(k, _)| *k == key) {
            return v.clone();
        }
    }
    let dfa = &lang.dfa;
    let n = dfa.num_states();
    let mut prev: Vec<Option<(u32, u8)>> = vec![None; n];
    let mut seen = vec![false; n];
    let mut queue = std::collections::VecDeque::from([LexerDfa::START]);
    seen[LexerDfa::START as usize] = true;
    let mut examples = vec![Vec::new(); lang.grammar.num_terminals()];
    while let Some(s) = queue.pop_front() {
        for &t in dfa.winners(s) {
            if examples[t as usize].is_empty() {
                let mut text = Vec::new();
                let mut cur = s;
                while let Some((p, b)) = prev[cur as usize] {
                    text.push(b);
                    cur = p;
                }
                text.reverse();
                examples[t as usize] = text;
            }
        }
        for b in 0x20u8..0x7f {
            let q = dfa.next(s, b);
            if q != LexerDfa::DEAD && !seen[q as usize] {
                seen[q as usize] = true;
                prev[q as usize] = Some((s, b));
                queue.push_back(q);
            }
        }
    }
    if let Ok(mut c) = CACHE.lock() {
        c.push((key, examples.clone()));
    }
    examples
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python;

    fn request(prefix: &str, suffix: &str) -> (LrRecognizer, SuffixQuotient, Result<Vec<u8>, FimError>) {
        let py = python().unwrap();
        let left = left_state(&py, prefix.as_bytes()).unwrap();
        let q = SuffixQuotient::new(&py, suffix.as_bytes()).unwrap();
        let b = q.find_bridge(&left);
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
    }

    #[test]
    fn bridges_are_found_for_suffixes_needing_context() {
        for (prefix, suffix) in [
            ("def f(a):\n    x = foo(", ", 3])\n    return x\n"),
            ("x = 1\n", "    else:\n        y = 2\n"),
            ("", "abc'''\nprint(s)\n"),
            ("import os\n", ")\n"),
            ("class A:\n    def f(self):\n        pass\n", "        return 1\n"),
        ] {
            let (left, q, b) = request(prefix, suffix);
            let w = b.unwrap_or_else(|e| panic!("{prefix:?} / {suffix:?}: {e}"));
            let mut text = prefix.as_bytes().to_vec();
            text.extend_from_slice(&w);
            text.extend_from_slice(suffix.as_bytes());
            let mut r = python().unwrap().recognizer();
            assert!(r.push_bytes(&text).is_ok() && r.is_complete(), "{:?}", String::from_utf8_lossy(&text));
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
            Err(e @ FimError::NotUtf8 { offset: 5, byte: 0xff, part: Part::Suffix }) => assert!(e.to_string().contains("offset 5")),
            other => panic!("{other:?}"),
        }
        // `= =` can follow nothing.
        let (_, _, b) = request("x = 1\n", "y = = 2\n");
        match b {
            Err(e @ FimError::Unjoinable { offset, line: 1, .. }) => {
                assert!((2..=4).contains(&offset), "{e}");
                assert!(e.to_string().contains("no middle joins the suffix"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn memo_cuts_later_runs_short() {
        let body: String = (0..200).map(|i| format!("    v{i} = {i}\n")).collect();
        let (left, q, b) = request("def f():\n    a = ", &format!("2\n{body}"));
        assert_eq!(b.as_deref().ok(), Some(&b""[..]));
        let before = q.stats();
        assert!(joins(&left, &q, "1 + "));
        assert!(joins(&left, &q, "1 +"), "`a = 1 +2` is valid");
        assert!(!joins(&left, &q, "("), "a bracket the suffix never closes");
        let after = q.stats();
        assert!(after.hits > before.hits, "{before:?} {after:?}");
    }
}
