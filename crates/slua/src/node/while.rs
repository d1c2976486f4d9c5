//! The while node: `while c do b end;`, whose block may `break`.

use super::protocol::{kw, Child, Choice, Ctx, Sum};

/// Where a while statement is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhileState {
    /// The condition is running.
    Cond,
    /// Before `do`.
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
            WhileState::Do => vec![kw("do")],
            WhileState::End => vec![kw("end")],
            WhileState::Semi => vec![kw(";")],
            WhileState::Cond | WhileState::Body | WhileState::Done => vec![],
        }
    }

    /// Takes the choice: moves on, returns the block to push after `do`.
    pub fn step(&mut self) -> Vec<Child> {
        match self.state {
            WhileState::Do => {
                self.state = WhileState::Body;
                return vec![Child::Block(Ctx { in_loop: true, ..self.ctx.clone() }, false)];
            }
            WhileState::End => self.state = WhileState::Semi,
            WhileState::Semi => self.state = WhileState::Done,
            WhileState::Cond | WhileState::Body | WhileState::Done => {}
        }
        vec![]
    }

    /// Complete after `;`.
    pub fn can_end(&self) -> Option<Sum> {
        (self.state == WhileState::Done).then_some(Sum::Stmt(false, false, None))
    }

    /// Takes the condition or the block.
    pub fn child_done(&mut self) {
        match self.state {
            WhileState::Cond => self.state = WhileState::Do,
            WhileState::Body => self.state = WhileState::End,
            _ => {}
        }
    }
}
