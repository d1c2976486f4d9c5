//! [`LexicalLayer`]: the hook through which a language's lexical layer sits between
//! the lexer DFA and the parser, so that the generic byte-level recognizer
//! ([`crate::Recognizer`]) imports no language.
//!
//! The recognizer calls a layer at fixed points of its byte loop:
//! 1. [`LexicalLayer::narrow`], after every recomputation of the acceptable set
//!    (Python: NL only where a NEWLINE would be taken; Go: newlines only where the
//!    `;` they insert would be);
//! 2. [`LexicalLayer::begin_lexeme`], at the first byte of a lexeme (Python: the
//!    INDENT / DEDENTs a line's first content byte makes);
//! 3. [`LexicalLayer::lexeme_byte`], at each byte taken into a lexeme (Python: the
//!    columns of indentation, the replacement fields of an open f-string);
//! 4. [`LexicalLayer::emit`], when a lexeme ends (what the parser is fed: Python's
//!    NL to NEWLINE, brackets; Go's inserted semicolons);
//! 5. [`LexicalLayer::refuses_end`], [`LexicalLayer::refuses_backoff`] and
//!    [`LexicalLayer::finish`], at the end of the text.
//!
//! Tools that reason about a text's future (the completion costs, the constraint
//! crate's finishing mask and store) ask a layer, so that they name no language
//! either: [`LexicalLayer::layout`] (the terminals of an indented-line layout),
//! [`LexicalLayer::push_future_key`] (what the layer's state adds to a memo key),
//! [`LexicalLayer::lexeme_bytes_matter`] and [`LexicalLayer::closers`] (an
//! unfinished lexeme the layer checks on its bytes, and the bytes that end it). Each
//! has a default for a layer without the quirk.
//!
//! A layer keeps its per-text state in [`LexicalLayer::State`], which the recognizer
//! clones, compares (memo keys) and hashes with its own. A layer that reads a nested
//! text (Python's f-string fields) does so through [`SubReader`]s that the recognizer
//! makes ([`ReaderSource`]): a layer names no recognizer. The layers live in their
//! language's folder (`layers/python/`, `layers/go/`); [`crate::layers::Layer`] is
//! the one place that lists them.

use std::any::Any;
use std::hash::Hasher;

use crate::grammar::TerminalId;
use crate::layers::LayoutTerminals;
use crate::lexer_dfa::{DfaState, LexerDfa};
use crate::termset::TermSet;
use crate::token_parser::TokenParser;

/// Why a byte was refused (the recognizer adds where: its lexeme's start).
#[derive(Clone, Debug)]
pub(crate) enum Why {
    /// A fixed message.
    Text(&'static str),
    /// No lexeme reading survives in the parser (up to four readings kept for the
    /// message; a lexeme has at most two in the grammars we ship).
    Unexpected([TerminalId; 4], u8),
    /// The byte continues no lexeme.
    Invalid(u8),
    /// A message built at refusal time (rare: f-string checks).
    Owned(String),
}

/// Feeds `terms` (the readings of one lexeme) to `parser`; the refusal names them.
#[inline]
pub(crate) fn feed<P: TokenParser>(parser: &mut P, terms: &[TerminalId]) -> Result<(), Why> {
    if parser.feed(terms) {
        return Ok(());
    }
    let mut kept = [TerminalId::default(); 4];
    let n = terms.len().min(4);
    kept[..n].copy_from_slice(&terms[..n]);
    Err(Why::Unexpected(kept, n as u8))
}

/// What ending a lexeme did to the parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Emitted {
    /// Nothing (an ignored lexeme): the acceptable set stands.
    Quiet,
    /// The parser or the layer moved: the acceptable set must be recomputed.
    Moved,
}

/// A byte just taken into the current lexeme (hook 3).
#[derive(Clone, Copy, Debug)]
pub(crate) struct InLexeme<'a> {
    /// The byte.
    pub b: u8,
    /// The DFA state after it.
    pub next: DfaState,
    /// Whether `next` accepts (the lexeme so far is a complete lexeme).
    pub accepting: bool,
    /// The lexeme so far, `b` included.
    pub lexeme: &'a [u8],
    /// The lexer DFA.
    pub dfa: &'a LexerDfa,
}

/// A recognizer of the same language, as a layer sees one: it reads a nested text
/// (Python: `(` and an f-string field's expression).
pub trait SubReader: std::fmt::Debug + Send + Sync + Any {
    /// Feeds bytes; `false` when the text is no longer a viable prefix.
    fn try_push_bytes(&mut self, bytes: &[u8]) -> bool;
    /// Whether the text read is a complete program.
    fn is_complete(&self) -> bool;
    /// Whether ending the unfinished lexeme here would be taken (on a copy).
    fn can_end_lexeme(&self) -> bool;
    /// A copy behind a box.
    fn boxed_clone(&self) -> Box<dyn SubReader>;
    /// Becomes a copy of `src` (a reader of the same kind), reusing allocations.
    fn assign(&mut self, src: &dyn SubReader);
    /// For a caller that knows the concrete reader.
    fn as_any(&self) -> &dyn Any;
}

/// Where a layer gets fresh [`SubReader`]s of its language.
pub trait ReaderSource {
    /// A reader at the start of a text (`nested`: in the layer's nested mode, see
    /// [`LexicalLayer::nested_prefix`], its prefix already read).
    fn fresh_reader(&self, nested: bool) -> Box<dyn SubReader>;
}

/// A language's lexical layer (see the module doc). Every hook is `#[inline]` in
/// its implementations: the recognizer is generic over its parser, so it is
/// compiled in the crates that use it (the constraint crate's masks), and calls in
/// the byte loop must not stay calls across crates.
pub(crate) trait LexicalLayer {
    /// The layer's state along one text.
    type State: Clone + std::fmt::Debug;

    /// The state at a text's start.
    fn start(&self) -> Self::State;

    /// Whether `st` is [`Self::start`]'s state.
    fn is_start(&self, st: &Self::State) -> bool;

    /// The state of a text that starts nested in another (`nested_prefix` follows).
    fn nested(&self) -> Self::State;

    /// The bytes a nested reader reads first (Python: `(`).
    fn nested_prefix(&self) -> &'static [u8];

    /// Hook 1: narrows the acceptable set (parser terminals plus ignored ones).
    fn narrow(&self, st: &Self::State, acceptable: &mut TermSet);

    /// Hook 2: the first byte `b` of a lexeme; `Ok(true)` when the parser moved
    /// (the acceptable set must be recomputed). By default nothing moves.
    #[inline]
    fn begin_lexeme<P: TokenParser>(
        &self,
        _st: &mut Self::State,
        _b: u8,
        _parser: &mut P,
    ) -> Result<bool, Why> {
        Ok(false)
    }

    /// Hook 3: a byte taken into the lexeme. By default a layer does not look inside
    /// lexemes.
    #[inline]
    fn lexeme_byte(
        &self,
        _st: &mut Self::State,
        _at: &InLexeme<'_>,
        _readers: &dyn ReaderSource,
    ) -> Result<(), Why> {
        Ok(())
    }

    /// Hook 4: a lexeme of the readings `terms` ends (`ignored`: the `%ignore`d
    /// terminals); feeds the parser what it makes.
    fn emit<P: TokenParser>(
        &self,
        st: &mut Self::State,
        terms: &[TerminalId],
        ignored: &TermSet,
        parser: &mut P,
    ) -> Result<Emitted, Why>;

    /// After a lexeme was emitted, before the bytes after it are re-read (by default
    /// nothing changes).
    #[inline]
    fn lexeme_ended(&self, _st: &mut Self::State) {}

    /// Hook 5a: at the end of the text, before its last lexeme is flushed: a refusal
    /// of the unfinished `lexeme` (`unfinished`: its DFA state accepts nothing).
    fn refuses_end(&self, lexeme: &[u8], unfinished: bool) -> Option<&'static str>;

    /// Hook 5b: at the end of the text, a refusal of backing off inside `lexeme`
    /// (the lexer would emit a prefix of it and re-read the rest). By default none.
    fn refuses_backoff(&self, _lexeme: &[u8]) -> Option<&'static str> {
        None
    }

    /// Hook 5c: the end of the text, the last lexeme flushed: feeds what the layer
    /// still owes the parser.
    fn finish<P: TokenParser>(&self, st: &mut Self::State, parser: &mut P) -> Result<(), Why>;

    /// Whether an ignored terminal `t` is named among the expected ones in errors.
    fn lists_ignored(&self, st: &Self::State, t: TerminalId) -> bool;

    /// Whether `t` is an ignored terminal that still acts in the layer (ending such a
    /// lexeme may move the parser).
    fn is_layout_newline(&self, t: TerminalId) -> bool;

    /// Whether two states treat every continuation alike (the memo's comparison:
    /// an open f-string's scan, a function of the lexeme's bytes, is left out).
    fn same_continuations(&self, a: &Self::State, b: &Self::State) -> bool;

    /// A hash of what [`Self::same_continuations`] compares.
    fn hash_continuations<H: Hasher>(&self, st: &Self::State, h: &mut H);

    /// Whether two states are the same for [`crate::Recognizer::same_future`].
    fn same_future(&self, a: &Self::State, b: &Self::State) -> bool;

    /// The terminals of the layer's indented-line layout (Python's), if it lays
    /// lines out. By default none.
    fn layout(&self) -> Option<LayoutTerminals> {
        None
    }

    /// Pushes onto `key` what `st` adds to a text's future beyond the layout's view
    /// ([`crate::Recognizer::indentation`]), for memo keys of costs (Go: whether a
    /// newline now would insert a semicolon). By default nothing.
    #[inline]
    fn push_future_key(&self, _st: &Self::State, _key: &mut Vec<u32>) {}

    /// Whether the future of the unfinished `lexeme` depends on its bytes, not only
    /// on its DFA state (Python: an f-string, whose fields are checked when it ends).
    /// By default not.
    #[inline]
    fn lexeme_bytes_matter(&self, _lexeme: &[u8]) -> bool {
        false
    }

    /// Bytes that end the unfinished `lexeme` where the lexer DFA's shortest path to
    /// an end may not (Python: an f-string's open fields, then its quotes), shortest
    /// first; the caller keeps those the recognizer takes. By default none.
    fn closers(&self, _lexeme: &[u8]) -> Vec<Vec<u8>> {
        Vec::new()
    }
}
