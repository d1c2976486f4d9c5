//! The while node: `while c do b end;`, whose block may `break`.

use super::loop_tail::LoopTail;
use super::protocol::{Child, Choice, Ctx, Sum};

/// Where a while statement is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhileState {
    /// The condition is running.
    Cond,
    /// `do b end;`.
    Tail(LoopTail),
}

/// `while c do b end;`
#[derive(Clone, Debug)]
pub struct While {
    /// What the condition sees.
    pub ctx: Ctx,
    /// Where the statement is.
    pub state: WhileState,
}

impl While {
    /// A while statement after `while` (its condition is pushed beside it).
    pub fn new(ctx: Ctx) -> While {
        While { ctx, state: WhileState::Cond }
    }

    /// The lexemes accepted next.
    pub fn choices(&self) -> Vec<Choice> {
        match self.state {
            WhileState::Tail(t) => t.choices(),
            WhileState::Cond => vec![],
        }
    }

    /// Takes the choice: moves on, returns the block to push after `do`.
    pub fn step(&mut self) -> Vec<Child> {
        if let WhileState::Tail(t) = &mut self.state {
            if t.step() {
                return vec![Child::Block(Ctx { in_loop: true, ..self.ctx.clone() }, false)];
            }
        }
        vec![]
    }

    /// Complete after `;`.
    pub fn can_end(&self) -> Option<Sum> {
        (self.state == WhileState::Tail(LoopTail::Done)).then_some(Sum::Stmt(false, false, None))
    }

    /// Takes the condition or the block.
    pub fn child_done(&mut self) {
        match &mut self.state {
            WhileState::Cond => self.state = WhileState::Tail(LoopTail::Do),
            WhileState::Tail(t) => t.child_done(),
        }
    }
}
