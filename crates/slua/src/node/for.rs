//! The for node: `for i = a, b (, s)? do b end;`, a numeric loop whose variable is a
//! number the block may read but not assign, and whose block may `break`.

use crate::scope::Env;
use crate::types::Type;

use super::loop_tail::LoopTail;
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
    /// After the step: `do b end;`.
    Tail(LoopTail),
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
            ForState::Tail(t) => t.choices(),
            ForState::From | ForState::To | ForState::Step => vec![],
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
            (ForState::StepOrDo, _) => {
                self.state = ForState::Tail(LoopTail::Body);
                return self.body(env);
            }
            (ForState::Tail(mut t), _) => {
                let starts = t.step();
                self.state = ForState::Tail(t);
                if starts {
                    return self.body(env);
                }
            }
            _ => {}
        }
        vec![]
    }

    /// The block, which sees the loop variable.
    fn body(&self, env: &Env) -> Vec<Child> {
        let c = Ctx {
            in_loop: true,
            scope: env.push(&self.ctx.scope, &self.name, &Type::Number, false),
            ret: self.ctx.ret.clone(),
        };
        vec![Child::Block(c, false)]
    }

    /// Moves to the bound `state` and pushes its expression.
    fn bound(&mut self, state: ForState) -> Vec<Child> {
        self.state = state;
        vec![Child::expr(&self.ctx, &Type::Number)]
    }

    /// Complete after `;`.
    pub fn can_end(&self) -> Option<Sum> {
        (self.state == ForState::Tail(LoopTail::Done)).then_some(Sum::Stmt(false, false, None))
    }

    /// Takes a bound or the block.
    pub fn child_done(&mut self) {
        self.state = match self.state {
            ForState::From => ForState::Comma,
            ForState::To => ForState::StepOrDo,
            ForState::Step => ForState::Tail(LoopTail::Do),
            ForState::Tail(mut t) => {
                t.child_done();
                ForState::Tail(t)
            }
            s => s,
        };
    }
}
