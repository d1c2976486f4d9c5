//! The sLua syntax tree, rebuilt from the annotated lexemes the tree of parsers
//! logged. The input was already checked (syntax and types), so this is a plain
//! recursive-descent parser; it still returns an error rather than panicking if
//! handed tokens the tree did not produce.

use crate::check_error::CheckError;
use crate::node::Ann;
use crate::ops::BinOp;
use crate::tree::Token;

/// A whole script.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    /// `effect` or `talent`.
    pub kind: String,
    /// The script's name.
    pub name: String,
    /// Top-level local definitions and hooks, in order.
    pub items: Vec<Item>,
}

/// A top-level item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `local name: T = e;`
    Local(String, Expr),
    /// `hook Name = function(...) ... end;`
    Hook(String, Expr),
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `local name: T = e;` (the type is dropped: translation does not need it).
    Local(String, Expr),
    /// `target = e;`
    Assign(Expr, Expr),
    /// A call used as a statement.
    Call(Expr),
    /// `if` with its `elseif` arms and optional `else`.
    If(Vec<(Expr, Vec<Stmt>)>, Option<Vec<Stmt>>),
    /// `while c do ... end;`
    While(Expr, Vec<Stmt>),
    /// `for v = a, b (, s) do ... end;`
    For(String, Expr, Expr, Option<Expr>, Vec<Stmt>),
    /// `do ... end;`
    Do(Vec<Stmt>),
    /// `return e;` / `return;`
    Return(Option<Expr>),
    /// `break;`
    Break,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A number literal as written.
    Num(String),
    /// A string literal as written (with quotes).
    Str(String),
    /// `true` / `false`.
    Bool(bool),
    /// A variable or global function.
    Name(String),
    /// `e.field`
    Field(Box<Expr>, String),
    /// `e(args)`
    Call(Box<Expr>, Vec<Expr>),
    /// `e.Method(args)` (translated `e:Method(args)`).
    Method(Box<Expr>, String, Vec<Expr>),
    /// A binary operation.
    Bin(Box<Expr>, BinOp, Box<Expr>),
    /// `not e`
    Not(Box<Expr>),
    /// `-e`
    Neg(Box<Expr>),
    /// `(e)`
    Paren(Box<Expr>),
    /// `function(params) body end`
    Func(Vec<String>, Vec<Stmt>),
    /// A constructor of the API table type with this index: fields as written.
    Table(usize, Vec<(String, Expr)>),
}

/// Builds the syntax tree from the tree's token log; an error (tokens that do not form
/// a script: only possible for tokens the tree did not log) is at the offending token.
pub fn build(tokens: &[Token]) -> Result<Script, CheckError> {
    let mut p = P { t: tokens, i: 0 };
    let kind = p.next()?.to_string();
    let name = p.next()?.to_string();
    p.eat(";")?;
    let mut items = Vec::new();
    while p.i < p.t.len() {
        if p.peek() == "local" {
            if let Stmt::Local(n, e) = p.local()? {
                items.push(Item::Local(n, e));
            }
        } else {
            p.eat("hook")?;
            let h = p.next()?.to_string();
            p.eat("=")?;
            let f = p.expr(0)?;
            p.eat(";")?;
            items.push(Item::Hook(h, f));
        }
    }
    Ok(Script { kind, name, items })
}

struct P<'a> {
    t: &'a [Token],
    i: usize,
}

impl P<'_> {
    fn err(&self, what: &str) -> CheckError {
        CheckError {
            offset: self.t.get(self.i).map_or(usize::MAX, |t| t.offset),
            expected: what.to_string(),
        }
    }
    fn peek(&self) -> &str {
        self.t.get(self.i).map_or("", |t| t.text.as_str())
    }
    fn next(&mut self) -> Result<&str, CheckError> {
        let t = self.t.get(self.i).ok_or_else(|| self.err("more input"))?;
        self.i += 1;
        Ok(&t.text)
    }
    fn eat(&mut self, s: &str) -> Result<(), CheckError> {
        if self.peek() == s {
            self.i += 1;
            Ok(())
        } else {
            Err(self.err(&format!("`{s}`")))
        }
    }

    fn local(&mut self) -> Result<Stmt, CheckError> {
        self.eat("local")?;
        let name = self.next()?.to_string();
        self.eat(":")?;
        while self.peek() != "=" {
            self.next()?;
        }
        self.eat("=")?;
        let e = self.expr(0)?;
        self.eat(";")?;
        Ok(Stmt::Local(name, e))
    }

    fn block(&mut self) -> Result<Vec<Stmt>, CheckError> {
        let mut out = Vec::new();
        while !matches!(self.peek(), "end" | "else" | "elseif" | "") {
            out.push(self.stmt()?);
        }
        Ok(out)
    }

    fn stmt(&mut self) -> Result<Stmt, CheckError> {
        let s = match self.peek() {
            "local" => return self.local(),
            "if" => {
                let mut arms = Vec::new();
                let mut other = None;
                self.next()?;
                loop {
                    let c = self.expr(0)?;
                    self.eat("then")?;
                    arms.push((c, self.block()?));
                    match self.next()? {
                        "elseif" => continue,
                        "else" => {
                            other = Some(self.block()?);
                            self.eat("end")?;
                            break;
                        }
                        _ => break,
                    }
                }
                Stmt::If(arms, other)
            }
            "while" => {
                self.next()?;
                let c = self.expr(0)?;
                self.eat("do")?;
                let b = self.block()?;
                self.eat("end")?;
                Stmt::While(c, b)
            }
            "for" => {
                self.next()?;
                let v = self.next()?.to_string();
                self.eat("=")?;
                let a = self.expr(0)?;
                self.eat(",")?;
                let b = self.expr(0)?;
                let s = if self.peek() == "," {
                    self.next()?;
                    Some(self.expr(0)?)
                } else {
                    None
                };
                self.eat("do")?;
                let body = self.block()?;
                self.eat("end")?;
                Stmt::For(v, a, b, s, body)
            }
            "do" => {
                self.next()?;
                let b = self.block()?;
                self.eat("end")?;
                Stmt::Do(b)
            }
            "return" => {
                self.next()?;
                if self.peek() == ";" {
                    Stmt::Return(None)
                } else {
                    Stmt::Return(Some(self.expr(0)?))
                }
            }
            "break" => {
                self.next()?;
                Stmt::Break
            }
            _ => {
                let target = self.suffixed()?;
                if self.peek() == "=" {
                    self.next()?;
                    Stmt::Assign(target, self.expr(0)?)
                } else {
                    Stmt::Call(target)
                }
            }
        };
        self.eat(";")?;
        Ok(s)
    }

    fn args(&mut self) -> Result<Vec<Expr>, CheckError> {
        self.eat("(")?;
        let mut out = Vec::new();
        if self.peek() != ")" {
            loop {
                out.push(self.expr(0)?);
                if self.peek() != "," {
                    break;
                }
                self.next()?;
            }
        }
        self.eat(")")?;
        Ok(out)
    }

    fn suffixed(&mut self) -> Result<Expr, CheckError> {
        let mut e = Expr::Name(self.next()?.to_string());
        loop {
            match self.peek() {
                "." => {
                    self.next()?;
                    let method = self.t.get(self.i).is_some_and(|t| t.ann == Ann::Method);
                    let n = self.next()?.to_string();
                    if method {
                        let a = self.args()?;
                        e = Expr::Method(Box::new(e), n, a);
                    } else {
                        e = Expr::Field(Box::new(e), n);
                    }
                }
                "(" => {
                    let a = self.args()?;
                    e = Expr::Call(Box::new(e), a);
                }
                _ => return Ok(e),
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, CheckError> {
        let tok = self.t.get(self.i).ok_or_else(|| self.err("an expression"))?;
        let text = tok.text.as_str();
        let first = text.bytes().next().unwrap_or(b' ');
        Ok(match text {
            "true" | "false" => {
                self.i += 1;
                Expr::Bool(text == "true")
            }
            "not" => {
                self.i += 1;
                Expr::Not(Box::new(self.unary_operand()?))
            }
            "-" => {
                self.i += 1;
                Expr::Neg(Box::new(self.unary_operand()?))
            }
            "(" => {
                self.i += 1;
                let e = self.expr(0)?;
                self.eat(")")?;
                Expr::Paren(Box::new(e))
            }
            "function" => {
                self.i += 1;
                self.eat("(")?;
                let mut params = Vec::new();
                while self.peek() != ")" {
                    params.push(self.next()?.to_string());
                    if self.peek() == "," {
                        self.next()?;
                    }
                }
                self.eat(")")?;
                let body = self.block()?;
                self.eat("end")?;
                Expr::Func(params, body)
            }
            "{" => {
                let Ann::Table(idx) = tok.ann else {
                    return Err(self.err("a typed table constructor"));
                };
                self.i += 1;
                let mut fields = Vec::new();
                while self.peek() != "}" {
                    let n = self.next()?.to_string();
                    self.eat("=")?;
                    fields.push((n, self.expr(0)?));
                    if self.peek() == "," {
                        self.next()?;
                    }
                }
                self.eat("}")?;
                Expr::Table(idx, fields)
            }
            _ if first.is_ascii_digit() => {
                self.i += 1;
                Expr::Num(text.to_string())
            }
            _ if first == b'"' => {
                self.i += 1;
                Expr::Str(text.to_string())
            }
            _ => self.suffixed()?,
        })
    }

    /// The operand of a unary operator: a primary (unary binds tighter than every
    /// binary operator here).
    fn unary_operand(&mut self) -> Result<Expr, CheckError> {
        self.primary()
    }

    fn expr(&mut self, min_prec: u8) -> Result<Expr, CheckError> {
        let mut lhs = self.primary()?;
        while let Some(op) = BinOp::from_text(self.peek()) {
            if op.prec() < min_prec {
                break;
            }
            self.next()?;
            let next_min = if op.right_assoc() { op.prec() } else { op.prec() + 1 };
            let rhs = self.expr(next_min)?;
            lhs = Expr::Bin(Box::new(lhs), op, Box::new(rhs));
        }
        Ok(lhs)
    }
}
