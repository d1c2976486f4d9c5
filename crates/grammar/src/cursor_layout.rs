//! The layouts a fill-in-the-middle cursor may be in, read off the suffix (the
//! lexeme it starts inside, brackets, line position, indentation stack): the
//! starting states the suffix recognizer ([`crate::suffix_earley`]) is tried from
//! when deciding whether some program ends with the suffix
//! ([`crate::SuffixQuotient::tail_exists`]).

use crate::language::Language;
use crate::layers::LayoutTerminals;
use crate::lexer::{lex, Lexeme};

/// A layout the cursor may be in (see [`cursor_layouts`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Bytes that open the lexeme the cursor is inside (a quote, `#`), or none.
    pub opener: Vec<u8>,
    /// Brackets open at the cursor.
    pub depth: u32,
    /// Indentation stack at the cursor (bottom first).
    pub cols: Vec<u32>,
    /// Whether the cursor is at a line start (else inside a line's content).
    pub line_start: bool,
}

/// The layouts the cursor may be in, as the suffix's lexemes suggest: after which
/// opener (none, or the string / comment the cursor is inside), with how many
/// brackets open (those the suffix closes without opening), at a line start or
/// inside a line, and with which indentation stack: the columns of the suffix's
/// logical lines below the line the cursor is on, with that line at, below or above
/// the next line's column.
pub fn cursor_layouts(lang: &Language, suffix: &[u8]) -> Vec<Layout> {
    let Some(layout) = lang.layer.layout() else {
        return vec![Layout { opener: Vec::new(), depth: 0, cols: vec![0], line_start: false }];
    };
    let mut out = Vec::new();
    for o in openers(lang, suffix) {
        let mut text = o.clone();
        text.extend_from_slice(suffix);
        let Ok(lexemes) = lex(&lang.dfa, &text) else { continue };
        let needed = brackets_needed(&layout, &lexemes);
        let lines = LineColumns::read(lang, &layout, &text, &lexemes, needed);
        let next_col = lines.later.first().copied();
        if o.is_empty() && needed == 0 {
            // The cursor at a line start: the first content line's column is its own.
            lines.push_layouts(&mut out, &o, needed, true, lines.first.or(next_col));
        }
        lines.push_layouts(&mut out, &o, needed, false, next_col);
    }
    out.dedup();
    out
}

/// The bytes the cursor may stand after, inside a lexeme: none, a string's quotes,
/// a comment's `#`, a line continuation, and each head of a keyword or operator
/// whose tail starts the suffix (`nd` of `and`, `=` of `==`).
fn openers(lang: &Language, suffix: &[u8]) -> Vec<Vec<u8>> {
    let mut openers: Vec<Vec<u8>> = [&b""[..], b"'", b"\"", b"'''", b"\"\"\"", b"#", b"\\"]
        .iter()
        .map(|o| o.to_vec())
        .collect();
    for t in &lang.grammar.terminals {
        let name = t.name.as_bytes();
        if !t.is_literal
            || name.len() < 3
            || name[0] != b'"'
            || name[name.len() - 1] != b'"'
            || name.contains(&b'\\')
        {
            continue;
        }
        let k = &name[1..name.len() - 1];
        for i in 1..k.len() {
            if suffix.starts_with(&k[i..]) && !openers.iter().any(|o| o == &k[..i]) {
                openers.push(k[..i].to_vec());
            }
        }
    }
    openers
}

/// How many brackets the lexemes close without opening them.
fn brackets_needed(py: &LayoutTerminals, lexemes: &[Lexeme]) -> u32 {
    let mut needed = 0u32;
    let mut depth = 0u32;
    for l in lexemes {
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
    needed
}

/// The columns of the suffix's logical lines (depth 0 once the cursor's brackets
/// close).
struct LineColumns {
    /// The column of the line the cursor is on, if it has content.
    first: Option<u32>,
    /// The columns of the later lines, each once, in order of appearance.
    later: Vec<u32>,
    /// `later`, sorted.
    sorted: Vec<u32>,
}

impl LineColumns {
    /// Reads the columns off `lexemes` of `text`, with `needed` brackets open.
    fn read(
        lang: &Language,
        py: &LayoutTerminals,
        text: &[u8],
        lexemes: &[Lexeme],
        needed: u32,
    ) -> LineColumns {
        let mut depth = needed;
        let mut first: Option<u32> = None;
        let mut later: Vec<u32> = Vec::new();
        let mut line_no = 0usize;
        let mut at_line_start = true;
        let mut col = 0u32;
        for l in lexemes {
            let t = l.terminals[0];
            let bytes = &text[l.start..l.end];
            if t == py.nl || lang.grammar.terminals[t.index()].name == "CONTINUATION" {
                if t == py.nl && depth == 0 {
                    line_no += 1;
                    at_line_start = true;
                    col = 0;
                }
                continue;
            }
            if lang.ignored.contains(t) {
                if at_line_start && bytes.iter().all(|&b| b == b' ' || b == b'\t' || b == b'\x0c') {
                    for &b in bytes {
                        col = if b == b'\t' { (col / 8 + 1) * 8 } else { col + 1 };
                    }
                }
                continue;
            }
            if at_line_start {
                at_line_start = false;
                if line_no == 0 {
                    first = Some(col);
                } else if !later.contains(&col) {
                    later.push(col);
                }
            }
            if py.open.contains(&t) {
                depth += 1;
            } else if py.close.contains(&t) {
                depth = depth.saturating_sub(1);
            }
        }
        let mut sorted = later.clone();
        sorted.sort_unstable();
        LineColumns { first, later, sorted }
    }

    /// Pushes the layouts with the cursor's line at column `level` (none: column 0
    /// alone): the stack with that column, without it, and with a deeper one above.
    fn push_layouts(
        &self,
        out: &mut Vec<Layout>,
        opener: &[u8],
        depth: u32,
        line_start: bool,
        level: Option<u32>,
    ) {
        let layout = |cols: Vec<u32>| Layout { opener: opener.to_vec(), depth, cols, line_start };
        let Some(c) = level else {
            out.push(layout(vec![0]));
            return;
        };
        let big = self.sorted.last().copied().unwrap_or(0).max(self.first.unwrap_or(0)) + 1;
        let mut below = vec![0];
        below.extend(self.sorted.iter().copied().filter(|&x| x > 0 && x < c));
        let mut same = below.clone();
        if c > 0 {
            same.push(c);
        }
        let mut deeper = same.clone();
        deeper.push(big.max(c + 1));
        out.push(layout(same));
        if c > 0 {
            out.push(layout(below));
        }
        out.push(layout(deeper));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_follow_the_suffix() {
        let py = crate::python().unwrap();
        // Two brackets closed without being opened; lines at columns 4 and 0.
        let ls = cursor_layouts(&py, b"x])\n    y = 1\nz = 2\n");
        assert!(
            ls.iter().any(|l| l.opener.is_empty()
                && l.depth == 2
                && !l.line_start
                && l.cols == vec![0, 4]),
            "{ls:?}"
        );
        assert!(ls.iter().all(|l| l.depth == 2 || !l.opener.is_empty()), "{ls:?}");
        // A suffix inside a triple-quoted string lexes only after the opener.
        let ls = cursor_layouts(&py, b"doc\n  more\"\"\"\nx = 1\n");
        assert!(ls.iter().any(|l| l.opener == b"\"\"\""), "{ls:?}");
        assert!(ls.iter().all(|l| !l.opener.is_empty()), "{ls:?}");
    }
}
