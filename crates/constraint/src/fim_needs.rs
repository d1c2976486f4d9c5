//! [`SuffixNeeds`]: what the suffix of a fill-in-the-middle request still needs from
//! the middle, in words, for the inspector (`Inspection::needs`): the brackets it
//! closes that the middle must have opened (or must close first), the indentation
//! level its next line is at (the DEDENTs still pending), and the lexeme it starts
//! inside. Read off the suffix once per request; per step only the left side
//! (prefix + middle) is compared with it.
//!
//! This is a description, not the decision: whether a middle joins is decided by the
//! recognizer running the suffix ([`espalier_grammar::SuffixQuotient::joins`]); the
//! lines here say why it does not yet, in the terms a reader checks by eye.

use espalier_grammar::cursor_layout::cursor_layouts;
use espalier_grammar::{Language, LrRecognizer};

/// The suffix's demands, computed once per request ([`SuffixNeeds::of`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SuffixNeeds {
    /// Brackets the suffix closes without opening them (they must be open before it).
    closes: u32,
    /// When the rest of the cursor's line in the suffix is blank: the column of the
    /// suffix's next content line (tabs to multiples of 8). Only for a layer that lays
    /// lines out (Python's).
    next_line_col: Option<u32>,
    /// The suffix's leading word characters (identifier or number), which run on from
    /// whatever word the middle ends with.
    head: Option<String>,
}

impl SuffixNeeds {
    /// Reads the suffix's demands (the lexeme layouts of
    /// [`espalier_grammar::cursor_layout`], the suffix's first lines).
    pub fn of(lang: &Language, suffix: &[u8]) -> Self {
        let closes = cursor_layouts(lang, suffix)
            .iter()
            .find(|l| l.opener.is_empty())
            .map_or(0, |l| l.depth);
        let next_line_col = lang.layer.layout().and_then(|_| next_line_col(suffix));
        let word = suffix.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
        let head =
            (word > 0).then(|| String::from_utf8_lossy(&suffix[..word.min(24)]).into_owned());
        Self { closes, next_line_col, head }
    }

    /// The lines the inspector shows for the left state `left` (prefix + middle);
    /// `joins`: whether prefix + middle + suffix is already a complete program.
    pub fn describe(&self, left: &LrRecognizer, joins: bool) -> Vec<String> {
        let mut out = vec![if joins {
            "joins the suffix now: EOS allowed".to_owned()
        } else {
            "does not join the suffix yet".to_owned()
        }];
        // The recognizer counts a bracket once its lexeme ends (at the next byte).
        let open = match left.remainder_bytes() {
            b"(" | b"[" | b"{" => left.bracket_depth() + 1,
            b")" | b"]" | b"}" => left.bracket_depth().saturating_sub(1),
            _ => left.bracket_depth(),
        };
        out.push(match open.cmp(&self.closes) {
            _ if open == 0 && self.closes == 0 => {
                "brackets: none open, none closed by the suffix".to_owned()
            }
            std::cmp::Ordering::Equal => format!("brackets: {open} open, all closed by the suffix"),
            std::cmp::Ordering::Greater => {
                format!(
                    "brackets: {open} open, the suffix closes {}: close {} first",
                    self.closes,
                    open - self.closes
                )
            }
            std::cmp::Ordering::Less => {
                format!(
                    "brackets: the suffix closes {}, {open} open: open {} more",
                    self.closes,
                    self.closes - open
                )
            }
        });
        if let (Some(col), Some(ind)) = (self.next_line_col, left.indentation()) {
            let levels: Vec<String> = ind.cols.iter().map(u32::to_string).collect();
            let dedents = ind.cols.iter().filter(|&&c| c > col).count();
            let top = ind.cols.last().copied().unwrap_or(0);
            let what = if col > top {
                "an INDENT: the middle must open a block (a line ending in `:`)".to_owned()
            } else if !ind.cols.contains(&col) {
                "no open level at that column: the middle must open one".to_owned()
            } else if dedents == 0 {
                "no DEDENT pending".to_owned()
            } else {
                format!("{dedents} DEDENT{} pending", if dedents == 1 { "" } else { "s" })
            };
            out.push(format!(
                "indentation: levels {}; the suffix's next line is at column {col}: {what}",
                levels.join(" ")
            ));
        }
        if let Some(head) = &self.head {
            let tail = String::from_utf8_lossy(left.remainder_bytes()).into_owned();
            out.push(if tail.is_empty() {
                format!("the suffix starts with `{head}`: a word the middle ends with runs on into it")
            } else {
                format!("the suffix starts inside a lexeme: the middle's unfinished `{tail}` runs on into `{head}`")
            });
        }
        out
    }
}

/// The column of the suffix's next content line when the rest of the cursor's line is
/// blank (spaces, tabs, a comment), skipping blank and comment lines.
fn next_line_col(suffix: &[u8]) -> Option<u32> {
    let mut lines = suffix.split(|&b| b == b'\n');
    let first = lines.next()?;
    if !is_blank(first) {
        return None;
    }
    lines.find(|l| !is_blank(l)).map(|l| {
        l.iter().take_while(|&&b| b == b' ' || b == b'\t').fold(0, |c, &b| {
            if b == b'\t' {
                (c / 8 + 1) * 8
            } else {
                c + 1
            }
        })
    })
}

/// A line with nothing but whitespace or a comment.
fn is_blank(line: &[u8]) -> bool {
    let rest: &[u8] = line.trim_ascii_start();
    rest.is_empty() || rest[0] == b'#'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn left(py: &std::sync::Arc<Language>, text: &str) -> LrRecognizer {
        let mut r = py.recognizer();
        r.push_bytes(text.as_bytes()).unwrap();
        r
    }

    #[test]
    fn brackets_dedents_and_a_split_lexeme_are_named() {
        let py = espalier_grammar::python().unwrap();
        let needs = SuffixNeeds::of(&py, b"o(a, [1,\n 2])\n");
        assert_eq!(needs.closes, 0, "the suffix opens what it closes");
        let lines = needs.describe(&left(&py, "def f(a):\n    return fo"), false);
        assert!(lines.iter().any(|l| l.contains("unfinished `fo` runs on into `o`")), "{lines:?}");

        let needs = SuffixNeeds::of(&py, b"])\n");
        assert_eq!(needs.closes, 2);
        let lines = needs.describe(&left(&py, "x = f([1"), false);
        assert!(
            lines.iter().any(|l| l == "brackets: 2 open, all closed by the suffix"),
            "{lines:?}"
        );
        let lines = needs.describe(&left(&py, "x = f("), false);
        assert!(lines.iter().any(|l| l.contains("open 1 more")), "{lines:?}");

        let needs = SuffixNeeds::of(&py, b"\n    # c\n\nprint(1)\n");
        assert_eq!(needs.next_line_col, Some(0));
        let lines = needs.describe(&left(&py, "def f():\n    if x:\n        y = 1"), false);
        assert!(
            lines.iter().any(|l| l.contains("levels 0 4 8") && l.contains("2 DEDENTs pending")),
            "{lines:?}"
        );
        let lines = needs.describe(&left(&py, "x = 1"), true);
        assert_eq!(lines[0], "joins the suffix now: EOS allowed");
        assert!(lines.iter().any(|l| l.contains("no DEDENT pending")), "{lines:?}");
        assert!(!lines.iter().any(|l| l.contains("the suffix starts")), "{lines:?}");

        let needs = SuffixNeeds::of(&py, b"\n        return 1\n");
        let lines = needs.describe(&left(&py, "def f():\n    x = 1"), false);
        assert!(lines.iter().any(|l| l.contains("an INDENT")), "{lines:?}");
    }
}
