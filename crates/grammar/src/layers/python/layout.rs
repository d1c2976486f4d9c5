//! The recognizer's Python layout layer (CPython's tokenizer rules for layout): the
//! indentation stack in columns and in "alternate" columns (a tab counting 1, to refuse
//! inconsistent tabs and spaces), the open brackets that join lines, and whether the
//! current logical line has content yet. [`PythonLayout`] owns that state and says
//! what a line start asks of the parser (INDENT, DEDENTs); the recognizer feeds the
//! parser. Its methods are `#[inline]`: the recognizer is generic over its parser, so
//! its code is compiled in the crates that use it (the constraint crate's masks), and
//! without the attribute (no LTO) every per-byte and per-clone call here would stay a
//! call across crates where the code used to be inline in the recognizer.

use crate::indentation::Indentation;
use crate::small_copy::copy_vec;

/// CPython's limit on bracket nesting in the tokenizer.
const MAX_BRACKET_DEPTH: u32 = 200;
/// CPython's limit on indentation levels.
const MAX_INDENT: usize = 100;

const INCONSISTENT_TABS: &str = "inconsistent use of tabs and spaces in indentation";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Line {
    /// At the start of a logical line, reading indentation.
    Indenting,
    /// The line holds only a comment so far: it is blank for indentation.
    Blank,
    /// The line has content.
    Content,
}

/// What the first content byte of a line asks of the parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineStart {
    /// The line stays at the current level.
    Same,
    /// The line opens a level (an INDENT token; the level is already pushed).
    Indent,
    /// The line closes this many levels (as many DEDENT tokens); then
    /// [`PythonLayout::close_levels`] checks that it lands on an open level.
    Dedent(usize),
}

/// The Python layout layer's state. Equality is "same layout": every field (used by
/// [`super::Recognizer::same_future`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct PythonLayout {
    cols: Vec<u32>,
    alt: Vec<u32>,
    depth: u32,
    line: Line,
    col: u32,
    altcol: u32,
}

impl Clone for PythonLayout {
    #[inline]
    fn clone(&self) -> Self {
        Self { cols: self.cols.clone(), alt: self.alt.clone(), ..*self }
    }

    /// Reuses the stacks' allocations (the recognizer's `clone_from` is a mask's
    /// per-candidate reset).
    #[inline]
    fn clone_from(&mut self, src: &Self) {
        copy_vec(&mut self.cols, &src.cols);
        copy_vec(&mut self.alt, &src.alt);
        self.depth = src.depth;
        self.line = src.line;
        self.col = src.col;
        self.altcol = src.altcol;
    }
}

impl PythonLayout {
    /// At the start of a text: level 0, no brackets, reading indentation.
    #[inline]
    pub(crate) fn new() -> Self {
        Self { cols: vec![0], alt: vec![0], depth: 0, line: Line::Indenting, col: 0, altcol: 0 }
    }

    /// Inside a text: `depth` brackets open, the levels `cols` (bottom first, starting
    /// at 0; spaces only, empty for level 0 alone), at a line start or in content.
    #[inline]
    pub(crate) fn inside(depth: u32, cols: &[u32], line_start: bool) -> Self {
        let mut layout = Self::new();
        layout.depth = depth;
        if !cols.is_empty() {
            layout.cols = cols.to_vec();
            layout.alt = cols.to_vec();
        }
        layout.line = if line_start { Line::Indenting } else { Line::Content };
        layout
    }

    /// Open brackets.
    #[inline]
    pub(crate) fn depth(&self) -> u32 {
        self.depth
    }

    /// Whether the layer is reading a logical line's indentation.
    #[inline]
    pub(crate) fn at_line_start(&self) -> bool {
        self.line == Line::Indenting
    }

    /// Whether a newline here is only layout (NL): inside brackets, or on a line
    /// without content. Otherwise it ends a statement (NEWLINE).
    #[inline]
    pub(crate) fn newline_is_layout(&self) -> bool {
        self.depth > 0 || self.line != Line::Content
    }

    /// The first byte `b` of a lexeme: whether it begins a line's content (then
    /// [`PythonLayout::start_content_line`] must follow). A `#` makes the line blank.
    #[inline]
    pub(crate) fn begins_content(&mut self, b: u8) -> bool {
        if self.line != Line::Indenting {
            return false;
        }
        match b {
            b' ' | b'\t' | b'\x0c' | b'\r' | b'\n' => false,
            b'#' => {
                self.line = Line::Blank;
                false
            }
            _ => true,
        }
    }

    /// A line's content begins: compares its columns with the open levels. An
    /// error is CPython's message.
    #[inline]
    pub(crate) fn start_content_line(&mut self) -> Result<LineStart, &'static str> {
        self.line = Line::Content;
        let (col, alt) = (self.col, self.altcol);
        let top = *self.cols.last().unwrap();
        let alt_top = *self.alt.last().unwrap();
        if col == top {
            if alt != alt_top {
                return Err(INCONSISTENT_TABS);
            }
            return Ok(LineStart::Same);
        }
        if col > top {
            if alt <= alt_top {
                return Err(INCONSISTENT_TABS);
            }
            if self.cols.len() >= MAX_INDENT {
                return Err("too many levels of indentation");
            }
            self.cols.push(col);
            self.alt.push(alt);
            return Ok(LineStart::Indent);
        }
        Ok(LineStart::Dedent(self.cols.iter().rev().take_while(|&&c| col < c).count()))
    }

    /// Closes the `n` levels a dedent left and checks that the line lands on an open
    /// level, in both column counts.
    #[inline]
    pub(crate) fn close_levels(&mut self, n: usize) -> Result<(), &'static str> {
        self.cols.truncate(self.cols.len() - n);
        self.alt.truncate(self.alt.len() - n);
        if self.col != *self.cols.last().unwrap() {
            return Err("unindent does not match any outer indentation level");
        }
        if self.altcol != *self.alt.last().unwrap() {
            return Err(INCONSISTENT_TABS);
        }
        Ok(())
    }

    /// At the end of the text: closes the innermost open level above 0; `false` when
    /// none is left.
    #[inline]
    pub(crate) fn close_level(&mut self) -> bool {
        if self.cols.len() <= 1 {
            return false;
        }
        self.cols.pop();
        true
    }

    /// After a newline lexeme: outside brackets a new logical line begins.
    #[inline]
    pub(crate) fn after_newline(&mut self) {
        if self.depth == 0 {
            self.line = Line::Indenting;
            self.col = 0;
            self.altcol = 0;
        }
    }

    /// An opening bracket.
    #[inline]
    pub(crate) fn open_bracket(&mut self) -> Result<(), &'static str> {
        self.depth += 1;
        if self.depth >= MAX_BRACKET_DEPTH {
            return Err("too many nested parentheses");
        }
        Ok(())
    }

    /// A closing bracket.
    #[inline]
    pub(crate) fn close_bracket(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Column bookkeeping for a byte at line start (tabs to the next multiple of 8).
    #[inline]
    pub(crate) fn track_column(&mut self, b: u8) {
        if self.line == Line::Indenting {
            match b {
                b' ' => {
                    self.col += 1;
                    self.altcol += 1;
                }
                b'\t' => {
                    self.col = (self.col / 8 + 1) * 8;
                    self.altcol += 1;
                }
                b'\x0c' => {
                    self.col = 0;
                    self.altcol = 0;
                }
                _ => {}
            }
        }
    }

    /// The read-only view.
    pub(crate) fn view(&self) -> Indentation<'_> {
        Indentation {
            cols: &self.cols,
            alt: &self.alt,
            depth: self.depth,
            at_line_start: self.line == Line::Indenting,
            content: self.line == Line::Content,
            col: self.col,
            altcol: self.altcol,
        }
    }
}
