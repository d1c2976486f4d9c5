//! The arguments node: `e, e, ...)` after a call's `(`, one expression per parameter
//! of the called function's type; and [`call`], which starts one.

use crate::types::{FuncType, Type};

use super::protocol::{kw, Child, Choice, Ctx, Sum};

/// Where an argument list is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgsState {
    /// An argument's expression is running.
    Value,
    /// After an argument: before `,` or `)`.
    Next,
    /// No parameters: before `)`.
    Close,
    /// Complete.
    Done,
}

/// An argument list after `(`.
#[derive(Clone, Debug)]
pub struct Args {
    /// What the arguments see.
    pub ctx: Ctx,
    /// The parameter types.
    pub params: Vec<Type>,
    /// The argument being written, by index.
    pub i: usize,
    /// Where the list is.
    pub state: ArgsState,
}

impl Args {
    /// An argument list for `params` (the first argument is pushed beside it).
    pub fn new(ctx: Ctx, params: Vec<Type>) -> Args {
        let state = if params.is_empty() { ArgsState::Close } else { ArgsState::Value };
        Args { ctx, params, i: 0, state }
    }

    /// The lexemes accepted next.
    pub fn choices(&self) -> Vec<Choice> {
        match self.state {
            ArgsState::Next if self.i + 1 < self.params.len() => vec![kw(",")],
            ArgsState::Next | ArgsState::Close => vec![kw(")")],
            ArgsState::Value | ArgsState::Done => vec![],
        }
    }

    /// Takes `,` (pushing the next argument) or `)`.
    pub fn step(&mut self, text: &str) -> Vec<Child> {
        if self.state == ArgsState::Next && text == "," {
            self.i += 1;
            self.state = ArgsState::Value;
            return vec![Child::expr(&self.ctx, &self.params[self.i])];
        }
        self.state = ArgsState::Done;
        vec![]
    }

    /// Complete after `)`.
    pub fn can_end(&self) -> Option<Sum> {
        (self.state == ArgsState::Done).then_some(Sum::Ty(Type::Void))
    }

    /// Takes an argument.
    pub fn child_done(&mut self) {
        self.state = ArgsState::Next;
    }
}

/// A call of a value of type `callee` after `(`: the call's return type and the
/// children to push (the arguments, and the first argument's expression).
pub fn call(ctx: &Ctx, callee: &Type) -> (Type, Vec<Child>) {
    let ft = callee.as_func().cloned().unwrap_or(FuncType { params: vec![], ret: Type::Void });
    let mut out = vec![Child::Args(ctx.clone(), ft.params.clone())];
    if let Some(p) = ft.params.first() {
        out.push(Child::expr(ctx, p));
    }
    (ft.ret, out)
}
