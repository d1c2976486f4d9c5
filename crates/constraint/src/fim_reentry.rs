//! What the suffix of a fill-in-the-middle request expects to follow, read off the
//! prefix once per request: the *head* of the prefix's last logical line (its
//! indentation and the content from the line's first lexeme to the cursor).
//!
//! The suffix was written to continue that line: its first bytes close the brackets
//! the head opened, finish the lexeme the head ends inside, and its later lines dedent
//! from the head's block. So when a middle has gone astray (new statements, deeper
//! blocks), a bridge that ends the current line, comes back to the head's column and
//! writes the head again (or a tail of it: the part from some lexeme on) re-enters the
//! suffix directly, where a blind search would have to rediscover the brackets, the
//! layout and the half-written lexeme byte by byte. Beside the head's tails, one
//! synthetic opener: a name followed by the brackets the suffix closes without
//! opening (`x((` before `path[:1]))`), for suffixes whose line the head does not
//! start. The bridge search ([`crate::fim_bridge`]) offers these texts as moves
//! beside its single terminals.

use espalier_grammar::Language;

/// Statement heads the synthetic openers start with (then the brackets the suffix
/// closes without opening): a suffix may continue an expression, a block header
/// (`):` after `if x(`), a class or function name, a module path (`.tests import`).
const SYNTHETIC: [&str; 5] = ["x", "if x", "def x", "class x", "from x"];
/// Synthetic openers for a suffix that starts inside a string or a comment.
const QUOTED: [&str; 5] = ["x = '", "x = \"", "x = '''", "x = \"\"\"", "#"];
/// Tails of the head offered as moves at most (the longest, whole head first).
const MAX_TAILS: usize = 24;
/// The longest head kept, in bytes (a longer one is cut to its last bytes' tails).
const MAX_HEAD: usize = 96;

/// The re-entry texts of a request (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct Reentry {
    /// The head's indentation (the bytes of its line before its first lexeme).
    pub indent: Vec<u8>,
    /// Tails of the head's content, each starting where a lexeme may start, whole
    /// content first; then the synthetic openers.
    pub tails: Vec<Vec<u8>>,
    /// The blocks enclosing the head, outermost first: each header line's column
    /// and a header of the same kind (`try:`, `if x:`, `def x():`...), to open them
    /// again when a middle has left them.
    pub headers: Vec<(u32, Vec<u8>)>,
    /// Where `tails` stop being the head's and the synthetic openers begin.
    pub synthetic_from: usize,
}

impl Reentry {
    /// The re-entry texts of a request: the tails of the head of the last logical
    /// line of `prefix` (a viable prefix of `lang`), then the synthetic opener for
    /// `suffix`; empty for a language without Python's layout.
    pub fn new(lang: &std::sync::Arc<Language>, prefix: &[u8], suffix: &[u8]) -> Self {
        let mut r = Self::from_prefix(lang, prefix);
        r.synthetic_from = r.tails.len();
        if lang.python.is_some() {
            let brackets = unclosed_openers(suffix);
            let openers = SYNTHETIC.iter().map(|h| [h.as_bytes(), &brackets].concat()).chain(QUOTED.iter().map(|q| q.as_bytes().to_vec()));
            for opener in openers {
                if !r.tails.contains(&opener) {
                    r.tails.push(opener);
                }
            }
        }
        r
    }

    /// The head's tails alone (none when the prefix has no content line).
    fn from_prefix(lang: &std::sync::Arc<Language>, prefix: &[u8]) -> Self {
        let Some((start, headers)) = last_content_start(lang, prefix) else { return Self::default() };
        let line = prefix[..start].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let indent = prefix[line..start].to_vec();
        if !indent.iter().all(|&b| b == b' ' || b == b'\t') {
            return Self::default();
        }
        let content = &prefix[start..];
        let mut cuts: Vec<usize> = (0..content.len()).filter(|&k| k == 0 || lexeme_may_start(content, k)).collect();
        cuts.retain(|&k| content.len() - k <= MAX_HEAD);
        if cuts.len() > MAX_TAILS {
            // Keep the longest tail and the shortest ones.
            let keep_from = cuts.len() - (MAX_TAILS - 1);
            let first = cuts[0];
            cuts = std::iter::once(first).chain(cuts[keep_from..].iter().copied()).collect();
        }
        let tails = cuts.into_iter().map(|k| content[k..].to_vec()).filter(|t| !t.is_empty()).collect();
        Self { indent, tails, headers, synthetic_from: 0 }
    }

    /// The re-entry moves from a state whose indentation levels are `cols` and that
    /// is at a fresh line (else each move starts with a newline): the head's tails
    /// at the head's column, after re-opening the enclosing blocks the state has
    /// left; the synthetic openers also at each of the state's own levels.
    pub fn moves(&self, cols: &[u32], fresh_line: bool) -> Vec<Vec<u8>> {
        let head_col = self.indent.len() as u32;
        let levels: Vec<u32> = self.headers.iter().map(|h| h.0).chain(std::iter::once(head_col)).collect();
        let same = levels.iter().zip(cols).take_while(|(a, b)| a == b).count();
        let mut prelude: Vec<u8> = if fresh_line { Vec::new() } else { b"\n".to_vec() };
        if same == 0 {
            return Vec::new();
        }
        for (col, header) in &self.headers[(same - 1).min(self.headers.len())..] {
            prelude.extend(std::iter::repeat_n(b' ', *col as usize));
            prelude.extend_from_slice(header);
            prelude.push(b'\n');
        }
        prelude.extend_from_slice(&self.indent);
        let mut out: Vec<Vec<u8>> = self.tails.iter().map(|t| [&prelude[..], t].concat()).collect();
        let newline: &[u8] = if fresh_line { b"" } else { b"\n" };
        for &col in cols.iter().filter(|&&c| c != head_col) {
            let indent = vec![b' '; col as usize];
            out.extend(self.tails[self.synthetic_from..].iter().map(|t| [newline, &indent, t].concat()));
        }
        out
    }

    /// Whether there is nothing to offer.
    pub fn is_empty(&self) -> bool {
        self.tails.is_empty()
    }
}

/// The opening brackets, innermost last, that match the closing brackets `suffix`
/// has before opening them (a scan that skips one-line strings and comments: an
/// approximation, since a wrong opener is only a move the recognizer refuses).
fn unclosed_openers(suffix: &[u8]) -> Vec<u8> {
    let mut open: Vec<u8> = Vec::new();
    let mut needed: Vec<u8> = Vec::new();
    let mut quote: Option<u8> = None;
    let mut comment = false;
    for &b in suffix.iter().take(4000) {
        match (quote, comment, b) {
            (_, true, b'\n') => comment = false,
            (_, true, _) => {}
            (Some(_), _, b'\n') => quote = None,
            (Some(q), _, _) if b == q => quote = None,
            (Some(_), _, _) => {}
            (None, _, b'\'' | b'"') => quote = Some(b),
            (None, _, b'#') => comment = true,
            (None, _, b'(' | b'[' | b'{') => open.push(b),
            (None, _, b')' | b']' | b'}') => {
                let opener = match b {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                if open.pop().is_none() {
                    needed.push(opener);
                }
            }
            _ => {}
        }
    }
    needed.reverse();
    needed
}

/// Whether a lexeme may start at byte `k` of `text` (a change of character class, or
/// after a space): a cheap over-approximation; texts that do not lex are refused by
/// the recognizer when pushed.
fn lexeme_may_start(text: &[u8], k: usize) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let (a, b) = (text[k - 1], text[k]);
    if b == b' ' || b == b'\t' {
        return false;
    }
    a == b' ' || word(a) != word(b) || (!word(a) && !word(b))
}

/// The byte offset in `prefix` where its last logical line's content starts (the
/// first byte after which the Python layer reads that line's content), with the
/// headers of the blocks enclosing that line (see [`Reentry::headers`]), or `None`.
fn last_content_start(lang: &std::sync::Arc<Language>, prefix: &[u8]) -> Option<(usize, Vec<(u32, Vec<u8>)>)> {
    lang.python.as_ref()?;
    let mut r = lang.recognizer();
    let mut start = None;
    // Content lines (column, header kind) enclosing the current one, and the current.
    let mut lines: Vec<(u32, &'static str)> = Vec::new();
    // Whether only blanks have followed the last newline (a candidate line start).
    let mut blank = true;
    for (i, &b) in prefix.iter().enumerate() {
        if blank && !matches!(b, b' ' | b'\t' | b'\x0c' | b'\r' | b'\n' | b'#') {
            let mut ended = r.clone();
            if ended.end_lexeme() && ended.at_line_start() {
                start = Some(i);
                let col = ended.indentation().map_or(0, |ind| ind.col);
                while lines.last().is_some_and(|l| l.0 >= col) {
                    lines.pop();
                }
                lines.push((col, header_of(&prefix[i..])));
            }
        }
        blank = b == b'\n' || (blank && matches!(b, b' ' | b'\t' | b'\x0c' | b'\r'));
        if !r.try_push_byte(b) {
            return None;
        }
    }
    lines.pop();
    start.map(|s| (s, lines.into_iter().map(|(c, h)| (c, h.as_bytes().to_vec())).collect()))
}

/// A block header of the same kind as the line starting `line` (its first word):
/// what lets the lines of the block (and the clauses after it, `except`, `else`)
/// parse again.
fn header_of(line: &[u8]) -> &'static str {
    let word: &[u8] = &line[..line.iter().position(|b| !(b.is_ascii_alphanumeric() || *b == b'_')).unwrap_or(line.len())];
    match word {
        b"try" | b"except" | b"finally" => "try:",
        b"for" => "for x in x:",
        b"while" => "while x:",
        b"with" => "with x:",
        b"def" | b"async" => "def x():",
        b"class" => "class x:",
        _ => "if x:",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reentry(prefix: &str) -> (String, Vec<String>) {
        let py = espalier_grammar::python().unwrap();
        let r = Reentry::from_prefix(&py, prefix.as_bytes());
        assert!(Reentry::new(&py, prefix.as_bytes(), b"").tails.iter().any(|t| t == b"if x"));
        (String::from_utf8(r.indent).unwrap(), r.tails.into_iter().map(|t| String::from_utf8(t).unwrap()).collect())
    }

    #[test]
    fn the_head_is_the_last_logical_line() {
        let (indent, tails) = reentry("class A:\n    def f(self):\n        dists = list(distributions(\n            path=s");
        assert_eq!(indent, "        ");
        assert_eq!(tails[0], "dists = list(distributions(\n            path=s");
        assert!(tails.contains(&"list(distributions(\n            path=s".to_string()), "{tails:?}");
        assert!(tails.contains(&"s".to_string()) && tails.contains(&"(\n            path=s".to_string()), "{tails:?}");
        // A multi-line string belongs to the line it opens on.
        let (indent, tails) = reentry("x = 1\ny = '''a\nb");
        assert_eq!((indent.as_str(), tails[0].as_str()), ("", "y = '''a\nb"));
        // At a line start the head is the previous line (the one the cursor ends).
        let (_, tails) = reentry("if x:\n    y = 1\n");
        assert_eq!(tails[0], "y = 1\n");
        assert_eq!(reentry(""), (String::new(), Vec::new()));
    }

    /// A middle that left the head's blocks gets them back, of the same kinds.
    #[test]
    fn blocks_are_opened_again() {
        let py = espalier_grammar::python().unwrap();
        let r = Reentry::new(&py, b"class A:\n    def f(self):\n        try:\n            self.asser", b".x()\n        finally:\n            pass\n");
        assert_eq!(r.headers, vec![(0, b"class x:".to_vec()), (4, b"def x():".to_vec()), (8, b"try:".to_vec())]);
        let moves = r.moves(&[0], true);
        assert!(moves.contains(&b"class x:\n    def x():\n        try:\n            self.asser".to_vec()), "{moves:?}");
        let moves = r.moves(&[0, 4, 8, 12, 16], false);
        assert!(moves.contains(&b"\n            self.asser".to_vec()), "{moves:?}");
    }

    #[test]
    fn the_opener_closes_what_the_suffix_closes() {
        assert_eq!(unclosed_openers(b"path[:1]))\n    y = 2\n"), b"((");
        assert_eq!(unclosed_openers(b"a, ')', \"]\"], b)  # )\nz = (1)\n"), b"([");
        assert_eq!(unclosed_openers(b"x = 1\n"), b"");
    }
}
