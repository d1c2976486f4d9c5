//! The function node: a function expression of a known type, `function(a, b) ... end`,
//! one new name per parameter, whose body must return when the type returns a value.

use std::rc::Rc;

use crate::scope::Env;
use crate::types::{FuncType, Type};

use super::protocol::{kw, Act, Child, Choice, Ctx, Sum};

/// Where a function expression is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FuncState {
    /// Before `(`.
    Open,
    /// Before a parameter's name (or `)` when there are none).
    Param,
    /// After a parameter's name: before `,` or `)`.
    AfterParam,
    /// The body is running.
    Body,
    /// Before `end`.
    End,
    /// Complete.
    Done,
}

/// A function expression of a known type.
#[derive(Clone, Debug)]
pub struct Func {
    /// What the body sees besides the parameters.
    pub ctx: Ctx,
    /// The function's type.
    pub ft: Rc<FuncType>,
    /// The parameter names written.
    pub names: Vec<String>,
    /// Where it is.
    pub state: FuncState,
    /// Parameter names to suggest (a hook's).
    pub hint: Vec<String>,
}

impl Func {
    /// A function expression of type `ft` after `function`.
    pub fn new(ctx: Ctx, ft: Rc<FuncType>, hint: Vec<String>) -> Func {
        Func { ctx, ft, names: Vec::new(), state: FuncState::Open, hint }
    }

    /// The lexemes accepted next.
    pub fn choices(&self, env: &Env) -> Vec<Choice> {
        match self.state {
            FuncState::Open => vec![kw("(")],
            FuncState::Param if self.ft.params.is_empty() => vec![kw(")")],
            FuncState::Param => vec![Choice::new_name(false, &env.reserved)],
            FuncState::AfterParam if self.names.len() < self.ft.params.len() => vec![kw(",")],
            FuncState::AfterParam => vec![kw(")")],
            FuncState::End => vec![kw("end")],
            FuncState::Body | FuncState::Done => vec![],
        }
    }

    /// Takes the choice: moves on, returns the body to push after `)`.
    pub fn step(&mut self, act: &Act, text: &str, env: &Env) -> Vec<Child> {
        match self.state {
            FuncState::Open => self.state = FuncState::Param,
            FuncState::Param if matches!(act, Act::NewName) => {
                self.names.push(text.to_string());
                self.state = FuncState::AfterParam;
            }
            FuncState::AfterParam if text == "," => self.state = FuncState::Param,
            FuncState::Param | FuncState::AfterParam => {
                self.state = FuncState::Body;
                let mut scope = self.ctx.scope.clone();
                for (n, t) in self.names.iter().zip(&self.ft.params) {
                    scope = env.push(&scope, n, t, true);
                }
                let c = Ctx { scope, ret: self.ft.ret.clone(), in_loop: false };
                return vec![Child::Block(c, self.ft.ret != Type::Void)];
            }
            FuncState::End => self.state = FuncState::Done,
            FuncState::Body | FuncState::Done => {}
        }
        vec![]
    }

    /// Complete after `end`: a value of the function's type.
    pub fn can_end(&self) -> Option<Sum> {
        (self.state == FuncState::Done).then(|| Sum::Ty(Type::Func(self.ft.clone())))
    }

    /// Takes the body.
    pub fn child_done(&mut self) {
        self.state = FuncState::End;
    }
}
