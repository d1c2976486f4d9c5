//! The byte-level recognizer: lexer DFA (maximal munch, priorities), lexer layer
//! (Python indentation / line joining) and a [`TokenParser`], fed one byte at a time.
//!
//! Exactness: after every byte, the unfinished lexeme is checked against the parser:
//! some terminal still reachable from its DFA state must be acceptable next. Together
//! with LR(1)'s (or Earley's) exact acceptable sets this makes "`push_bytes(s)` is Ok"
//! mean "`s` is a prefix of some valid program" (up to maximal-munch corner cases
//! where the only completion would need a lexeme split the lexer never makes).
//!
//! One exception to "inside a lexeme only the DFA decides": Python f-strings. Their
//! replacement fields are scanned byte by byte while the literal is open (each field's
//! expression on a nested recognizer, `recognizer/fstring_field.rs`), so `f"{)` is
//! refused at its `)`, and the quote that closes the literal is refused when its
//! fields are invalid (CPython 3.11 checks them once the literal is read). Trie walks
//! that decide in-lexeme bytes from the DFA alone handle f-strings apart
//! (`espalier_constraint`'s Python layer, `python/quote_ends.rs` and
//! `python/fstring_layer.rs`), from [`Recognizer::fstring_view`].
//!
//! Files: this one holds the byte loop (lexer DFA, lexemes, the parser); the Python
//! layout layer (`recognizer/python_layout.rs`), the f-string field scanner
//! (`recognizer/fstring_field.rs`) and closing-quote check
//! (`recognizer/fstring_quote.rs`), refusals and their errors (`recognizer/refusal.rs`),
//! SynCode's remainder and accept sequences (`recognizer/accept_sequences.rs`) and
//! whether two states accept the same continuations (`recognizer/continuations.rs`)
//! live beside it.
//!
//! Cost: the common byte (inside a lexeme) is one table lookup and one bitset
//! intersection, no allocation. A finished lexeme costs one parser step and one
//! recomputation of the acceptable set. `clone_from` reuses every allocation.

use std::sync::Arc;

use crate::earley::EarleyParser;
use crate::error::ParseError;
use crate::grammar::TerminalId;
use crate::indentation::Indentation;
use crate::language::{Language, LayerKind};
use crate::lexer_dfa::{DfaState, LexerDfa};
use crate::lr_parser::LrParser;
use crate::small_copy::copy_vec;
use crate::termset::TermSet;
use crate::token_parser::TokenParser;

mod accept_sequences;
mod continuations;
mod fstring_field;
mod fstring_quote;
mod python_layout;
mod refusal;

pub use accept_sequences::{AcceptSequences, Remainder};
pub use continuations::Continuations;
use fstring_field::FieldScan;
pub use fstring_field::{FieldExprView, FieldView};
use python_layout::{LineStart, PythonLayout};
use refusal::{Refusal, Why};

/// An incremental, cloneable byte-level recognizer for a [`Language`].
#[derive(Debug)]
pub struct Recognizer<P: TokenParser> {
    lang: Arc<Language>,
    parser: P,
    state: DfaState,
    lex_len: u32,
    lex_start: usize,
    last_accept: DfaState,
    last_accept_len: u32,
    lexbuf: Vec<u8>,
    pos: usize,
    acceptable: TermSet,
    /// Python: the layout layer (unused by other layers).
    layout: PythonLayout,
    lexemes: usize,
    /// Go: a newline now would insert a semicolon.
    semi_pending: bool,
    /// Scratch for the bytes re-read after a lexeme ends (no state: not cloned).
    reread: Vec<u8>,
    /// Python: the open f-string literal's replacement fields, while its lexeme is
    /// read (`recognizer/fstring_field.rs`; a function of `lexbuf`).
    fstr: Option<Box<FieldScan>>,
    /// Python, a recognizer reading an f-string field's `(expression`: the keyword
    /// `lambda` is refused at bracket depth 1 (its `:` would end the field there).
    field_lambda: Option<TerminalId>,
}

impl<P: TokenParser> Clone for Recognizer<P> {
    fn clone(&self) -> Self {
        Recognizer {
            lang: self.lang.clone(),
            parser: self.parser.clone(),
            state: self.state,
            lex_len: self.lex_len,
            lex_start: self.lex_start,
            last_accept: self.last_accept,
            last_accept_len: self.last_accept_len,
            lexbuf: self.lexbuf.clone(),
            pos: self.pos,
            acceptable: self.acceptable,
            layout: self.layout.clone(),
            lexemes: self.lexemes,
            semi_pending: self.semi_pending,
            reread: Vec::new(),
            fstr: self.fstr.clone(),
            field_lambda: self.field_lambda,
        }
    }

    fn clone_from(&mut self, src: &Self) {
        if !Arc::ptr_eq(&self.lang, &src.lang) {
            self.lang = src.lang.clone();
        }
        self.parser.clone_from(&src.parser);
        self.state = src.state;
        self.lex_len = src.lex_len;
        self.lex_start = src.lex_start;
        self.last_accept = src.last_accept;
        self.last_accept_len = src.last_accept_len;
        copy_vec(&mut self.lexbuf, &src.lexbuf);
        self.pos = src.pos;
        self.acceptable = src.acceptable;
        self.layout.clone_from(&src.layout);
        self.lexemes = src.lexemes;
        self.semi_pending = src.semi_pending;
        match (&mut self.fstr, &src.fstr) {
            (Some(a), Some(b)) => a.clone_from(b),
            (a, b) => a.clone_from(b),
        }
        self.field_lambda = src.field_lambda;
    }
}

/// A language's recognizers (built beside it: [`Language`] is compiled data and knows no
/// recognizer).
impl Language {
    /// A byte-level recognizer driven by the LR parser (the fast one).
    pub fn recognizer(self: &Arc<Self>) -> Recognizer<LrParser> {
        Recognizer::new(self.clone(), LrParser::new(self.table.clone()))
    }

    /// A byte-level recognizer driven by the Earley parser (same lexer and layer).
    pub fn earley_recognizer(self: &Arc<Self>) -> Recognizer<EarleyParser> {
        Recognizer::new(self.clone(), EarleyParser::new(self.earley.clone()))
    }
}

impl<P: TokenParser> Recognizer<P> {
    /// A recognizer at the start of a text.
    pub fn new(lang: Arc<Language>, parser: P) -> Self {
        let nt = lang.grammar.num_terminals();
        let mut r = Recognizer {
            lang,
            parser,
            state: LexerDfa::START,
            lex_len: 0,
            lex_start: 0,
            last_accept: LexerDfa::DEAD,
            last_accept_len: 0,
            lexbuf: Vec::new(),
            pos: 0,
            acceptable: TermSet::new(nt),
            layout: PythonLayout::new(),
            lexemes: 0,
            semi_pending: false,
            reread: Vec::new(),
            fstr: None,
            field_lambda: None,
        };
        r.refresh_acceptable();
        r
    }

    /// A recognizer started inside a text (for the analysis of a fill-in-the-middle
    /// suffix): `depth` brackets already open, the indentation stack `cols` (bottom
    /// first, starting at 0; spaces only), and either at the start of a line
    /// (`line_start`, the next bytes are its indentation) or inside a line's content.
    pub fn with_layout(
        lang: Arc<Language>,
        parser: P,
        depth: u32,
        cols: &[u32],
        line_start: bool,
    ) -> Self {
        let mut r = Self::new(lang, parser);
        r.layout = PythonLayout::inside(depth, cols, line_start);
        r.refresh_acceptable();
        r
    }

    /// The language recognized.
    pub fn language(&self) -> &Arc<Language> {
        &self.lang
    }

    /// The parser behind the layer.
    pub fn parser(&self) -> &P {
        &self.parser
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// Whether this is a text's start as [`Recognizer::new`] makes it: nothing read,
    /// the lexer at its start, the layout of a file's first line, nothing pending.
    /// With the parser in its initial state too, this is the recognizer of the empty
    /// text (the parser's state is not checked here).
    pub fn is_at_text_start(&self) -> bool {
        self.pos == 0
            && self.lexemes == 0
            && self.state == LexerDfa::START
            && self.lex_len == 0
            && self.lexbuf.is_empty()
            && self.layout == PythonLayout::new()
            && !self.semi_pending
            && self.fstr.is_none()
            && self.field_lambda.is_none()
    }

    /// Number of complete lexemes (including ignored ones) so far.
    pub fn num_lexemes(&self) -> usize {
        self.lexemes
    }

    /// Recomputes the acceptable set in lexer-terminal terms.
    fn refresh_acceptable(&mut self) {
        self.parser.acceptable(&mut self.acceptable);
        self.acceptable.union_with(&self.lang.ignored);
        if let Some(py) = &self.lang.python {
            let nl_ok = self.layout.newline_is_layout() || self.acceptable.contains(py.newline);
            if !nl_ok {
                // NL is in `ignored`; take it out when a NEWLINE would be rejected.
                self.acceptable.remove(py.nl);
            }
        }
        if let Some(go) = &self.lang.go {
            go.restrict(self.semi_pending, &mut self.acceptable);
        }
    }

    #[inline]
    fn feed_parser(&mut self, terms: &[TerminalId]) -> Result<(), Refusal> {
        if !self.parser.feed(terms) {
            let mut kept = [0; 4];
            let n = terms.len().min(4);
            kept[..n].copy_from_slice(&terms[..n]);
            return Err(self.refuse(Why::Unexpected(kept, n as u8)));
        }
        Ok(())
    }

    /// Called when the first byte `b` of a lexeme arrives (Python: indentation).
    #[inline]
    fn begin_lexeme(&mut self, b: u8) -> Result<(), Refusal> {
        if self.lang.layer != LayerKind::Python || !self.layout.begins_content(b) {
            return Ok(());
        }
        self.start_content_line()
    }

    /// Python: a line's content begins; feeds the INDENT or DEDENTs it makes.
    fn start_content_line(&mut self) -> Result<(), Refusal> {
        let py = self.lang.python.clone().unwrap();
        match self.layout.start_content_line().map_err(|m| self.refuse(Why::Text(m)))? {
            LineStart::Same => {}
            LineStart::Indent => {
                self.feed_parser(&[py.indent])
                    .map_err(|e| Refusal { why: Why::Text("unexpected indent"), ..e })?;
            }
            LineStart::Dedent(n) => {
                for _ in 0..n {
                    self.feed_parser(&[py.dedent])
                        .map_err(|e| Refusal { why: Why::Text("unexpected unindent"), ..e })?;
                }
                self.layout.close_levels(n).map_err(|m| self.refuse(Why::Text(m)))?;
            }
        }
        self.refresh_acceptable();
        Ok(())
    }

    /// A complete lexeme ends (the DFA state `at` is where it was accepted).
    fn emit(&mut self, at: DfaState) -> Result<(), Refusal> {
        self.lexemes += 1;
        let lang = self.lang.clone();
        let terms = lang.dfa.winners(at);
        let t0 = terms[0];
        if let Some(py) = &lang.python {
            if t0 == py.nl {
                if !self.layout.newline_is_layout() {
                    self.feed_parser(&[py.newline])?;
                }
                self.layout.after_newline();
                self.refresh_acceptable();
                return Ok(());
            }
            if lang.ignored.contains(t0) {
                return Ok(());
            }
            if self.field_lambda.is_some_and(|l| terms.contains(&l)) && self.layout.depth() == 1 {
                return Err(self.refuse(Why::Text(
                    "f-string: lambda at the top of a field (its ':' would end the expression)",
                )));
            }
            // An f-string's fields were checked at its closing quote ([`Self::step`]):
            // every STRING lexeme is read there, byte by byte from its first.
            if py.open.contains(&t0) {
                self.layout.open_bracket().map_err(|m| self.refuse(Why::Text(m)))?;
            } else if py.close.contains(&t0) {
                self.layout.close_bracket();
            }
        } else if let Some(go) = &lang.go {
            if go.is_newline(t0) {
                if std::mem::take(&mut self.semi_pending) {
                    self.feed_parser(&[go.semi])?;
                    self.refresh_acceptable();
                }
                return Ok(());
            }
            if lang.ignored.contains(t0) {
                return Ok(());
            }
            self.feed_parser(terms)?;
            self.semi_pending = go.triggers(t0);
            self.refresh_acceptable();
            return Ok(());
        } else if lang.ignored.contains(t0) {
            return Ok(());
        }
        self.feed_parser(terms)?;
        self.refresh_acceptable();
        Ok(())
    }

    /// Feeds one byte. `Err` means the text is no longer a prefix of any valid program
    /// (the recognizer must then be dropped or restored from a clone).
    #[inline]
    pub fn push_byte(&mut self, b: u8) -> Result<(), ParseError> {
        self.step(b).map_err(|r| self.describe(r))
    }

    /// [`Self::push_byte`] without the error value: `false` means the text is no
    /// longer a viable prefix (the state must then be dropped or restored). The hot
    /// path of mask computations, which refuse most bytes they try.
    #[inline]
    pub fn try_push_byte(&mut self, b: u8) -> bool {
        self.step(b).is_ok()
    }

    /// [`Self::push_bytes`] without the error value (see [`Self::try_push_byte`]).
    pub fn try_push_bytes(&mut self, bytes: &[u8]) -> bool {
        bytes.iter().all(|&b| self.step(b).is_ok())
    }

    #[inline]
    fn step(&mut self, b: u8) -> Result<(), Refusal> {
        if self.state == LexerDfa::START {
            self.lex_start = self.pos;
            self.begin_lexeme(b)?;
        }
        let dfa = &*self.lang.dfa;
        let next = dfa.next(self.state, b);
        if next != LexerDfa::DEAD {
            if !dfa.reachable(next).intersects(&self.acceptable) {
                return Err(self.refuse(Why::Text("no acceptable token starts here")));
            }
            self.state = next;
            self.lex_len += 1;
            self.pos += 1;
            self.lexbuf.push(b);
            let accepting = !dfa.winners(next).is_empty();
            if self.lang.layer == LayerKind::Python
                && (self.fstr.is_some() || (self.lex_len <= 3 && (b == b'"' || b == b'\'')))
            {
                self.fstring_byte(b, next)?;
            }
            if accepting {
                self.last_accept = next;
                self.last_accept_len = self.lex_len;
                if self.lang.layer == LayerKind::Python && self.closes_string(next) {
                    // The quote that ends an f-string: its fields are checked now, not
                    // when the next byte ends the lexeme, so a literal CPython refuses
                    // (`f"{a("`) is refused at its quote and never left as a dead end.
                    self.check_fstring(&self.lexbuf)?;
                }
            }
            if self.lang.layer == LayerKind::Python {
                self.layout.track_column(b);
            }
            return Ok(());
        }
        self.step_slow(b)
    }

    #[cold]
    fn step_slow(&mut self, b: u8) -> Result<(), Refusal> {
        if self.lex_len == 0 || self.last_accept == LexerDfa::DEAD {
            return Err(self.refuse(Why::Invalid(b)));
        }
        self.finish_lexeme()?;
        self.step(b)
    }

    /// Emits the lexeme at the last accepting point and re-reads the bytes after it.
    fn finish_lexeme(&mut self) -> Result<(), Refusal> {
        let at = self.last_accept;
        let start = self.lex_start;
        let len = self.last_accept_len as usize;
        let mut buf = std::mem::take(&mut self.lexbuf);
        let r = self.emit(at);
        // The bytes after the accepting point, re-read below, go through the spare
        // buffer `reread` (a heap copy here was ~17 allocations per exact mask, each
        // a call into dlmalloc in wasm; inside a docstring the tail is its text).
        let mut rest = std::mem::take(&mut self.reread);
        if r.is_ok() {
            copy_vec(&mut rest, buf.get(len..).unwrap_or_default());
        }
        buf.clear();
        self.lexbuf = buf;
        if let Err(e) = r {
            self.reread = rest;
            return Err(e);
        }
        self.pos = start + len;
        self.fstr = None;
        self.state = LexerDfa::START;
        self.lex_len = 0;
        self.last_accept = LexerDfa::DEAD;
        self.last_accept_len = 0;
        let r = rest.iter().try_for_each(|&x| self.step(x));
        self.reread = rest;
        r
    }

    /// Feeds several bytes; stops at the first error.
    pub fn push_bytes(&mut self, bytes: &[u8]) -> Result<(), ParseError> {
        bytes.iter().try_for_each(|&b| self.push_byte(b))
    }

    /// Ends the unfinished lexeme here, as a byte that continues no lexeme would:
    /// emits the longest accepted prefix and re-reads the bytes after it (they form
    /// the new remainder). `false` when that is refused (no accepted prefix, or the
    /// parser or layer refuses the lexeme); the state must then be dropped or
    /// restored. A no-op without an unfinished lexeme. For mask computations that end
    /// a lexeme once and then try many first bytes of the next one.
    pub fn end_lexeme(&mut self) -> bool {
        if self.lex_len == 0 {
            return true;
        }
        self.last_accept != LexerDfa::DEAD && self.finish_lexeme().is_ok()
    }

    /// Python: whether the layer is reading a logical line's indentation, so the next
    /// content byte (not whitespace, newline or `#`) decides INDENT / DEDENT tokens
    /// and may change [`Self::acceptable_terminals`]. Always `false` for other
    /// layers. Everywhere else the first byte of a lexeme leaves the acceptable set
    /// unchanged, which is what lets a mask decide many first bytes from one state.
    pub fn at_line_start(&self) -> bool {
        self.lang.layer == LayerKind::Python && self.layout.at_line_start()
    }

    /// Whether the text so far is a viable prefix (always true for a recognizer that
    /// has not returned an error: errors are reported by `push_byte`).
    pub fn is_viable(&self) -> bool {
        true
    }

    /// Ends the text: flushes the last lexeme and the layer (final NEWLINE, DEDENTs)
    /// and checks that the parser accepts. Consumes a copy; `self` is unchanged.
    pub fn finish(&self) -> Result<(), ParseError> {
        let mut r = self.clone();
        r.finish_in_place().map_err(|e| r.describe(e))
    }

    fn finish_in_place(&mut self) -> Result<(), Refusal> {
        let r = self;
        if r.lang.go.is_some()
            && crate::semicolons::unterminated_comment(
                &r.lexbuf,
                r.lang.dfa.winners(r.state).is_empty(),
            )
        {
            return Err(r.refuse(Why::Text("comment not terminated")));
        }
        while r.lex_len > 0 {
            if !r.lang.dfa.winners(r.state).is_empty() {
                r.last_accept = r.state;
                r.last_accept_len = r.lex_len;
            }
            if r.last_accept == LexerDfa::DEAD {
                return Err(r.refuse(Why::Text("unfinished token at end of input")));
            }
            if r.lang.layer == LayerKind::Python
                && r.last_accept_len < r.lex_len
                && opens_triple_quote(&r.lexbuf)
            {
                // CPython reads a string from its opening quotes on, without backing
                // up: `"""abc"` is an unterminated triple-quoted string, not `""` then
                // `"abc"` (found by the finishing mask's tests).
                return Err(r.refuse(Why::Text("unterminated triple-quoted string literal")));
            }
            r.finish_lexeme()?;
        }
        if let Some(py) = r.lang.python.clone() {
            if r.layout.depth() > 0 {
                return Err(Refusal {
                    offset: r.pos,
                    why: Why::Text("unexpected end of input inside brackets"),
                });
            }
            r.lex_start = r.pos;
            if !r.layout.newline_is_layout() {
                r.feed_parser(&[py.newline])?;
            }
            while r.layout.close_level() {
                r.feed_parser(&[py.dedent])?;
            }
        }
        r.lex_start = r.pos;
        if let Some(go) = r.lang.go.clone() {
            if std::mem::take(&mut r.semi_pending) {
                r.feed_parser(&[go.semi])?;
            }
        }
        if !r.parser.accepts_end() {
            r.refresh_acceptable();
            return Err(r.refuse(Why::Text("unexpected end of input")));
        }
        Ok(())
    }

    /// Whether the text so far is a complete, valid program.
    pub fn is_complete(&self) -> bool {
        self.clone().finish_in_place().is_ok()
    }

    /// [`Self::is_complete`] run on `scratch` (overwritten), which keeps its
    /// allocations between calls: a mask asks this at every step, and a fresh clone
    /// costs several allocations (in wasm, dlmalloc calls).
    pub fn is_complete_using(&self, scratch: &mut Self) -> bool {
        scratch.clone_from(self);
        scratch.finish_in_place().is_ok()
    }

    /// The parser stack for display, bottom first, with symbol names: `"0"` for the
    /// start state, `"NAME:12"` for state 12 entered by reading NAME (see
    /// [`TokenParser::stack`]; empty for parsers without a stack).
    pub fn stack(&self) -> Vec<String> {
        self.parser
            .stack()
            .into_iter()
            .map(|(state, sym)| match sym {
                Some(sym) => format!("{}:{state}", self.lang.grammar.symbol_name(sym)),
                None => state.to_string(),
            })
            .collect()
    }

    /// Python: open brackets at this point (0 outside brackets and for other layers).
    pub fn bracket_depth(&self) -> u32 {
        self.layout.depth()
    }

    /// Whether `other` will treat every continuation exactly as `self` does: same
    /// parser state (per `same_parser`), lexer state, pending bytes and layout
    /// (indentation stacks, brackets, line status, column). The position and the
    /// lexeme count are ignored. Used to memoize runs of a fixed text (the
    /// fill-in-the-middle suffix) from many starting states.
    pub fn same_future(&self, other: &Self, same_parser: impl Fn(&P, &P) -> bool) -> bool {
        Arc::ptr_eq(&self.lang, &other.lang)
            && self.state == other.state
            && self.lex_len == other.lex_len
            && self.last_accept == other.last_accept
            && self.last_accept_len == other.last_accept_len
            && self.lexbuf == other.lexbuf
            && self.layout == other.layout
            && same_parser(&self.parser, &other.parser)
    }

    /// Python: the indentation layer's state (levels, bracket depth, the current
    /// line's columns); `None` for other layers.
    pub fn indentation(&self) -> Option<Indentation<'_>> {
        (self.lang.layer == LayerKind::Python).then(|| self.layout.view())
    }

    /// Go: whether a newline now would insert a semicolon (always `false` elsewhere).
    pub fn semicolon_pending(&self) -> bool {
        self.semi_pending
    }

    /// The bytes of the unfinished last lexeme.
    pub fn remainder_bytes(&self) -> &[u8] {
        &self.lexbuf
    }

    /// Terminals (lexer ids, including ignored ones) acceptable as the next lexeme,
    /// i.e. the lexeme the remainder starts.
    pub fn acceptable_terminals(&self) -> &TermSet {
        &self.acceptable
    }
}

/// Whether `lexeme` starts like a triple-quoted string: up to two prefix letters,
/// then three equal quotes.
fn opens_triple_quote(lexeme: &[u8]) -> bool {
    let i = lexeme.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    i <= 2 && (lexeme[i..].starts_with(b"\"\"\"") || lexeme[i..].starts_with(b"'''"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::language::LanguageOptions;

    fn lang() -> Arc<Language> {
        Language::compile(
            "start: stmt*\nstmt: NAME \"=\" expr \";\" | \"return\" expr \";\"\nexpr: NAME | INT | expr \"+\" expr2\nexpr2: NAME | INT\nNAME: /[a-z]+/\nINT: /[0-9]+/\n%ignore \" \"\n",
            &LanguageOptions::default(),
        )
        .unwrap()
    }

    #[test]
    fn prefixes_and_completion() {
        let l = lang();
        let mut r = l.recognizer();
        assert!(r.is_complete());
        r.push_bytes(b"x = ret").unwrap(); // `ret` is a NAME here
        assert!(!r.is_complete());
        r.push_bytes(b" + 1;").unwrap();
        assert!(r.is_complete());
        let mut r2 = r.clone();
        assert!(r2.push_bytes(b"retur").is_ok());
        assert!(r2.push_bytes(b"n 1;").is_ok() && r2.is_complete());
        assert!(r.clone().push_bytes(b"1").is_err());
        assert!(r.clone().push_bytes(b"x x").is_err());
        let e = r.clone().push_bytes(b"x = ;").unwrap_err();
        assert_eq!(e.offset, 16);
        assert!(e.expected.contains(&"INT".to_string()));
    }

    #[test]
    fn stack_names_states_and_symbols() {
        let l = lang();
        let mut r = l.recognizer();
        assert_eq!(r.stack(), vec!["0".to_string()]);
        r.push_bytes(b"x = y + 1").unwrap();
        // `x` `=` `y` were shifted and `y` reduced to expr; `+` shifted; `1` pending.
        let st = r.stack();
        assert_eq!(st[0], "0");
        let names: Vec<&str> = st[1..].iter().map(|e| e.split(':').next().unwrap()).collect();
        assert_eq!(names, ["NAME", "\"=\"", "expr", "\"+\""]);
        assert!(st[1..]
            .iter()
            .all(|e| e.split(':').nth(1).is_some_and(|n| n.parse::<u32>().is_ok())));
    }

    #[test]
    fn accept_sequences_and_remainder() {
        let l = lang();
        let mut r = l.recognizer();
        r.push_bytes(b"x = ab").unwrap();
        let rem = r.remainder();
        assert_eq!(rem.len, 2);
        let acc = r.accept_sequences();
        let name = l.grammar.terminal("NAME").unwrap();
        let semi = l.grammar.terminal("\";\"").unwrap();
        assert!(acc.a0.contains(name));
        assert_eq!(acc.a1.len(), 1);
        assert_eq!(acc.a1[0].0, name);
        assert!(acc.a1[0].1.contains(semi) && !acc.a1[0].1.contains(name));
    }
}
