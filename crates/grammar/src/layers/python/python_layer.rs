//! [`PythonLayer`]: Python's lexical layer behind [`LexicalLayer`]'s hooks: the
//! layout (INDENT / DEDENT, NL to NEWLINE outside brackets, `layout.rs`) and the
//! f-strings read byte by byte (`fstring_field.rs`; the closing quote's final check on
//! `fstring.rs`, CPython 3.11's rules).

use std::hash::Hasher;

use crate::grammar::{Grammar, TerminalId};
use crate::indentation::Indentation;
use crate::layers::lexical_layer::{feed, Emitted, InLexeme, LexicalLayer, ReaderSource, Why};
use crate::layers::LayoutTerminals;
use crate::lexer_dfa::DfaState;
use crate::small_copy::same;
use crate::termset::TermSet;
use crate::token_parser::TokenParser;

use super::fstring_field::{FieldScan, FieldView};
use super::layout::{LineStart, PythonLayout};
use super::terminals::PythonTerminals;

/// Python's layer: its terminals, and `lambda` (refused at the top of an f-string
/// field's expression, where its `:` would end the field).
#[derive(Clone, Debug)]
pub struct PythonLayer {
    /// The terminals the layer works with.
    pub terms: PythonTerminals,
    lambda: Option<TerminalId>,
}

/// Python's layer along one text.
#[derive(Debug)]
pub struct PythonState {
    layout: PythonLayout,
    /// The open f-string literal's replacement fields, while its lexeme is read (a
    /// function of the lexeme's bytes).
    fstr: Option<Box<FieldScan>>,
    /// A reader of an f-string field's `(expression`: this terminal (`lambda`) is
    /// refused at bracket depth 1.
    field_lambda: Option<TerminalId>,
}

impl Clone for PythonState {
    #[inline]
    fn clone(&self) -> Self {
        PythonState {
            layout: self.layout.clone(),
            fstr: self.fstr.clone(),
            field_lambda: self.field_lambda,
        }
    }

    /// Reuses allocations (the recognizer's `clone_from` is a mask's per-candidate
    /// reset).
    #[inline]
    fn clone_from(&mut self, src: &Self) {
        self.layout.clone_from(&src.layout);
        match (&mut self.fstr, &src.fstr) {
            (Some(a), Some(b)) => a.clone_from(b),
            (a, b) => a.clone_from(b),
        }
        self.field_lambda = src.field_lambda;
    }
}

impl PythonState {
    /// The state inside a text: `depth` brackets open, the indentation stack `cols`
    /// (bottom first, starting at 0; spaces only), at a line start or in content.
    pub(crate) fn inside(depth: u32, cols: &[u32], line_start: bool) -> Self {
        PythonState {
            layout: PythonLayout::inside(depth, cols, line_start),
            fstr: None,
            field_lambda: None,
        }
    }

    /// The indentation layer's view.
    #[inline]
    pub(crate) fn indentation(&self) -> Indentation<'_> {
        self.layout.view()
    }

    /// Open brackets.
    #[inline]
    pub(crate) fn bracket_depth(&self) -> u32 {
        self.layout.depth()
    }

    /// Whether the layer reads a logical line's indentation.
    #[inline]
    pub(crate) fn at_line_start(&self) -> bool {
        self.layout.at_line_start()
    }

    /// Where the text stands inside an open f-string literal.
    pub(crate) fn fstring_view(&self) -> FieldView<'_> {
        self.fstr.as_ref().map_or(FieldView::None, |scan| scan.view())
    }
}

impl PythonLayer {
    /// Looks the layer's terminals up in `grammar`.
    pub(crate) fn from_grammar(grammar: &Grammar) -> Result<Self, crate::error::GrammarError> {
        Ok(PythonLayer {
            terms: PythonTerminals::from_grammar(grammar)?,
            lambda: grammar.terminal("\"lambda\""),
        })
    }

    /// Whether the DFA state `at` (an accepting one) ends a STRING lexeme.
    #[inline]
    fn closes_string(&self, at: DfaState, dfa: &crate::lexer_dfa::LexerDfa) -> bool {
        self.terms.string == Some(dfa.winners(at)[0])
    }

    /// Byte `at.b` was taken into the current lexeme: starts the f-string scanner at
    /// an f-string's first quote, feeds it the body's bytes, and leaves the closing
    /// quote to [`check_fstring`].
    #[cold]
    fn fstring_byte(
        &self,
        st: &mut PythonState,
        at: &InLexeme<'_>,
        readers: &dyn ReaderSource,
    ) -> Result<(), Why> {
        let Some(scan) = st.fstr.as_deref_mut() else {
            if let Some(scan) = FieldScan::start(at.lexeme) {
                st.fstr = Some(Box::new(scan));
            }
            return Ok(());
        };
        if scan.quote_in_body(at.b) && at.accepting && self.closes_string(at.next, at.dfa) {
            scan.close();
            return Ok(());
        }
        scan.push(at.b, readers).map_err(Why::Text)
    }

    /// A line's content begins: feeds the INDENT or DEDENTs it makes.
    fn start_content_line<P: TokenParser>(
        &self,
        st: &mut PythonState,
        parser: &mut P,
    ) -> Result<(), Why> {
        match st.layout.start_content_line().map_err(Why::Text)? {
            LineStart::Same => {}
            LineStart::Indent => {
                feed(parser, &[self.terms.layout.indent])
                    .map_err(|_| Why::Text("unexpected indent"))?;
            }
            LineStart::Dedent(n) => {
                for _ in 0..n {
                    feed(parser, &[self.terms.layout.dedent])
                        .map_err(|_| Why::Text("unexpected unindent"))?;
                }
                st.layout.close_levels(n).map_err(Why::Text)?;
            }
        }
        Ok(())
    }
}

/// Checks the replacement fields of an f-string literal (3.11 rules), each
/// expression as `(expression)` on a fresh reader: the one exception to "inside a
/// lexeme only the DFA decides" at a closing quote, so `f"{a("` is refused at its
/// last byte and never left as a dead end. Trie walks that decide in-lexeme bytes
/// from the DFA alone re-check such closers (`fstring_closer.rs`).
#[cold]
fn check_fstring(text: &[u8], readers: &dyn ReaderSource) -> Result<(), Why> {
    let Some((_, body, true, raw)) = super::fstring::split_literal(text) else { return Ok(()) };
    let mut buf = Vec::new();
    super::fstring::check_fstring(body, raw, &mut |e: &[u8]| {
        buf.clear();
        buf.push(b'(');
        buf.extend_from_slice(e);
        buf.push(b')');
        let mut r = readers.fresh_reader(false);
        r.try_push_bytes(&buf) && r.is_complete()
    })
    .map_err(Why::Owned)
}

/// Whether `lexeme` starts like a triple-quoted string: up to two prefix letters,
/// then three equal quotes.
fn opens_triple_quote(lexeme: &[u8]) -> bool {
    let i = lexeme.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    i <= 2 && (lexeme[i..].starts_with(b"\"\"\"") || lexeme[i..].starts_with(b"'''"))
}

impl LexicalLayer for PythonLayer {
    type State = PythonState;

    #[inline]
    fn start(&self) -> PythonState {
        PythonState { layout: PythonLayout::new(), fstr: None, field_lambda: None }
    }

    #[inline]
    fn is_start(&self, st: &PythonState) -> bool {
        st.layout == PythonLayout::new() && st.fstr.is_none() && st.field_lambda.is_none()
    }

    fn nested(&self) -> PythonState {
        PythonState { field_lambda: self.lambda, ..self.start() }
    }

    fn nested_prefix(&self) -> &'static [u8] {
        b"("
    }

    #[inline]
    fn narrow(&self, st: &PythonState, acceptable: &mut TermSet) {
        let nl_ok = st.layout.newline_is_layout() || acceptable.contains(self.terms.layout.newline);
        if !nl_ok {
            // NL is in `ignored`; take it out when a NEWLINE would be rejected.
            acceptable.remove(self.terms.layout.nl);
        }
    }

    #[inline]
    fn begin_lexeme<P: TokenParser>(
        &self,
        st: &mut PythonState,
        b: u8,
        parser: &mut P,
    ) -> Result<bool, Why> {
        if !st.layout.begins_content(b) {
            return Ok(false);
        }
        self.start_content_line(st, parser)?;
        Ok(true)
    }

    #[inline]
    fn lexeme_byte(
        &self,
        st: &mut PythonState,
        at: &InLexeme<'_>,
        readers: &dyn ReaderSource,
    ) -> Result<(), Why> {
        if st.fstr.is_some() || (at.lexeme.len() <= 3 && (at.b == b'"' || at.b == b'\'')) {
            self.fstring_byte(st, at, readers)?;
        }
        if at.accepting && self.closes_string(at.next, at.dfa) {
            // The quote that ends an f-string: its fields are checked now, not when
            // the next byte ends the lexeme, so a literal CPython refuses (`f"{a("`)
            // is refused at its quote and never left as a dead end.
            check_fstring(at.lexeme, readers)?;
        }
        st.layout.track_column(at.b);
        Ok(())
    }

    #[inline]
    fn emit<P: TokenParser>(
        &self,
        st: &mut PythonState,
        terms: &[TerminalId],
        ignored: &TermSet,
        parser: &mut P,
    ) -> Result<Emitted, Why> {
        let t0 = terms[0];
        let py = &self.terms;
        if t0 == py.layout.nl {
            if !st.layout.newline_is_layout() {
                feed(parser, &[py.layout.newline])?;
            }
            st.layout.after_newline();
            return Ok(Emitted::Moved);
        }
        if ignored.contains(t0) {
            return Ok(Emitted::Quiet);
        }
        if st.field_lambda.is_some_and(|l| terms.contains(&l)) && st.layout.depth() == 1 {
            return Err(Why::Text(
                "f-string: lambda at the top of a field (its ':' would end the expression)",
            ));
        }
        // An f-string's fields were checked at its closing quote ([`Self::lexeme_byte`]):
        // every STRING lexeme is read there, byte by byte from its first.
        if py.layout.open.contains(&t0) {
            st.layout.open_bracket().map_err(Why::Text)?;
        } else if py.layout.close.contains(&t0) {
            st.layout.close_bracket();
        }
        feed(parser, terms)?;
        Ok(Emitted::Moved)
    }

    #[inline]
    fn lexeme_ended(&self, st: &mut PythonState) {
        st.fstr = None;
    }

    fn refuses_end(&self, _lexeme: &[u8], _unfinished: bool) -> Option<&'static str> {
        None
    }

    fn refuses_backoff(&self, lexeme: &[u8]) -> Option<&'static str> {
        // CPython reads a string from its opening quotes on, without backing up:
        // `"""abc"` is an unterminated triple-quoted string, not `""` then `"abc"`
        // (found by the finishing mask's tests).
        opens_triple_quote(lexeme).then_some("unterminated triple-quoted string literal")
    }

    fn finish<P: TokenParser>(&self, st: &mut PythonState, parser: &mut P) -> Result<(), Why> {
        if st.layout.depth() > 0 {
            return Err(Why::Text("unexpected end of input inside brackets"));
        }
        if !st.layout.newline_is_layout() {
            feed(parser, &[self.terms.layout.newline])?;
        }
        while st.layout.close_level() {
            feed(parser, &[self.terms.layout.dedent])?;
        }
        Ok(())
    }

    fn lists_ignored(&self, st: &PythonState, t: TerminalId) -> bool {
        self.terms.layout.nl == t && st.layout.depth() == 0
    }

    #[inline]
    fn is_layout_newline(&self, t: TerminalId) -> bool {
        self.terms.layout.nl == t
    }

    #[inline]
    fn same_continuations(&self, a: &PythonState, b: &PythonState) -> bool {
        let (v, e) = (a.layout.view(), b.layout.view());
        a.field_lambda == b.field_lambda
            && same(v.cols, e.cols)
            && same(v.alt, e.alt)
            && (v.depth, v.at_line_start, v.content, v.col, v.altcol)
                == (e.depth, e.at_line_start, e.content, e.col, e.altcol)
    }

    #[inline]
    fn hash_continuations<H: Hasher>(&self, st: &PythonState, h: &mut H) {
        let v = st.layout.view();
        for x in [v.depth, v.col, v.altcol] {
            h.write_u32(x);
        }
        h.write_u8(u8::from(v.at_line_start) | u8::from(v.content) << 1);
        v.cols.iter().chain(v.alt).for_each(|&c| h.write_u32(c));
    }

    #[inline]
    fn same_future(&self, a: &PythonState, b: &PythonState) -> bool {
        a.layout == b.layout
    }

    #[inline]
    fn layout(&self) -> Option<LayoutTerminals> {
        Some(self.terms.layout())
    }

    /// Only an f-string's bytes matter (its fields are checked when it ends):
    /// elsewhere (a Go block comment of 12 KB holding an `f` before a quote, before
    /// this was Python's alone) keying on the bytes cost 15 s per mask, hashing them
    /// once per allowed token.
    #[inline]
    fn lexeme_bytes_matter(&self, lexeme: &[u8]) -> bool {
        lexeme
            .iter()
            .position(|&b| b == b'"' || b == b'\'')
            .is_some_and(|q| lexeme[..q].iter().any(|&b| b == b'f' || b == b'F'))
    }

    fn closers(&self, lexeme: &[u8]) -> Vec<Vec<u8>> {
        super::fstring_closer::closers(lexeme)
    }
}
