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
//!
//! Two more kinds, for suffixes the prefix's layout does not explain: block openers
//! sized from the suffix's own lines ([`SuffixLayout`]: a suffix whose first lines sit
//! deeper than any open block, or that starts mid-line before an `else` / `except`
//! clause, gets `if x:` / `try:` headers at the columns it needs, then its first
//! line's indentation or a synthetic opener), and quote openers (`"`, `'''`...) at
//! every state, inside brackets too, for a suffix that starts inside a string.

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
    /// The suffix's own layout, for block openers sized from it (see [`SuffixLayout`]).
    pub layout: SuffixLayout,
    /// Quotes the suffix may start inside (`"` when its first line holds one), each
    /// also after a space: moves at every state, inside brackets too.
    pub quotes: Vec<Vec<u8>>,
}

/// The columns the suffix's lines need (read off its text, as
/// `espalier_grammar::cursor_layout` does): the cursor's own line and the logical
/// lines after it. A middle that left the prefix's blocks, or whose suffix starts
/// deeper than any of them, re-enters through headers at the missing columns.
#[derive(Clone, Debug, Default)]
pub struct SuffixLayout {
    /// The prefix's last line when it is only indentation so far (the cursor inside
    /// it): the column of the cursor's line is then known, `first_col`.
    pub indent_line: Option<Vec<u8>>,
    /// The column of the cursor's line (its first content), when known.
    pub first_col: Option<u32>,
    /// The indentation the suffix starts with when its first line has content after
    /// it: a bridge may end on a new line with the rest of that line's indentation.
    pub lead: Option<u32>,
    /// The distinct columns of the suffix's later logical lines, in order, each with a
    /// header kind that admits its first line (`try:` before an `except` clause).
    pub later: Vec<(u32, &'static str)>,
}

impl Reentry {
    /// The re-entry texts of a request: the tails of the head of the last logical
    /// line of `prefix` (a viable prefix of `lang`), then the synthetic opener for
    /// `suffix`; empty for a language without Python's layout.
    pub fn new(lang: &std::sync::Arc<Language>, prefix: &[u8], suffix: &[u8]) -> Self {
        let mut r = Self::from_prefix(lang, prefix);
        r.synthetic_from = r.tails.len();
        if lang.layer.layout().is_some() {
            r.layout = SuffixLayout::new(prefix, suffix);
            r.quotes = quotes_of(suffix);
            let brackets = unclosed_openers(suffix);
            let openers = SYNTHETIC
                .iter()
                .map(|h| [h.as_bytes(), &brackets].concat())
                .chain(QUOTED.iter().map(|q| q.as_bytes().to_vec()));
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
        let Some((start, headers)) = last_content_start(lang, prefix) else {
            return Self::default();
        };
        let line = prefix[..start].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let indent = prefix[line..start].to_vec();
        if !indent.iter().all(|&b| b == b' ' || b == b'\t') {
            return Self::default();
        }
        let content = &prefix[start..];
        let mut cuts: Vec<usize> =
            (0..content.len()).filter(|&k| k == 0 || lexeme_may_start(content, k)).collect();
        cuts.retain(|&k| content.len() - k <= MAX_HEAD);
        if cuts.len() > MAX_TAILS {
            // Keep the longest tail and the shortest ones.
            let keep_from = cuts.len() - (MAX_TAILS - 1);
            let first = cuts[0];
            cuts = std::iter::once(first).chain(cuts[keep_from..].iter().copied()).collect();
        }
        let tails =
            cuts.into_iter().map(|k| content[k..].to_vec()).filter(|t| !t.is_empty()).collect();
        Self { indent, tails, headers, synthetic_from: 0, ..Self::default() }
    }

    /// The re-entry moves from a state whose indentation levels are `cols` and that
    /// is at a fresh line (else each move starts with a newline): the head's tails
    /// at the head's column, after re-opening the enclosing blocks the state has
    /// left; the synthetic openers also at each of the state's own levels.
    pub fn moves(&self, cols: &[u32], fresh_line: bool) -> Vec<Vec<u8>> {
        let head_col = self.indent.len() as u32;
        let levels: Vec<u32> =
            self.headers.iter().map(|h| h.0).chain(std::iter::once(head_col)).collect();
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
            out.extend(
                self.tails[self.synthetic_from..].iter().map(|t| [newline, &indent, t].concat()),
            );
        }
        out
    }

    /// Whether there is nothing to offer.
    pub fn is_empty(&self) -> bool {
        self.tails.is_empty()
    }

    /// Block openers sized from the suffix's layout, from a state at a fresh line
    /// whose indentation levels are `cols`: for each column the cursor's line may sit
    /// at (the known one, else the suffix's later columns and one deeper), headers at
    /// the deepest level below it and at each of the suffix's columns between, then
    /// the cursor's line: the prefix's indentation, or a synthetic opener at that
    /// column (also `try:` .. `except ` for a suffix that starts an `except` clause).
    pub fn block_moves(&self, cols: &[u32]) -> Vec<Vec<u8>> {
        let l = &self.layout;
        let mut targets: Vec<u32> = l.later.iter().map(|x| x.0).collect();
        targets.push(targets.iter().copied().max().unwrap_or(0) + 4);
        let known = l.indent_line.as_ref().and(l.first_col);
        targets.extend(known.filter(|f| !targets.contains(f)));
        let mut out = Vec::new();
        for t in targets {
            let Some(&c) = cols.iter().filter(|&&c| c < t).max() else { continue };
            if t == 0 || cols.contains(&t) && known != Some(t) {
                continue;
            }
            let mut levels = vec![c];
            let mut between: Vec<u32> =
                l.later.iter().map(|x| x.0).filter(|&x| x > c && x < t).collect();
            between.sort_unstable();
            between.dedup();
            levels.extend(between);
            let mut text = Vec::new();
            if !cols.contains(&t) {
                for &h in &levels {
                    let kind = l.later.iter().find(|x| x.0 == h).map_or("if x:", |x| x.1);
                    text.extend(std::iter::repeat_n(b' ', h as usize));
                    text.extend_from_slice(kind.as_bytes());
                    text.push(b'\n');
                }
            }
            if let Some(line) = l.indent_line.as_ref().filter(|_| known == Some(t)) {
                out.push([&text[..], line].concat());
            }
            let pad = |n: u32| vec![b' '; n as usize];
            if let Some(lead) = l.lead.filter(|&x| x <= t) {
                out.push([&text[..], &pad(t - lead)].concat());
            }
            for opener in &self.tails[self.synthetic_from..] {
                out.push([&text[..], &pad(t), opener].concat());
            }
            out.push(
                [&text[..], &pad(t), b"try:\n", &pad(t + 4), b"pass\n", &pad(t), b"except "]
                    .concat(),
            );
        }
        out
    }
}

/// The columns of the suffix's lines (see [`SuffixLayout`]), from a scan that
/// skips one-line strings, comments and lines inside brackets (an approximation:
/// a wrong column only makes a move the recognizer refuses).
impl SuffixLayout {
    /// Distinct later columns kept at most.
    const MAX_LATER: usize = 4;
    /// Suffix lines scanned at most.
    const MAX_LINES: usize = 16;

    fn new(prefix: &[u8], suffix: &[u8]) -> Self {
        let line_start = prefix.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let cur = &prefix[line_start..];
        let indent_line = cur.iter().all(|&b| b == b' ' || b == b'\t').then(|| cur.to_vec());
        let text: Vec<u8> =
            if indent_line.is_some() { [cur, suffix].concat() } else { suffix.to_vec() };
        let mut depth = 0usize;
        let mut first_col = None;
        let mut later: Vec<(u32, &'static str)> = Vec::new();
        let mut quote: Option<u8> = None;
        let first = &suffix[..suffix.iter().position(|&b| b == b'\n').unwrap_or(suffix.len())];
        let blanks = first.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
        let lead =
            (blanks > 0 && blanks < first.len() && first[blanks] != b'#' && first[blanks] != b'\r')
                .then_some(blanks as u32);
        for (n, line) in text.split(|&b| b == b'\n').take(Self::MAX_LINES).enumerate() {
            let at_depth0 = depth == 0;
            let col = line.iter().take_while(|&&b| b == b' ' || b == b'\t').fold(0u32, |c, &b| {
                if b == b'\t' {
                    (c / 8 + 1) * 8
                } else {
                    c + 1
                }
            });
            let content =
                &line[line.iter().position(|&b| b != b' ' && b != b'\t').unwrap_or(line.len())..];
            let has_content = !content.is_empty() && content[0] != b'#' && content[0] != b'\r';
            if n == 0 {
                if indent_line.is_some() && has_content {
                    first_col = Some(col);
                }
            } else if at_depth0
                && has_content
                && quote.is_none()
                && !later.iter().any(|x| x.0 == col)
                && later.len() < Self::MAX_LATER
            {
                let word_end = content
                    .iter()
                    .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
                    .unwrap_or(content.len());
                let kind = if matches!(&content[..word_end], b"except" | b"finally") {
                    "try:"
                } else {
                    "if x:"
                };
                later.push((col, kind));
            }
            quote = None;
            for &b in line {
                match (quote, b) {
                    (Some(q), _) if b == q => quote = None,
                    (Some(_), _) => {}
                    (None, b'\'' | b'"') => quote = Some(b),
                    (None, b'#') => break,
                    (None, b'(' | b'[' | b'{') => depth += 1,
                    (None, b')' | b']' | b'}') => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            quote = None;
        }
        Self { indent_line, first_col, lead, later }
    }
}

/// The quote openers the suffix may start inside: a one-line quote its first line
/// holds, a triple quote it holds anywhere; each also after a space.
fn quotes_of(suffix: &[u8]) -> Vec<Vec<u8>> {
    let first = &suffix[..suffix.iter().position(|&b| b == b'\n').unwrap_or(suffix.len())];
    let mut out = Vec::new();
    for q in [&b"'"[..], b"\""] {
        if first.contains(&q[0]) {
            out.push(q.to_vec());
            out.push([b" ", q].concat());
        }
    }
    for q in [&b"'''"[..], b"\"\"\""] {
        if suffix.windows(3).take(4000).any(|w| w == q) {
            out.push(q.to_vec());
        }
    }
    out
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

/// The enclosing blocks' header lines, as [`Reentry::headers`] holds them.
type Headers = Vec<(u32, Vec<u8>)>;

/// The byte offset in `prefix` where its last logical line's content starts (the
/// first byte after which the Python layer reads that line's content), with the
/// headers of the blocks enclosing that line (see [`Reentry::headers`]), or `None`.
fn last_content_start(lang: &std::sync::Arc<Language>, prefix: &[u8]) -> Option<(usize, Headers)> {
    lang.layer.layout()?;
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
    let word: &[u8] = &line[..line
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .unwrap_or(line.len())];
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
        (
            String::from_utf8(r.indent).unwrap(),
            r.tails.into_iter().map(|t| String::from_utf8(t).unwrap()).collect(),
        )
    }

    #[test]
    fn the_head_is_the_last_logical_line() {
        let (indent, tails) = reentry(
            "class A:\n    def f(self):\n        dists = list(distributions(\n            path=s",
        );
        assert_eq!(indent, "        ");
        assert_eq!(tails[0], "dists = list(distributions(\n            path=s");
        assert!(
            tails.contains(&"list(distributions(\n            path=s".to_string()),
            "{tails:?}"
        );
        assert!(
            tails.contains(&"s".to_string())
                && tails.contains(&"(\n            path=s".to_string()),
            "{tails:?}"
        );
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
        let r = Reentry::new(
            &py,
            b"class A:\n    def f(self):\n        try:\n            self.asser",
            b".x()\n        finally:\n            pass\n",
        );
        assert_eq!(
            r.headers,
            vec![(0, b"class x:".to_vec()), (4, b"def x():".to_vec()), (8, b"try:".to_vec())]
        );
        let moves = r.moves(&[0], true);
        assert!(
            moves.contains(
                &b"class x:\n    def x():\n        try:\n            self.asser".to_vec()
            ),
            "{moves:?}"
        );
        let moves = r.moves(&[0, 4, 8, 12, 16], false);
        assert!(moves.contains(&b"\n            self.asser".to_vec()), "{moves:?}");
    }

    /// The suffix's columns, with a `try:` before a column whose first line is an
    /// `except` clause; its first line's column when the cursor is in indentation.
    #[test]
    fn the_suffix_layout_is_read_off_its_lines() {
        let l = SuffixLayout::new(
            b"x = 1\n  ",
            b"        a(b,\n  c)\n            d\n        except E:\n    'x'\n",
        );
        assert_eq!(
            (l.indent_line.as_deref(), l.first_col, l.lead),
            (Some(&b"  "[..]), Some(10), Some(8))
        );
        assert_eq!(l.later, vec![(12, "if x:"), (8, "try:"), (4, "if x:")]);
        let l = SuffixLayout::new(b"if x:\n    y = '", b"= 12\n        else:\n");
        assert_eq!((l.indent_line, l.first_col, l.lead), (None, None, None));
        assert_eq!(l.later, vec![(8, "if x:")]);
        assert_eq!(quotes_of(b"a\", b)\n'"), vec![b"\"".to_vec(), b" \"".to_vec()]);
    }

    #[test]
    fn the_opener_closes_what_the_suffix_closes() {
        assert_eq!(unclosed_openers(b"path[:1]))\n    y = 2\n"), b"((");
        assert_eq!(unclosed_openers(b"a, ')', \"]\"], b)  # )\nz = (1)\n"), b"([");
        assert_eq!(unclosed_openers(b"x = 1\n"), b"");
    }
}
