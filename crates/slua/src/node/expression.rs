//! The expression nodes: an expression of operands and binary operators by
//! precedence, wanting one of a set of types, and a parenthesised expression. An
//! operator or operand is offered only when the expression can still end in a wanted
//! type ([`crate::viability`]), so generation never paints itself into a corner.

use crate::lexeme::Lex;
use crate::ops::{push_op, reduce_all, BinOp, TypeSet, BASES, BIN_OPS};
use crate::scope::Env;
use crate::types::Type;
use crate::viability::Viability;

use super::protocol::{kw, Act, Ann, Child, Choice, Ctx, Sum};

/// An expression (operators by precedence) wanting one of `want`.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What the operands see.
    pub ctx: Ctx,
    /// The types the expression may end in.
    pub want: TypeSet,
    /// The operands and operators waiting for their right-hand side.
    pub stack: Vec<(Type, BinOp)>,
    /// The unary operators before the next operand (`true`: `not`).
    pub unary: Vec<bool>,
    /// The operand just read, if any.
    pub have: Option<Type>,
}

impl Expr {
    /// An expression wanting one of `want`.
    pub fn new(ctx: Ctx, want: TypeSet) -> Expr {
        Expr { ctx, want, stack: Vec::new(), unary: Vec::new(), have: None }
    }

    /// The lexemes accepted next: after an operand the operators, otherwise operands.
    pub fn choices(&self, env: &Env) -> Vec<Choice> {
        match &self.have {
            Some(t) => self.operators(env.viability(), t),
            None => self.operands(env),
        }
    }

    /// The binary operators after an operand of type `t` from which the expression
    /// can still end in a wanted type.
    fn operators(&self, viability: &Viability, t: &Type) -> Vec<Choice> {
        if !t.is_base() {
            return vec![];
        }
        BIN_OPS
            .into_iter()
            .filter(|op| {
                push_op(&self.stack, t, *op).is_some_and(|st2| {
                    BASES.iter().any(|b| viability.can_finish(&self.want, &st2, b))
                })
            })
            .map(|op| Choice::lit(op.text(), Act::Op(op)))
            .collect()
    }

    /// The types the next operand may have: after unary operators their operand
    /// type, otherwise every base type from which the expression can still end in
    /// `want`, plus a table or function type when the operand is the whole expression.
    fn targets(&self, viability: &Viability) -> TypeSet {
        match self.unary.last() {
            Some(true) => TypeSet::one(&Type::Boolean),
            Some(false) => TypeSet::one(&Type::Number),
            None => {
                let mut bases = 0;
                for (i, b) in BASES.iter().enumerate() {
                    if viability.can_finish(&self.want, &self.stack, b) {
                        bases |= 1 << i;
                    }
                }
                let other = if self.stack.is_empty() { self.want.other.clone() } else { None };
                TypeSet { bases, other }
            }
        }
    }

    /// The operands: literals, unary operators, `(`, a function or table
    /// constructor, variables and global calls that reach a target type.
    fn operands(&self, env: &Env) -> Vec<Choice> {
        let api = &env.api;
        let targets = self.targets(env.viability());
        let mut out = literals(&targets);
        let (neg_ok, not_ok) = match self.unary.last() {
            Some(u) => (!*u, *u),
            None => {
                let can = |t: &Type| env.viability().can_finish(&self.want, &self.stack, t);
                (can(&Type::Number), can(&Type::Boolean))
            }
        };
        if neg_ok {
            out.push(Choice::lit("-", Act::Unary(false)));
        }
        if not_ok {
            out.push(Choice::lit("not", Act::Unary(true)));
        }
        if targets.bases != 0 {
            out.push(kw("("));
        }
        match &targets.other {
            Some(Type::Func(_)) => out.push(kw("function")),
            Some(Type::Table(i)) if api.tables[*i].constructible => {
                out.push(Choice { lex: Lex::Lit("{".into()), act: Act::Kw, ann: Ann::Table(*i) })
            }
            _ => {}
        }
        let fits = |t: &Type| api.reaches(t, &|x| targets.contains(x));
        out.extend(Choice::scoped(env, &self.ctx.scope, false, |k| fits(&k.ty)));
        out.extend(Choice::globals(env, &self.ctx.scope, fits));
        out
    }

    /// Takes an operator or operand: pushes a prefix, parenthesised expression,
    /// function or table constructor for the operands that are nodes.
    pub fn step(&mut self, act: &Act, text: &str, env: &Env) -> Vec<Child> {
        // The operand targets, only for the acts that open a node.
        let targets = || self.targets(env.viability());
        let ctx = &self.ctx;
        match act {
            Act::Op(op) => {
                if let Some(t) = self.have.take() {
                    self.stack = push_op(&self.stack, &t, *op).unwrap_or_default();
                }
            }
            Act::Unary(is_not) => self.unary.push(*is_not),
            Act::Literal(t) => {
                self.unary.clear();
                self.have = Some(t.clone());
            }
            Act::Var(t, _) => return vec![Child::Prefix(ctx.clone(), t.clone(), targets())],
            Act::Kw if text == "(" => {
                let inner = TypeSet { bases: targets().bases, other: None };
                return vec![Child::Paren, Child::Expr(ctx.clone(), inner)];
            }
            Act::Kw if text == "function" => {
                if let Some(Type::Func(ft)) = targets().other {
                    return vec![Child::Func(ctx.clone(), ft, vec![])];
                }
            }
            Act::Kw if text == "{" => {
                if let Some(Type::Table(i)) = targets().other {
                    return vec![Child::Table(ctx.clone(), i)];
                }
            }
            _ => {}
        }
        vec![]
    }

    /// May end after an operand when the whole expression has a wanted type.
    pub fn can_end(&self) -> Option<Sum> {
        let t = self.have.as_ref()?;
        reduce_all(&self.stack, t).filter(|r| self.want.contains(r)).map(Sum::Ty)
    }

    /// Takes an operand that was a node (prefix, parentheses, function, table).
    pub fn child_done(&mut self, sum: &Sum) {
        if let Sum::Ty(t) = sum {
            self.unary.clear();
            self.have = Some(t.clone());
        }
    }
}

/// The literals of the target types.
fn literals(targets: &TypeSet) -> Vec<Choice> {
    let lit = |lex: Lex, t: Type| Choice { lex, act: Act::Literal(t), ann: Ann::None };
    let mut out = Vec::new();
    if targets.contains(&Type::Number) {
        out.push(lit(Lex::Number, Type::Number));
    }
    if targets.contains(&Type::String) {
        out.push(lit(Lex::Str, Type::String));
    }
    if targets.contains(&Type::Boolean) {
        out.push(lit(Lex::Lit("true".into()), Type::Boolean));
        out.push(lit(Lex::Lit("false".into()), Type::Boolean));
    }
    out
}

/// Where a parenthesised expression is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParenState {
    /// The inner expression is running.
    Inner,
    /// Before `)`.
    Close,
    /// Complete.
    Done,
}

/// A parenthesised expression.
#[derive(Clone, Debug)]
pub struct Paren {
    /// Where it is.
    pub state: ParenState,
    /// The inner expression's type.
    pub ty: Type,
}

impl Paren {
    /// After `(` (the inner expression is pushed beside it).
    pub fn open() -> Paren {
        Paren { state: ParenState::Inner, ty: Type::Void }
    }

    /// `)` once the inner expression is written.
    pub fn choices(&self) -> Vec<Choice> {
        match self.state {
            ParenState::Close => vec![kw(")")],
            ParenState::Inner | ParenState::Done => vec![],
        }
    }

    /// Takes `)`.
    pub fn step(&mut self) {
        self.state = ParenState::Done;
    }

    /// Complete after `)`: the inner expression's type.
    pub fn can_end(&self) -> Option<Sum> {
        (self.state == ParenState::Done).then(|| Sum::Ty(self.ty.clone()))
    }

    /// Takes the inner expression.
    pub fn child_done(&mut self, sum: &Sum) {
        if let Sum::Ty(t) = sum {
            self.ty = t.clone();
            self.state = ParenState::Close;
        }
    }
}
