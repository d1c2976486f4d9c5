//! [`Layer`] and [`LayerState`]: any language's lexical layer, chosen when the
//! language is compiled ([`LayerKind`]). The one place that lists the layers: a new
//! language with a lexical quirk adds a variant here and its folder beside this
//! file, and touches no recognizer, parser or mask walker. Dispatch is a `match`
//! (no box): the hooks run at every byte of every mask.

use std::hash::Hasher;

use crate::error::GrammarError;
use crate::grammar::{Grammar, TerminalId};
use crate::indentation::Indentation;
use crate::termset::TermSet;
use crate::token_parser::TokenParser;

use super::go::{GoLayer, GoState, GoTerminals};
use super::layout_terminals::LayoutTerminals;
use super::lexical_layer::{Emitted, InLexeme, LexicalLayer, ReaderSource, Why};
use super::python::{FieldView, PythonLayer, PythonState, PythonTerminals};

/// Which lexer layer sits between the DFA and the parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayerKind {
    /// Lexemes go straight to the parser; `%ignore`d terminals are dropped.
    Plain,
    /// Python: the grammar must `%ignore` a terminal `NL` (newline) and `%declare`
    /// `NEWLINE INDENT DEDENT`. The layer turns NL into NEWLINE outside brackets and
    /// on non-blank lines, tracks the indentation stack, and makes INDENT / DEDENT.
    Python,
    /// Go: the grammar must `%ignore` `NL` and `BLOCK_COMMENT_NL`; the layer turns
    /// them into ";" after the tokens of [`crate::layers::go::semicolons::TRIGGERS`].
    Go,
}

/// A compiled language's layer.
#[derive(Clone, Debug)]
pub enum Layer {
    /// No layer.
    Plain,
    /// Python's layout and f-strings.
    Python(PythonLayer),
    /// Go's automatic semicolons.
    Go(GoLayer),
}

/// A layer's state along one text (the variant of its [`Layer`]).
#[derive(Debug)]
pub enum LayerState {
    /// No layer.
    Plain,
    /// Python's.
    Python(PythonState),
    /// Go's.
    Go(GoState),
}

impl Clone for LayerState {
    #[inline]
    fn clone(&self) -> Self {
        match self {
            LayerState::Plain => LayerState::Plain,
            LayerState::Python(s) => LayerState::Python(s.clone()),
            LayerState::Go(s) => LayerState::Go(*s),
        }
    }

    #[inline]
    fn clone_from(&mut self, src: &Self) {
        match (self, src) {
            (LayerState::Python(a), LayerState::Python(b)) => a.clone_from(b),
            (LayerState::Go(a), LayerState::Go(b)) => *a = *b,
            (a, b) => *a = b.clone(),
        }
    }
}

impl Layer {
    /// The layer of `kind` over `grammar`; an error names a terminal it needs and
    /// the grammar lacks.
    pub fn build(kind: LayerKind, grammar: &Grammar) -> Result<Layer, GrammarError> {
        Ok(match kind {
            LayerKind::Plain => Layer::Plain,
            LayerKind::Python => Layer::Python(PythonLayer::from_grammar(grammar)?),
            LayerKind::Go => Layer::Go(GoLayer { terms: GoTerminals::from_grammar(grammar)? }),
        })
    }

    /// Its kind.
    pub fn kind(&self) -> LayerKind {
        match self {
            Layer::Plain => LayerKind::Plain,
            Layer::Python(_) => LayerKind::Python,
            Layer::Go(_) => LayerKind::Go,
        }
    }

    /// The terminals of its indented-line layout, if it lays lines out (Python).
    #[inline]
    pub fn layout(&self) -> Option<LayoutTerminals> {
        LexicalLayer::layout(self)
    }

    /// Pushes onto `key` what `st` (a state of this layer) adds to a text's future
    /// beyond the layout's view, for memo keys (Go: a pending semicolon).
    #[inline]
    pub fn push_future_key(&self, st: &LayerState, key: &mut Vec<u32>) {
        LexicalLayer::push_future_key(self, st, key)
    }

    /// Whether the future of the unfinished `lexeme` depends on its bytes beyond its
    /// DFA state (Python: an f-string, its fields checked when it ends).
    #[inline]
    pub fn lexeme_bytes_matter(&self, lexeme: &[u8]) -> bool {
        LexicalLayer::lexeme_bytes_matter(self, lexeme)
    }

    /// Bytes that end the unfinished `lexeme` where the DFA's shortest path to an end
    /// may not (Python: an f-string's open fields and quotes), shortest first.
    pub fn closers(&self, lexeme: &[u8]) -> Vec<Vec<u8>> {
        LexicalLayer::closers(self, lexeme)
    }

    /// Python's terminals, for a Python layer.
    pub fn python(&self) -> Option<&PythonTerminals> {
        match self {
            Layer::Python(l) => Some(&l.terms),
            _ => None,
        }
    }

    /// Go's terminals, for a Go layer.
    pub fn go(&self) -> Option<&GoTerminals> {
        match self {
            Layer::Go(l) => Some(&l.terms),
            _ => None,
        }
    }

    /// A state inside a text (for the analysis of a fill-in-the-middle suffix):
    /// Python's layout with `depth` brackets open, the indentation stack `cols` and
    /// at a line start or not; the start state of other layers.
    pub(crate) fn inside(&self, depth: u32, cols: &[u32], line_start: bool) -> LayerState {
        match self {
            Layer::Python(_) => LayerState::Python(PythonState::inside(depth, cols, line_start)),
            _ => self.start(),
        }
    }
}

impl LayerState {
    /// Python: the indentation layer's view.
    #[inline]
    pub fn indentation(&self) -> Option<Indentation<'_>> {
        match self {
            LayerState::Python(s) => Some(s.indentation()),
            _ => None,
        }
    }

    /// Python: open brackets (0 for other layers).
    #[inline]
    pub fn bracket_depth(&self) -> u32 {
        match self {
            LayerState::Python(s) => s.bracket_depth(),
            _ => 0,
        }
    }

    /// Python: whether the layer reads a line's indentation (always `false` for
    /// other layers).
    #[inline]
    pub fn at_line_start(&self) -> bool {
        match self {
            LayerState::Python(s) => s.at_line_start(),
            _ => false,
        }
    }

    /// Go: whether a newline now would insert a semicolon (`false` elsewhere).
    #[inline]
    pub fn semicolon_pending(&self) -> bool {
        matches!(self, LayerState::Go(s) if s.semi_pending)
    }

    /// Python: where the text stands inside an open f-string literal.
    pub fn fstring_view(&self) -> FieldView<'_> {
        match self {
            LayerState::Python(s) => s.fstring_view(),
            _ => FieldView::None,
        }
    }
}

/// Runs `$call` on the layer and state of one variant; a state of another layer's
/// variant (never made: a recognizer's state comes from its language's layer) runs
/// `$other`.
macro_rules! dispatch {
    ($layer:expr, $st:expr, |$l:ident, $s:ident| $call:expr, $other:expr) => {
        match ($layer, $st) {
            (Layer::Python($l), LayerState::Python($s)) => $call,
            (Layer::Go($l), LayerState::Go($s)) => $call,
            _ => $other,
        }
    };
}

impl LexicalLayer for Layer {
    type State = LayerState;

    #[inline]
    fn start(&self) -> LayerState {
        match self {
            Layer::Plain => LayerState::Plain,
            Layer::Python(l) => LayerState::Python(l.start()),
            Layer::Go(l) => LayerState::Go(l.start()),
        }
    }

    #[inline]
    fn is_start(&self, st: &LayerState) -> bool {
        dispatch!(self, st, |l, s| l.is_start(s), true)
    }

    fn nested(&self) -> LayerState {
        match self {
            Layer::Plain => LayerState::Plain,
            Layer::Python(l) => LayerState::Python(l.nested()),
            Layer::Go(l) => LayerState::Go(l.nested()),
        }
    }

    fn nested_prefix(&self) -> &'static [u8] {
        match self {
            Layer::Plain => b"",
            Layer::Python(l) => l.nested_prefix(),
            Layer::Go(l) => l.nested_prefix(),
        }
    }

    #[inline]
    fn narrow(&self, st: &LayerState, acceptable: &mut TermSet) {
        dispatch!(self, st, |l, s| l.narrow(s, acceptable), ())
    }

    #[inline]
    fn begin_lexeme<P: TokenParser>(
        &self,
        st: &mut LayerState,
        b: u8,
        parser: &mut P,
    ) -> Result<bool, Why> {
        dispatch!(self, st, |l, s| l.begin_lexeme(s, b, parser), Ok(false))
    }

    #[inline]
    fn lexeme_byte(
        &self,
        st: &mut LayerState,
        at: &InLexeme<'_>,
        readers: &dyn ReaderSource,
    ) -> Result<(), Why> {
        dispatch!(self, st, |l, s| l.lexeme_byte(s, at, readers), Ok(()))
    }

    #[inline]
    fn emit<P: TokenParser>(
        &self,
        st: &mut LayerState,
        terms: &[TerminalId],
        ignored: &TermSet,
        parser: &mut P,
    ) -> Result<Emitted, Why> {
        dispatch!(self, st, |l, s| l.emit(s, terms, ignored, parser), {
            if ignored.contains(terms[0]) {
                return Ok(Emitted::Quiet);
            }
            super::lexical_layer::feed(parser, terms)?;
            Ok(Emitted::Moved)
        })
    }

    #[inline]
    fn lexeme_ended(&self, st: &mut LayerState) {
        dispatch!(self, st, |l, s| l.lexeme_ended(s), ())
    }

    fn refuses_end(&self, lexeme: &[u8], unfinished: bool) -> Option<&'static str> {
        match self {
            Layer::Plain => None,
            Layer::Python(l) => l.refuses_end(lexeme, unfinished),
            Layer::Go(l) => l.refuses_end(lexeme, unfinished),
        }
    }

    fn refuses_backoff(&self, lexeme: &[u8]) -> Option<&'static str> {
        match self {
            Layer::Plain => None,
            Layer::Python(l) => l.refuses_backoff(lexeme),
            Layer::Go(l) => l.refuses_backoff(lexeme),
        }
    }

    fn finish<P: TokenParser>(&self, st: &mut LayerState, parser: &mut P) -> Result<(), Why> {
        dispatch!(self, st, |l, s| l.finish(s, parser), Ok(()))
    }

    fn lists_ignored(&self, st: &LayerState, t: TerminalId) -> bool {
        dispatch!(self, st, |l, s| l.lists_ignored(s, t), false)
    }

    #[inline]
    fn is_layout_newline(&self, t: TerminalId) -> bool {
        match self {
            Layer::Plain => false,
            Layer::Python(l) => l.is_layout_newline(t),
            Layer::Go(l) => l.is_layout_newline(t),
        }
    }

    #[inline]
    fn same_continuations(&self, a: &LayerState, b: &LayerState) -> bool {
        match (self, a, b) {
            (Layer::Python(l), LayerState::Python(a), LayerState::Python(b)) => {
                l.same_continuations(a, b)
            }
            (Layer::Go(l), LayerState::Go(a), LayerState::Go(b)) => l.same_continuations(a, b),
            (_, LayerState::Plain, LayerState::Plain) => true,
            _ => false,
        }
    }

    #[inline]
    fn hash_continuations<H: Hasher>(&self, st: &LayerState, h: &mut H) {
        dispatch!(self, st, |l, s| l.hash_continuations(s, h), ())
    }

    #[inline]
    fn layout(&self) -> Option<LayoutTerminals> {
        match self {
            Layer::Plain => None,
            Layer::Python(l) => l.layout(),
            Layer::Go(l) => l.layout(),
        }
    }

    #[inline]
    fn push_future_key(&self, st: &LayerState, key: &mut Vec<u32>) {
        dispatch!(self, st, |l, s| l.push_future_key(s, key), ())
    }

    #[inline]
    fn lexeme_bytes_matter(&self, lexeme: &[u8]) -> bool {
        match self {
            Layer::Plain => false,
            Layer::Python(l) => l.lexeme_bytes_matter(lexeme),
            Layer::Go(l) => l.lexeme_bytes_matter(lexeme),
        }
    }

    fn closers(&self, lexeme: &[u8]) -> Vec<Vec<u8>> {
        match self {
            Layer::Plain => Vec::new(),
            Layer::Python(l) => l.closers(lexeme),
            Layer::Go(l) => l.closers(lexeme),
        }
    }

    #[inline]
    fn same_future(&self, a: &LayerState, b: &LayerState) -> bool {
        match (self, a, b) {
            (Layer::Python(l), LayerState::Python(a), LayerState::Python(b)) => l.same_future(a, b),
            (Layer::Go(l), LayerState::Go(a), LayerState::Go(b)) => l.same_future(a, b),
            (_, LayerState::Plain, LayerState::Plain) => true,
            _ => false,
        }
    }
}
