//! The layouts a fill-in-the-middle cursor may be in, read off the suffix (the
//! lexeme it starts inside, brackets, line position, indentation stack): the
//! starting states the suffix recognizer ([`crate::suffix_earley`]) is tried from
//! when deciding whether some program ends with the suffix
//! ([`crate::SuffixQuotient::tail_exists`]).

use crate::language::Language;
use crate::lexer::lex;

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
    let mut out = Vec::new();
    let Some(py) = lang.python() else {
        out.push(Layout { opener: Vec::new(), depth: 0, cols: vec![0], line_start: false });
        return out;
    };
    let mut openers: Vec<Vec<u8>> = [&b""[..], b"'", b"\"", b"'''", b"\"\"\"", b"#", b"\\"]
        .iter()
        .map(|o| o.to_vec())
        .collect();
    // The suffix may start inside a keyword or operator (`nd` of `and`, `=` of `==`):
    // each literal terminal's head whose tail starts the suffix opens it.
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
    for o in &openers {
        let o = &o[..];
        let mut text = o.to_vec();
        text.extend_from_slice(suffix);
        let Ok(lexemes) = lex(&lang.dfa, &text) else { continue };
        let mut needed = 0u32;
        let mut depth = 0u32;
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
        // Columns of logical lines (depth 0 after the cursor's brackets close).
        let mut depth = needed;
        let mut first: Option<u32> = None;
        let mut later: Vec<u32> = Vec::new();
        let mut line_no = 0usize;
        let mut at_line_start = true;
        let mut col = 0u32;
        for l in &lexemes {
            let t = l.terminals[0];
            let bytes = &text[l.start..l.end];
            if t == py.nl || lang.grammar.terminals[t as usize].name == "CONTINUATION" {
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
        let next_col = later.first().copied();
        let mut sorted = later.clone();
        sorted.sort_unstable();
        let big = sorted.last().copied().unwrap_or(0).max(first.unwrap_or(0)) + 1;
        let stack_below = |c: u32| -> Vec<u32> {
            let mut v = vec![0];
            v.extend(sorted.iter().copied().filter(|&x| x > 0 && x < c));
            v
        };
        let mut push = |line_start: bool, level: Option<u32>| {
            let Some(c) = level else {
                out.push(Layout { opener: o.to_vec(), depth: needed, cols: vec![0], line_start });
                return;
            };
            let below = stack_below(c);
            let mut same = below.clone();
            if c > 0 {
                same.push(c);
            }
            let mut deeper = same.clone();
            deeper.push(big.max(c + 1));
            out.push(Layout { opener: o.to_vec(), depth: needed, cols: same, line_start });
            if c > 0 {
                out.push(Layout { opener: o.to_vec(), depth: needed, cols: below, line_start });
            }
            out.push(Layout { opener: o.to_vec(), depth: needed, cols: deeper, line_start });
        };
        if o.is_empty() && needed == 0 {
            // The cursor at a line start: the first content line's column is its own.
            push(true, first.or(next_col));
        }
        push(false, next_col);
    }
    out.dedup();
    out
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
