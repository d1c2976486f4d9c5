//! [`LayoutTerminals`]: the terminals of a layer that lays a text out in indented
//! lines (Python's): what tools reasoning about a text's future need of the layout
//! (completion costs, the finishing mask, fill-in-the-middle re-entry, SynCode's
//! store) without naming the language. A layer without such a layout has none
//! ([`crate::Layer::layout`] is `None`).

use crate::grammar::TerminalId;

/// The terminals of an indented-line layout (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutTerminals {
    /// The lexed newline (`%ignore`d; the layer turns it into [`Self::newline`]
    /// outside brackets, on lines with content).
    pub nl: TerminalId,
    /// The parser's end of a logical line, written as one newline byte.
    pub newline: TerminalId,
    /// A deeper indentation level opens.
    pub indent: TerminalId,
    /// An indentation level closes.
    pub dedent: TerminalId,
    /// The opening brackets, inside which newlines join lines.
    pub open: [TerminalId; 3],
    /// The closing brackets, in the order of [`Self::open`].
    pub close: [TerminalId; 3],
}
