//! The for node: `for i = a, b (, s)? do b end;`, a numeric loop whose variable is a
//! number the block may read but not assign, and whose block may `break`.

use crate::scope::Env;
use crate::types::Type;

use super::protocol::{kw, Child, Choice, Ctx, Sum};

/// Where a for statement is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForState {
    /// Before the loop variable.
    Name,
    /// Before `=`.
    Eq,
    /// The first bound is running.
    From,
    /// After the first bound: before `,`.
    Comma,
    /// The second bound is running.
    To,
    /// After the second bound: before `,` (a step) or `do`.
    StepOrDo,
    /// The step is running.
    Step,
    /// After the step: before `do`.
    Do,
    /// The block is running.
    Body,
    /// Before `end`.
    End,
    /// Before `;`.
    Semi,
    /// Complete.
    Done,
}

/// `for i = a, b (, s)? do b end;`
#[derive(Clone, Debug)]
pub struct For {
    /// What the bounds see (the block sees the loop variable too).
    pub ctx: Ctx,
    /// Where the statement is.
    pub state: ForState,
    /// The loop variable.
    pub name: String,
}

impl For {
    /// A for statement after `for`.
    pub fn new(ctx: Ctx) -> For {
        For { ctx, state: ForState::Name, name: String::new() }
    }

    /// The lexemes accepted next.
    pub fn choices(&self, env: &Env) -> Vec<Choice> {
        match self.state {
            ForState::Name => vec![Choice::new_name(false, &env.reserved)],
            ForState::Eq => vec![kw("=")],
            ForState::Comma => vec![kw(",")],
            ForState::StepOrDo => vec![kw(","), kw("do")],
            ForState::Do => vec![kw("do")],
            ForState::End => vec![kw("end")],
            ForState::Semi => vec![kw(";")],
            ForState::From | ForState::To | ForState::Step | ForState::Body | ForState::Done => {
                vec![]
            }
        }
    }

    /// Takes the choice: moves on, returns the children to push.
    pub fn step(&mut self, text: &str, env: &Env) -> Vec<Child> {
        match (self.state, text) {
            (ForState::Name, _) => {
                self.name = text.to_string();
                self.state = ForState::Eq;
            }
            (ForState::Eq, _) => return self.bound(ForState::From),
            (ForState::Comma, _) => return self.bound(ForState::To),
            (ForState::StepOrDo, ",") => return self.bound(ForState::Step),
            (ForState::StepOrDo | ForState::Do, _) => {
                self.state = ForState::Body;
                let c = Ctx {
                    in_loop: true,
                    scope: env.push(&self.ctx.scope, &self.name, &Type::Number, false),
                    ret: self.ctx.ret.clone(),
                };
                return vec![Child::Block(c, false)];
            }
            (ForState::End, _) => self.state = ForState::Semi,
            (ForState::Semi, _) => self.state = ForState::Done,
            _ => {}
        }
        vec![]
    }

    /// Moves to the bound `state` and pushes its expression.
    fn bound(&mut self, state: ForState) -> Vec<Child> {
        self.state = state;
        vec![Child::expr(&self.ctx, &Type::Number)]
    }

    /// Complete after `;`.
    pub fn can_end(&self) -> Option<Sum> {
        (self.state == ForState::Done).then_some(Sum::Stmt(false, false, None))
    }

    /// Takes a bound or the block.
    pub fn child_done(&mut self) {
        self.state = match self.state {
            ForState::From => ForState::Comma,
            ForState::To => ForState::StepOrDo,
            ForState::Step => ForState::Do,
            ForState::Body => ForState::End,
            s => s,
        };
    }
}
