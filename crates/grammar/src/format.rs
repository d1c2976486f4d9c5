//! Reading the Lark-style grammar text format into an abstract syntax tree.
//!
//! Supported (a subset of Lark's EBNF): `rule: a b | c`, continuation lines starting
//! with `|`, `?rule` and `_rule` (tree-shaping prefixes: accepted, and meaningless for
//! a recognizer), `rule.N` / `TERM.N` priorities, terminals defined by `"literal"`,
//! `"literal"i`, `/regex/flags` or expressions over other terminals, operators `?`,
//! `*`, `+`, `~ n`, `~ n..m`, groups `( )`, optionals `[ ]`, aliases `-> name`
//! (ignored), `%ignore`, `%declare`, and `//` comments. Errors carry line and column.

use crate::error::{GrammarError, Pos};

/// An EBNF expression on the right of a definition.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// Items one after another.
    Seq(Vec<Expr>),
    /// Alternatives.
    Alt(Vec<Expr>),
    /// `x?` or `[x]`.
    Opt(Box<Expr>),
    /// `x*`.
    Star(Box<Expr>),
    /// `x+`.
    Plus(Box<Expr>),
    /// `x ~ n..m`.
    Repeat(Box<Expr>, u32, u32),
    /// A reference to a rule or terminal.
    Name(String, Pos),
    /// A quoted literal; `true` when case-insensitive.
    Literal(String, bool, Pos),
    /// A `/regex/flags` pattern.
    Regex(String, String, Pos),
}

/// One `name: expr` definition (rule or terminal).
#[derive(Clone, Debug, PartialEq)]
pub struct Definition {
    /// The name without `?` / `_` meaning (the `_` stays part of the name).
    pub name: String,
    /// Upper-case names define terminals.
    pub is_terminal: bool,
    /// `.N` priority (0 when absent).
    pub priority: i32,
    /// The right-hand side.
    pub expr: Expr,
    /// Where the name is written.
    pub pos: Pos,
}

/// A whole grammar file as written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GrammarAst {
    /// Rules and terminals in file order.
    pub defs: Vec<Definition>,
    /// `%ignore` operands.
    pub ignore: Vec<Expr>,
    /// `%declare` names (terminals produced outside the lexer).
    pub declare: Vec<(String, Pos)>,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Str(String, bool),
    Re(String, String),
    Num(i64),
    Directive(String),
    Colon,
    Bar,
    LPar,
    RPar,
    LBrk,
    RBrk,
    Quest,
    Star,
    Plus,
    Tilde,
    DotDot,
    Dot,
    Arrow,
    Newline,
}

struct Lexer<'a> {
    chars: Vec<char>,
    i: usize,
    line: u32,
    col: u32,
    _src: &'a str,
}

impl<'a> Lexer<'a> {
    fn pos(&self) -> Pos {
        Pos { line: self.line, col: self.col }
    }
    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.chars.get(self.i).copied()?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }
    fn err(pos: Pos, m: impl Into<String>) -> GrammarError {
        GrammarError::Syntax { pos, message: m.into() }
    }

    fn tokens(mut self) -> Result<Vec<(Tok, Pos)>, GrammarError> {
        let mut out = Vec::new();
        while let Some(c) = self.peek() {
            let pos = self.pos();
            let next_is = |d: char| self.chars.get(self.i + 1) == Some(&d);
            let tok = match c {
                ' ' | '\t' | '\r' => {
                    self.bump();
                    continue;
                }
                '\n' => {
                    self.bump();
                    Tok::Newline
                }
                '/' if next_is('/') => {
                    self.skip_to_line_end();
                    continue;
                }
                '#' => {
                    self.skip_to_line_end();
                    continue;
                }
                '"' => self.string_literal(pos)?,
                '/' => self.regex(pos)?,
                '%' => {
                    self.bump();
                    Tok::Directive(self.word())
                }
                c if c.is_ascii_alphabetic() || c == '_' => Tok::Ident(self.word()),
                c if c.is_ascii_digit()
                    || c == '-'
                        && self.chars.get(self.i + 1).is_some_and(|d| d.is_ascii_digit()) =>
                {
                    self.number(pos)?
                }
                _ => self.punctuation(c, pos)?,
            };
            out.push((tok, pos));
        }
        Ok(out)
    }

    fn skip_to_line_end(&mut self) {
        while self.peek().is_some_and(|c| c != '\n') {
            self.bump();
        }
    }

    /// `[A-Za-z0-9_]*` from here.
    fn word(&mut self) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek().filter(|c| c.is_ascii_alphanumeric() || *c == '_') {
            s.push(c);
            self.bump();
        }
        s
    }

    /// `"..."` with its escapes, then an optional `i` (case-insensitive).
    fn string_literal(&mut self, pos: Pos) -> Result<Tok, GrammarError> {
        self.bump();
        let mut s = String::new();
        loop {
            let here = self.pos();
            match self.bump() {
                None | Some('\n') => return Err(Self::err(pos, "unterminated string literal")),
                Some('"') => break,
                Some('\\') => match self.bump() {
                    Some('n') => s.push('\n'),
                    Some('t') => s.push('\t'),
                    Some('r') => s.push('\r'),
                    Some('f') => s.push('\x0c'),
                    Some('\\') => s.push('\\'),
                    Some('"') => s.push('"'),
                    Some(c) => {
                        return Err(Self::err(
                            here,
                            format!("unknown escape `\\{c}` in string literal"),
                        ))
                    }
                    None => return Err(Self::err(pos, "unterminated string literal")),
                },
                Some(c) => s.push(c),
            }
        }
        if s.is_empty() {
            return Err(Self::err(pos, "empty string literal"));
        }
        let ci = self.peek() == Some('i');
        if ci {
            self.bump();
        }
        Ok(Tok::Str(s, ci))
    }

    /// `/.../` (a `\/` unescaped, other escapes kept) and its flags.
    fn regex(&mut self, pos: Pos) -> Result<Tok, GrammarError> {
        self.bump();
        let mut s = String::new();
        loop {
            match self.bump() {
                None | Some('\n') => return Err(Self::err(pos, "unterminated regular expression")),
                Some('/') => break,
                Some('\\') => {
                    let c = self
                        .bump()
                        .ok_or_else(|| Self::err(pos, "unterminated regular expression"))?;
                    if c != '/' {
                        s.push('\\');
                    }
                    s.push(c);
                }
                Some(c) => s.push(c),
            }
        }
        let mut flags = String::new();
        while let Some(c) = self.peek().filter(|c| "imsxu".contains(*c)) {
            flags.push(c);
            self.bump();
        }
        Ok(Tok::Re(s, flags))
    }

    /// An integer, optionally negative.
    fn number(&mut self, pos: Pos) -> Result<Tok, GrammarError> {
        let mut s = String::new();
        s.extend(self.bump());
        while let Some(c) = self.peek().filter(|c| c.is_ascii_digit()) {
            s.push(c);
            self.bump();
        }
        let n = s.parse().map_err(|_| Self::err(pos, "number out of range"))?;
        Ok(Tok::Num(n))
    }

    fn punctuation(&mut self, c: char, pos: Pos) -> Result<Tok, GrammarError> {
        self.bump();
        Ok(match c {
            ':' => Tok::Colon,
            '|' => Tok::Bar,
            '(' => Tok::LPar,
            ')' => Tok::RPar,
            '[' => Tok::LBrk,
            ']' => Tok::RBrk,
            '?' => Tok::Quest,
            '*' => Tok::Star,
            '+' => Tok::Plus,
            '~' => Tok::Tilde,
            '.' if self.peek() == Some('.') => {
                self.bump();
                Tok::DotDot
            }
            '.' => Tok::Dot,
            '-' if self.peek() == Some('>') => {
                self.bump();
                Tok::Arrow
            }
            _ => return Err(Self::err(pos, format!("unexpected character `{c}`"))),
        })
    }
}

struct Parser {
    toks: Vec<(Tok, Pos)>,
    i: usize,
    end: Pos,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.0)
    }
    fn pos(&self) -> Pos {
        self.toks.get(self.i).map(|t| t.1).unwrap_or(self.end)
    }
    fn err<T>(&self, m: impl Into<String>) -> Result<T, GrammarError> {
        Err(GrammarError::Syntax { pos: self.pos(), message: m.into() })
    }
    /// Skips newlines that are followed by a `|` continuation line.
    fn skip_continuation(&mut self) {
        let mut j = self.i;
        while matches!(self.toks.get(j), Some((Tok::Newline, _))) {
            j += 1;
        }
        if j > self.i && matches!(self.toks.get(j), Some((Tok::Bar, _))) {
            self.i = j;
        }
    }

    fn alternatives(&mut self, depth: u32) -> Result<Expr, GrammarError> {
        let mut alts = vec![self.sequence(depth)?];
        loop {
            if depth == 0 {
                self.skip_continuation();
            } else {
                while self.peek() == Some(&Tok::Newline) {
                    self.i += 1;
                }
            }
            if self.peek() == Some(&Tok::Bar) {
                self.i += 1;
                alts.push(self.sequence(depth)?);
            } else {
                break;
            }
        }
        Ok(if alts.len() == 1 { alts.pop().unwrap() } else { Expr::Alt(alts) })
    }

    fn sequence(&mut self, depth: u32) -> Result<Expr, GrammarError> {
        let mut items = Vec::new();
        loop {
            if depth > 0 {
                while self.peek() == Some(&Tok::Newline) {
                    self.i += 1;
                }
            }
            match self.peek() {
                Some(Tok::Arrow) => {
                    self.i += 1;
                    match self.peek() {
                        Some(Tok::Ident(_)) => self.i += 1,
                        _ => return self.err("expected an alias name after `->`"),
                    }
                }
                Some(Tok::Ident(_) | Tok::Str(..) | Tok::Re(..) | Tok::LPar | Tok::LBrk) => {
                    items.push(self.item(depth)?)
                }
                _ => break,
            }
        }
        Ok(if items.len() == 1 { items.pop().unwrap() } else { Expr::Seq(items) })
    }

    /// An atom and its postfix operators (`?`, `*`, `+`, `~ n..m`).
    fn item(&mut self, depth: u32) -> Result<Expr, GrammarError> {
        let mut e = self.atom(depth)?;
        loop {
            e = match self.peek() {
                Some(Tok::Quest) => Expr::Opt(Box::new(e)),
                Some(Tok::Star) => Expr::Star(Box::new(e)),
                Some(Tok::Plus) => Expr::Plus(Box::new(e)),
                Some(Tok::Tilde) => {
                    let (lo, hi) = self.repetition()?;
                    e = Expr::Repeat(Box::new(e), lo, hi);
                    continue;
                }
                _ => return Ok(e),
            };
            self.i += 1;
        }
    }

    /// A name, a literal (or a `"a".."z"` range), a regex, `( ... )` or `[ ... ]`.
    fn atom(&mut self, depth: u32) -> Result<Expr, GrammarError> {
        let pos = self.pos();
        let tok = self.toks[self.i].0.clone();
        self.i += 1;
        Ok(match tok {
            Tok::Ident(n) => Expr::Name(n, pos),
            Tok::Str(s, _) if self.peek() == Some(&Tok::DotDot) => self.range(&s, pos)?,
            Tok::Str(s, ci) => Expr::Literal(s, ci, pos),
            Tok::Re(r, f) => Expr::Regex(r, f, pos),
            Tok::LPar => self.group(depth, Tok::RPar, "expected `)`")?,
            Tok::LBrk => Expr::Opt(Box::new(self.group(depth, Tok::RBrk, "expected `]`")?)),
            _ => {
                self.i -= 1;
                return self.err("expected a name, literal, regex or group");
            }
        })
    }

    /// After `"a"`: `.. "z"`, a character class.
    fn range(&mut self, lo: &str, pos: Pos) -> Result<Expr, GrammarError> {
        self.i += 1;
        let Some(Tok::Str(hi, _)) = self.peek().cloned() else {
            return self.err("expected a string after `..` in a range");
        };
        self.i += 1;
        let (a, b) = (lo.chars().next().unwrap(), hi.chars().next().unwrap());
        if lo.chars().count() != 1 || hi.chars().count() != 1 || a > b {
            return Err(GrammarError::Syntax {
                pos,
                message: "a range needs two single characters, low..high".into(),
            });
        }
        let class = format!(
            "[{}-{}]",
            regex_syntax::escape(&a.to_string()),
            regex_syntax::escape(&b.to_string())
        );
        Ok(Expr::Regex(class, String::new(), pos))
    }

    /// Alternatives inside a bracket, then its closing token.
    fn group(&mut self, depth: u32, close: Tok, missing: &str) -> Result<Expr, GrammarError> {
        let e = self.alternatives(depth + 1)?;
        if self.peek() != Some(&close) {
            return self.err(missing);
        }
        self.i += 1;
        Ok(e)
    }

    /// `~ n` or `~ n..m` (0 <= n <= m <= 1000).
    fn repetition(&mut self) -> Result<(u32, u32), GrammarError> {
        self.i += 1;
        let Some(Tok::Num(lo)) = self.peek().cloned() else {
            return self.err("expected a count after `~`");
        };
        self.i += 1;
        let mut hi = lo;
        if self.peek() == Some(&Tok::DotDot) {
            self.i += 1;
            let Some(Tok::Num(h)) = self.peek().cloned() else {
                return self.err("expected a count after `..`");
            };
            self.i += 1;
            hi = h;
        }
        if lo < 0 || hi < lo || hi > 1000 {
            return self.err("bad repetition range (need 0 <= n <= m <= 1000)");
        }
        Ok((lo as u32, hi as u32))
    }

    fn expect_line_end(&mut self) -> Result<(), GrammarError> {
        match self.peek() {
            None | Some(Tok::Newline) => Ok(()),
            _ => self.err("unexpected token; expected the end of the line"),
        }
    }

    fn grammar(&mut self) -> Result<GrammarAst, GrammarError> {
        let mut g = GrammarAst::default();
        loop {
            while self.peek() == Some(&Tok::Newline) {
                self.i += 1;
            }
            let Some(t) = self.peek().cloned() else { break };
            match t {
                Tok::Directive(d) => {
                    self.i += 1;
                    match d.as_str() {
                        "ignore" => {
                            let e = self.alternatives(0)?;
                            g.ignore.push(e);
                        }
                        "declare" => {
                            while let Some(Tok::Ident(n)) = self.peek().cloned() {
                                g.declare.push((n, self.pos()));
                                self.i += 1;
                            }
                        }
                        other => {
                            self.i -= 1;
                            return self.err(format!(
                                "unsupported directive `%{other}` (supported: %ignore, %declare)"
                            ));
                        }
                    }
                    self.expect_line_end()?;
                }
                Tok::Quest | Tok::Ident(_) => {
                    if t == Tok::Quest {
                        self.i += 1;
                    }
                    let pos = self.pos();
                    let Some(Tok::Ident(name)) = self.peek().cloned() else {
                        return self.err("expected a rule name after `?`");
                    };
                    self.i += 1;
                    let mut priority = 0;
                    if self.peek() == Some(&Tok::Dot) {
                        self.i += 1;
                        let Some(Tok::Num(n)) = self.peek().cloned() else {
                            return self.err("expected a priority number after `.`");
                        };
                        self.i += 1;
                        priority = n as i32;
                    }
                    if self.peek() != Some(&Tok::Colon) {
                        return self.err(format!("expected `:` after `{name}`"));
                    }
                    self.i += 1;
                    let expr = self.alternatives(0)?;
                    self.expect_line_end()?;
                    let is_terminal = name
                        .trim_start_matches('_')
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_uppercase());
                    g.defs.push(Definition { name, is_terminal, priority, expr, pos });
                }
                _ => return self.err("expected a definition (`name: ...`) or a directive"),
            }
        }
        Ok(g)
    }
}

/// Parses grammar text into its syntax tree.
pub fn parse_grammar(src: &str) -> Result<GrammarAst, GrammarError> {
    let lx = Lexer { chars: src.chars().collect(), i: 0, line: 1, col: 1, _src: src };
    let end = {
        let lines = src.split('\n').collect::<Vec<_>>();
        Pos {
            line: lines.len() as u32,
            col: lines.last().map_or(0, |l| l.chars().count()) as u32 + 1,
        }
    };
    let toks = lx.tokens()?;
    Parser { toks, i: 0, end }.grammar()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rules_and_terminals() {
        let g = parse_grammar("start: a (\"+\" a)*\n    | [b]\n?a: NAME -> x\nNAME.2: /[a-z]+/i\n%ignore \" \"\n%declare INDENT DEDENT\n").unwrap();
        assert_eq!(g.defs.len(), 3);
        assert!(matches!(g.defs[0].expr, Expr::Alt(ref v) if v.len() == 2));
        assert_eq!(g.defs[2].priority, 2);
        assert!(g.defs[2].is_terminal);
        assert_eq!(g.declare.len(), 2);
        assert_eq!(g.ignore.len(), 1);
    }

    #[test]
    fn error_positions() {
        let e = parse_grammar("start: a\nb: \"x\n").unwrap_err();
        assert_eq!(
            e,
            GrammarError::Syntax {
                pos: Pos { line: 2, col: 4 },
                message: "unterminated string literal".into()
            }
        );
        let e = parse_grammar("start: (a b\n").unwrap_err();
        assert!(matches!(e, GrammarError::Syntax { message, .. } if message.contains(")")));
        let e = parse_grammar("start a\n").unwrap_err();
        assert!(matches!(e, GrammarError::Syntax { pos: Pos { line: 1, col: 7 }, .. }));
        let e = parse_grammar("%import common.WS\n").unwrap_err();
        assert!(e.to_string().contains("unsupported directive"));
    }
}
