//! [`Indentation`]: a read-only view of the Python layer's state inside a
//! [`crate::Recognizer`], for tools that reason about what the text still needs
//! (completion costs: which columns a new line may start at, how many brackets are
//! open).

/// The Python indentation layer as seen from outside (see
/// [`crate::Recognizer::indentation`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Indentation<'a> {
    /// The columns of the open indentation levels, outermost (0) first; tabs advance
    /// to the next multiple of 8.
    pub cols: &'a [u32],
    /// The same levels counted in whitespace characters (CPython's "alternate"
    /// columns, a tab counting 1), used to refuse inconsistent tabs and spaces.
    pub alt: &'a [u32],
    /// Open brackets: newlines inside brackets join lines.
    pub depth: u32,
    /// Whether the layer is reading a logical line's indentation (no content yet).
    pub at_line_start: bool,
    /// Whether the current logical line has content (not only indentation or a
    /// comment): a newline then ends a statement.
    pub content: bool,
    /// The current line's column so far (meaningful at line start).
    pub col: u32,
    /// The current line's character count so far (meaningful at line start).
    pub altcol: u32,
}
