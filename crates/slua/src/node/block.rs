//! The block node: statements until the block's end (`end`, `else`, ...), which its
//! parent offers once the block may end: when it need not return, or has returned.
//! A `return` or `break` must be the block's last statement.

use crate::scope::Env;
use crate::types::Type;

use super::protocol::{kw, Act, Child, Choice, Ctx, Sum};

/// A block of statements.
#[derive(Clone, Debug)]
pub struct Block {
    /// What its statements see (the scope grows with each `local`).
    pub ctx: Ctx,
    /// Whether every path must return (a function body with a return type).
    pub needs_return: bool,
    /// Whether some statement returns on every path.
    pub returns: bool,
    /// Whether the last statement was a `return` or `break`.
    pub terminal: bool,
}

impl Block {
    /// An empty block.
    pub fn new(ctx: Ctx, needs_return: bool) -> Block {
        Block { ctx, needs_return, returns: false, terminal: false }
    }

    /// The first lexemes of a statement: keywords, variables, global calls.
    pub fn choices(&self, env: &Env) -> Vec<Choice> {
        if self.terminal {
            return vec![];
        }
        let api = &env.api;
        let mut out: Vec<Choice> =
            ["local", "if", "while", "for", "do", "return"].into_iter().map(kw).collect();
        if self.ctx.in_loop {
            out.push(kw("break"));
        }
        out.extend(Choice::scoped(env, &self.ctx.scope, true, |k| {
            k.assignable || api.stmt_reaches(&k.ty)
        }));
        out.extend(Choice::globals(env, &self.ctx.scope, |_| true));
        out
    }

    /// Starts the statement chosen: the children to push.
    pub fn step(&mut self, act: &Act, text: &str) -> Vec<Child> {
        let c = self.ctx.clone();
        match (act, text) {
            (Act::Kw, "local") => vec![Child::Local(c)],
            (Act::Kw, "if") => {
                let e = Child::expr(&c, &Type::Boolean);
                vec![Child::If(c), e]
            }
            (Act::Kw, "while") => {
                let e = Child::expr(&c, &Type::Boolean);
                vec![Child::While(c), e]
            }
            (Act::Kw, "for") => vec![Child::For(c)],
            (Act::Kw, "do") => vec![Child::Do(c.clone()), Child::Block(c, false)],
            (Act::Kw, "return") if c.ret == Type::Void => vec![Child::Return(false)],
            (Act::Kw, "return") => vec![Child::Return(true), Child::expr(&c, &c.ret)],
            (Act::Kw, "break") => vec![Child::Break],
            (Act::Var(t, assignable), _) => vec![Child::Stmt(c, t.clone(), *assignable)],
            _ => vec![],
        }
    }

    /// Whether the block may end: when it need not return or has.
    pub fn can_end(&self) -> Option<Sum> {
        (!self.needs_return || self.returns).then_some(Sum::Block(self.returns))
    }

    /// Takes a finished statement: whether it returns or ends the block, its variable.
    pub fn child_done(&mut self, sum: &Sum, env: &Env) {
        if let Sum::Stmt(r, term, var) = sum {
            self.returns |= *r;
            self.terminal |= *term;
            if let Some((n, t)) = var {
                self.ctx.scope = env.push(&self.ctx.scope, n, t, true);
            }
        }
    }
}
