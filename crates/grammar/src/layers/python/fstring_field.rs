//! Python f-strings read byte by byte: the replacement fields of an open f-string
//! literal, checked as they are written, so that a byte after which no completion of
//! the literal exists (`f"{)`, `f"{a b`, `f"{a!x`, `f"{a:{b:{`, `f"{#`) is refused at
//! once instead of at the closing quote.
//!
//! CPython 3.11 lexes an f-string as one STRING token and parses its fields afterwards
//! (Parser/string_parser.c: `fstring_find_literal`, `fstring_find_expr`); the closing
//! quote keeps that check as the final word (`python_layer.rs`, on `fstring.rs`).
//! This scanner follows the same two functions incrementally: literal text with
//! `{{` / `}}`, escapes and `\N{...}`; a field's expression scanned for nested strings,
//! brackets, `!=` / `==` / `<=` / `>=`, and the `!` `:` `=` `}` that end it at bracket
//! depth 0; `=`, `!s` / `!r` / `!a`, the format spec with its own fields (two levels).
//! The expression itself is fed to a nested recognizer of the same language as
//! `(expression`, so the field is refused as soon as no expression can continue it;
//! that recognizer also refuses the keyword `lambda` at the field's top level, which
//! could only be finished by a `:` that would end the expression there.
//!
//! Exactness (tested against `ast.parse` at every prefix by `tests/it/fstring_fuzz.rs`):
//! every state this scanner accepts has a completion, because literal text can always
//! be closed, a field whose nested recognizer is viable can be finished with an
//! expression free of `\`, `#`, the enclosing quote and newlines (strings of the other
//! quote kind close it; brackets close it), and the states between (after `!`, `=`,
//! a conversion) are entered only when their own completion exists.

use crate::layers::lexical_layer::{ReaderSource, SubReader};

/// The f-string literal being read (one per recognizer, while its lexeme is open).
#[derive(Debug)]
pub(crate) struct FieldScan {
    quote: u8,
    raw: bool,
    triple: bool,
    mode: Mode,
    /// Replacement fields open (0, 1 or 2): literal text is read at this level (0 the
    /// body, 1 a field's format spec, 2 a spec's field's spec).
    fields: u8,
    /// The innermost field's expression, while it is read.
    expr: Option<FieldExpr>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// After the first opening quote (the next one may make `""` or `"""`).
    Open1,
    /// After two equal quotes: the third makes a triple-quoted literal.
    Open2,
    /// Closed: the closing quote was read (the lexeme ends on the next byte).
    Closed,
    /// Literal text at level `fields`.
    Lit(Lit),
    /// A field's expression.
    Expr,
    /// `=` at depth 0: `==` or the `=` specifier, decided by the next byte.
    PendingEq,
    /// `!` at depth 0: `!=` or a conversion, decided by the next byte.
    PendingBang,
    /// After the `=` specifier (and whitespace): `!`, `:` or `}`.
    Debug,
    /// After `!`: the conversion character.
    Conv,
    /// After the conversion: `:` or `}`.
    AfterConv,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lit {
    Plain,
    /// After `\` (not raw).
    Backslash,
    /// After `\N`: `{` must follow.
    BackslashN,
    /// Inside `\N{...}`: braces are not fields.
    Name,
    /// Level 0, after `{`: `{{` or a field.
    OpenBrace,
    /// Level 0, after `}`: only `}}` is allowed.
    CloseBrace,
}

/// A string inside a field's expression (its quote, as `fstring_find_expr` scans it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Quote {
    None,
    Open1(u8),
    Open2(u8),
    Single(u8),
    /// Triple-quoted, with the count of closing quotes seen in a row.
    Triple(u8, u8),
}

#[derive(Debug)]
struct FieldExpr {
    /// Fed `(` and the expression's bytes (a recognizer of the same language).
    rec: Box<dyn SubReader>,
    /// Bracket depth inside the expression (not counting the `(`).
    depth: u32,
    quote: Quote,
    /// The last byte was `<` or `>` at depth 0 (a following `=` belongs to it).
    cmp: bool,
    /// A byte other than whitespace was read.
    nonblank: bool,
}

impl Clone for FieldExpr {
    fn clone(&self) -> Self {
        FieldExpr {
            rec: self.rec.boxed_clone(),
            depth: self.depth,
            quote: self.quote,
            cmp: self.cmp,
            nonblank: self.nonblank,
        }
    }

    fn clone_from(&mut self, src: &Self) {
        self.rec.assign(&*src.rec);
        self.depth = src.depth;
        self.quote = src.quote;
        self.cmp = src.cmp;
        self.nonblank = src.nonblank;
    }
}

impl Clone for FieldScan {
    fn clone(&self) -> Self {
        FieldScan {
            quote: self.quote,
            raw: self.raw,
            triple: self.triple,
            mode: self.mode,
            fields: self.fields,
            expr: self.expr.clone(),
        }
    }

    fn clone_from(&mut self, src: &Self) {
        self.quote = src.quote;
        self.raw = src.raw;
        self.triple = src.triple;
        self.mode = src.mode;
        self.fields = src.fields;
        match (&mut self.expr, &src.expr) {
            (Some(a), Some(b)) => a.clone_from(b),
            (a, b) => *a = b.clone(),
        }
    }
}

/// CPython's whitespace for f-string expressions.
fn is_space(b: u8) -> bool {
    b" \t\n\r\x0c\x0b".contains(&b)
}

/// Python's string prefix letters that an f-string may have.
fn is_prefix_letter(b: u8) -> bool {
    matches!(b, b'f' | b'F' | b'r' | b'R')
}

/// Where a trie walk stands inside an f-string (see `crate::Recognizer::fstring_view`).
#[derive(Clone, Copy, Debug)]
pub enum FieldView<'a> {
    /// Not inside an f-string literal's body.
    None,
    /// Literal text (the body or a format spec; or the opening quotes): only `{`,
    /// `}`, `\` and the literal's quote do more than the lexer DFA says; after a `\`
    /// (`after_backslash`) also an `N`.
    Literal {
        /// The last byte was an escaping `\`.
        after_backslash: bool,
    },
    /// A field's expression (or the byte after a level-0 `{`, which starts one unless
    /// it is a second `{`).
    Expr(FieldExprView<'a>),
    /// Anywhere else (after `!`, `=`, a conversion, `\N`, a single `}`).
    Other,
}

/// A field's expression as a trie walk sees it (see [`FieldView::Expr`]): a byte
/// other than the quotes, `\`, `#`, a newline in a one-quote literal, and (outside a
/// nested string) the bytes that end or break the expression at depth 0 (`:` `!` `=`
/// `}` `)` `]`; and `{` after a level-0 `{`) is taken iff `nested` takes it.
#[derive(Clone, Copy, Debug)]
pub struct FieldExprView<'a> {
    /// The nested recognizer: `(` and the expression so far; `None` right after a
    /// level-0 `{` (a fresh one: [`crate::Recognizer::field_start`]).
    pub nested: Option<&'a dyn SubReader>,
    /// Bracket depth inside the expression.
    pub depth: u32,
    /// Inside a string nested in the expression (brackets and `:` `!` `=` `}` `#` are
    /// its text).
    pub in_string: bool,
    /// Right after a level-0 `{` (a `{` next is the literal `{{`).
    pub open_brace: bool,
    /// Whether the literal is triple-quoted (a newline may then be in a field).
    pub triple: bool,
}

type Step = Result<(), &'static str>;

impl FieldScan {
    /// The scanner for a lexeme that became an f-string: `lexeme` is its prefix
    /// letters and its first quote; `None` when it is not an f-string.
    pub(crate) fn start(lexeme: &[u8]) -> Option<Self> {
        let (&quote, letters) = lexeme.split_last()?;
        if !(quote == b'"' || quote == b'\'')
            || letters.is_empty()
            || letters.len() > 2
            || !letters.iter().all(|&b| is_prefix_letter(b))
        {
            return None;
        }
        if !letters.iter().any(|&b| b == b'f' || b == b'F') {
            return None;
        }
        let raw = letters.iter().any(|&b| b == b'r' || b == b'R');
        Some(FieldScan { quote, raw, triple: false, mode: Mode::Open1, fields: 0, expr: None })
    }

    /// Whether `b` is the literal's quote read in its body: a closing quote where
    /// the DFA accepts there (the caller knows).
    pub(crate) fn quote_in_body(&self, b: u8) -> bool {
        self.in_body() && b == self.quote
    }

    /// Whether the scanner reads a body (the opening quotes are behind it).
    fn in_body(&self) -> bool {
        !matches!(self.mode, Mode::Open1 | Mode::Open2 | Mode::Closed)
    }

    /// The closing quote was read: nothing more to scan.
    pub(crate) fn close(&mut self) {
        self.mode = Mode::Closed;
        self.expr = None;
    }

    /// The view for trie walks.
    pub(crate) fn view(&self) -> FieldView<'_> {
        let expr = |nested, depth, in_string, open_brace| {
            FieldView::Expr(FieldExprView {
                nested,
                depth,
                in_string,
                open_brace,
                triple: self.triple,
            })
        };
        match (self.mode, &self.expr) {
            (Mode::Open1 | Mode::Open2 | Mode::Lit(Lit::Plain | Lit::Name), _) => {
                FieldView::Literal { after_backslash: false }
            }
            (Mode::Lit(Lit::Backslash), _) => FieldView::Literal { after_backslash: true },
            (Mode::Lit(Lit::OpenBrace), _) => expr(None, 0, false, true),
            (Mode::Expr, Some(e)) => match e.quote {
                Quote::None | Quote::Open2(_) => expr(Some(&*e.rec), e.depth, false, false),
                Quote::Open1(_) | Quote::Single(_) | Quote::Triple(..) => {
                    expr(Some(&*e.rec), e.depth, true, false)
                }
            },
            (Mode::Closed, _) => FieldView::None,
            _ => FieldView::Other,
        }
    }

    /// Reads one byte of the literal (not its closing quote: the caller knows that
    /// from the lexer DFA). `Err` when no completion of the literal exists after it.
    pub(crate) fn push(&mut self, b: u8, readers: &dyn ReaderSource) -> Step {
        match self.mode {
            Mode::Open1 => {
                if b == self.quote {
                    self.mode = Mode::Open2;
                    return Ok(());
                }
                self.mode = Mode::Lit(Lit::Plain);
                self.lit(Lit::Plain, b, readers)
            }
            Mode::Open2 => {
                // `f""` then a third quote: a triple-quoted body (any other byte ends
                // the lexeme `f""` before it reaches here).
                self.triple = true;
                self.mode = Mode::Lit(Lit::Plain);
                Ok(())
            }
            Mode::Closed => Ok(()),
            Mode::Lit(s) => self.lit(s, b, readers),
            Mode::Expr => self.expr_byte(b),
            Mode::PendingEq => {
                self.mode = Mode::Expr;
                if b == b'=' {
                    return self.expr_mut().feed(b"==");
                }
                self.end_expr()?;
                self.mode = Mode::Debug;
                self.debug(b)
            }
            Mode::PendingBang => {
                self.mode = Mode::Expr;
                if b == b'=' {
                    return self.expr_mut().feed(b"!=");
                }
                self.end_expr()?;
                self.conv(b)
            }
            Mode::Debug => self.debug(b),
            Mode::Conv => self.conv(b),
            Mode::AfterConv => match b {
                b':' => self.spec(),
                b'}' => self.close_field(),
                _ => Err("f-string: expecting '}'"),
            },
        }
    }

    fn expr_mut(&mut self) -> &mut FieldExpr {
        self.expr.as_mut().expect("a field's expression is open")
    }

    /// Literal text (level `fields`), in sub-state `s`.
    fn lit(&mut self, s: Lit, b: u8, readers: &dyn ReaderSource) -> Step {
        let next = match s {
            Lit::Backslash => match b {
                b'N' => Lit::BackslashN,
                b'{' | b'}' => return self.lit(Lit::Plain, b, readers), // `\{`: the brace counts
                _ => Lit::Plain,
            },
            Lit::BackslashN if b == b'{' => Lit::Name,
            Lit::BackslashN => return Err("f-string: malformed \\N character escape"),
            Lit::Name if b == b'}' => Lit::Plain,
            Lit::Name => Lit::Name,
            Lit::OpenBrace if b == b'{' => Lit::Plain,
            Lit::OpenBrace => {
                self.open_field(readers)?;
                return self.expr_byte(b);
            }
            Lit::CloseBrace if b == b'}' => Lit::Plain,
            Lit::CloseBrace => return Err("f-string: single '}' is not allowed"),
            Lit::Plain => match b {
                b'\\' if !self.raw => Lit::Backslash,
                b'{' if self.fields == 0 => Lit::OpenBrace,
                b'{' => return self.open_field(readers),
                b'}' if self.fields == 0 => Lit::CloseBrace,
                b'}' => return self.close_field(), // ends a format spec and its field
                _ => Lit::Plain,
            },
        };
        self.mode = Mode::Lit(next);
        Ok(())
    }

    fn open_field(&mut self, readers: &dyn ReaderSource) -> Step {
        if self.fields >= 2 {
            return Err("f-string: expressions nested too deeply");
        }
        self.fields += 1;
        let rec = readers.fresh_reader(true);
        self.expr =
            Some(FieldExpr { rec, depth: 0, quote: Quote::None, cmp: false, nonblank: false });
        self.mode = Mode::Expr;
        Ok(())
    }

    fn close_field(&mut self) -> Step {
        self.fields -= 1;
        self.mode = Mode::Lit(Lit::Plain);
        Ok(())
    }

    fn spec(&mut self) -> Step {
        self.mode = Mode::Lit(Lit::Plain);
        Ok(())
    }

    /// The expression ends (at `!`, `:`, `=` or `}`): it must be a whole one.
    fn end_expr(&mut self) -> Step {
        let e = self.expr_mut();
        if !e.nonblank {
            return Err("f-string: empty expression not allowed");
        }
        if !e.completes() {
            return Err("f-string: invalid syntax");
        }
        Ok(())
    }

    fn debug(&mut self, b: u8) -> Step {
        match b {
            _ if is_space(b) => Ok(()),
            b'!' => {
                self.mode = Mode::Conv;
                Ok(())
            }
            b':' => self.spec(),
            b'}' => self.close_field(),
            _ => Err("f-string: expecting '}'"),
        }
    }

    fn conv(&mut self, b: u8) -> Step {
        if !matches!(b, b's' | b'r' | b'a') {
            return Err("f-string: invalid conversion character: expected 's', 'r', or 'a'");
        }
        self.mode = Mode::AfterConv;
        Ok(())
    }

    /// A byte of a field's expression.
    ///
    /// Over 80 lines on purpose (issue 32): the recognizer's path for every byte
    /// inside a field's expression (and so of every mask's walk there): one match on
    /// the open string's quotes, one on the byte, with no call between them.
    fn expr_byte(&mut self, b: u8) -> Step {
        if b == b'\\' {
            return Err("f-string expression part cannot include a backslash");
        }
        // In a triple-quoted literal, a third quote of its kind in a row ends it.
        let closer = if self.triple { Some(self.quote) } else { None };
        let e = self.expr_mut();
        match e.quote {
            Quote::None => {}
            Quote::Open1(c) => {
                e.quote = if b == c { Quote::Open2(c) } else { Quote::Single(c) };
                e.feed(&[b])?;
                if b == c && closer == Some(c) && !e.rec.can_end_lexeme() {
                    // `f"""{[a for""`: a third `"` would end the literal, so the `""`
                    // must be an empty string, and the expression refuses one here.
                    return Err("f-string: invalid syntax");
                }
                return Ok(());
            }
            Quote::Open2(c) if b == c => {
                e.quote = Quote::Triple(c, 0);
                return e.feed(&[b]);
            }
            Quote::Open2(_) => e.quote = Quote::None, // `''` was an empty string
            Quote::Single(c) => {
                if b == c {
                    e.quote = Quote::None;
                }
                return e.feed(&[b]);
            }
            Quote::Triple(c, run) => {
                e.quote = match (b == c, run) {
                    (true, 2) => Quote::None,
                    (true, _) => Quote::Triple(c, run + 1),
                    (false, _) => Quote::Triple(c, 0),
                };
                return e.feed(&[b]);
            }
        }
        let cmp = std::mem::take(&mut e.cmp);
        let top = e.depth == 0;
        match b {
            b'\'' | b'"' => {
                e.quote = Quote::Open1(b);
                e.feed(&[b])
            }
            b'#' => Err("f-string expression part cannot include '#'"),
            b'(' | b'[' | b'{' => {
                if e.depth >= 200 {
                    return Err("f-string: too many nested parenthesis");
                }
                e.depth += 1;
                e.feed(&[b])
            }
            b')' | b']' if top => Err("f-string: unmatched closing bracket"),
            b'}' if top => {
                self.end_expr()?;
                self.close_field()
            }
            b')' | b']' | b'}' => {
                e.depth -= 1;
                e.feed(&[b])
            }
            b':' if top => {
                self.end_expr()?;
                self.spec()
            }
            b'!' if top => {
                if !(e.takes(b"!=") || (e.nonblank && e.completes())) {
                    return Err("f-string: invalid syntax");
                }
                self.mode = Mode::PendingBang;
                Ok(())
            }
            b'=' if top && !cmp => {
                if !(e.takes(b"==") || (e.nonblank && e.completes())) {
                    return Err("f-string: invalid syntax");
                }
                self.mode = Mode::PendingEq;
                Ok(())
            }
            b'<' | b'>' if top => {
                e.cmp = true;
                e.feed(&[b])
            }
            _ => e.feed(&[b]),
        }
    }
}

impl FieldExpr {
    fn feed(&mut self, bytes: &[u8]) -> Step {
        if !self.rec.try_push_bytes(bytes) {
            return Err("f-string: invalid syntax");
        }
        self.nonblank |= bytes.iter().any(|&b| !is_space(b));
        Ok(())
    }

    /// Whether the nested recognizer takes `bytes` (on a copy).
    fn takes(&self, bytes: &[u8]) -> bool {
        let mut r = self.rec.boxed_clone();
        r.try_push_bytes(bytes)
    }

    /// Whether `(expression)` is complete.
    fn completes(&self) -> bool {
        let mut r = self.rec.boxed_clone();
        r.try_push_bytes(b")") && r.is_complete()
    }
}
