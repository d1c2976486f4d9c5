//! The do node: `do b end;`, which returns when its block does.

use super::protocol::{kw, Choice, Ctx, Sum};

/// Where a do statement is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DoState {
    /// The block is running.
    Body,
    /// Before `end`.
    End,
    /// Before `;`.
    Semi,
    /// Complete.
    Done,
}

/// `do b end;`
#[derive(Clone, Debug)]
pub struct Do {
    /// What the block sees.
    pub ctx: Ctx,
    /// Where the statement is.
    pub state: DoState,
    /// Whether the block returns on every path.
    pub returns: bool,
}

impl Do {
    /// A do statement after `do` (its block is pushed beside it).
    pub fn new(ctx: Ctx) -> Do {
        Do { ctx, state: DoState::Body, returns: false }
    }

    /// The lexemes accepted next.
    pub fn choices(&self) -> Vec<Choice> {
        match self.state {
            DoState::End => vec![kw("end")],
            DoState::Semi => vec![kw(";")],
            DoState::Body | DoState::Done => vec![],
        }
    }

    /// Takes `end` or `;`.
    pub fn step(&mut self) {
        self.state = match self.state {
            DoState::Body => DoState::End,
            DoState::End => DoState::Semi,
            DoState::Semi | DoState::Done => DoState::Done,
        };
    }

    /// Complete after `;`: returns when the block does.
    pub fn can_end(&self) -> Option<Sum> {
        (self.state == DoState::Done).then_some(Sum::Stmt(self.returns, false, None))
    }

    /// Takes the block.
    pub fn child_done(&mut self, sum: &Sum) {
        if let Sum::Block(r) = sum {
            self.returns = *r;
            self.state = DoState::End;
        }
    }
}
