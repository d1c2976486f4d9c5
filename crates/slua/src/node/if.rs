//! The if node: `if c then b (elseif c then b)* (else b)? end;`, which returns on
//! every path when it has an `else` and every branch returns.

use crate::types::Type;

use super::protocol::{kw, Child, Choice, Ctx, Sum};

/// Where an if statement is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IfState {
    /// A condition is running.
    Cond,
    /// Before `then`.
    Then,
    /// A branch's block is running.
    Branch,
    /// After a branch: before `elseif`, `else` or `end`.
    Next,
    /// The `else` block is running.
    Else,
    /// After the `else` block: before `end`.
    End,
    /// Before `;`.
    Semi,
    /// Complete.
    Done,
}

/// `if c then b (elseif c then b)* (else b)? end;`
#[derive(Clone, Debug)]
pub struct If {
    /// What the conditions and branches see.
    pub ctx: Ctx,
    /// Where the statement is.
    pub state: IfState,
    /// Whether every branch so far returns.
    pub all_return: bool,
    /// Whether there is an `else`.
    pub has_else: bool,
}

impl If {
    /// An if statement after `if` (its condition is pushed beside it).
    pub fn new(ctx: Ctx) -> If {
        If { ctx, state: IfState::Cond, all_return: true, has_else: false }
    }

    /// The lexemes accepted next.
    pub fn choices(&self) -> Vec<Choice> {
        match self.state {
            IfState::Then => vec![kw("then")],
            IfState::Next => {
                let mut out = vec![kw("elseif"), kw("end")];
                if !self.has_else {
                    out.push(kw("else"));
                }
                out
            }
            IfState::Semi => vec![kw(";")],
            IfState::End => vec![kw("end")],
            IfState::Cond | IfState::Branch | IfState::Else | IfState::Done => vec![],
        }
    }

    /// Takes the choice: moves on, returns the children to push.
    pub fn step(&mut self, text: &str) -> Vec<Child> {
        match (self.state, text) {
            (IfState::Then, _) => {
                self.state = IfState::Branch;
                return vec![Child::Block(self.ctx.clone(), false)];
            }
            (IfState::Next, "elseif") => {
                self.state = IfState::Cond;
                return vec![Child::expr(&self.ctx, &Type::Boolean)];
            }
            (IfState::Next, "else") => {
                self.has_else = true;
                self.state = IfState::Else;
                return vec![Child::Block(self.ctx.clone(), false)];
            }
            (IfState::Next | IfState::End, _) => self.state = IfState::Semi,
            (IfState::Semi, _) => self.state = IfState::Done,
            _ => {}
        }
        vec![]
    }

    /// Complete after `;`: returns when it has an `else` and every branch returns.
    pub fn can_end(&self) -> Option<Sum> {
        (self.state == IfState::Done).then_some(Sum::Stmt(
            self.all_return && self.has_else,
            false,
            None,
        ))
    }

    /// Takes a condition or a branch's block.
    pub fn child_done(&mut self, sum: &Sum) {
        match (self.state, sum) {
            (IfState::Cond, _) => self.state = IfState::Then,
            (IfState::Branch, Sum::Block(r)) => {
                self.all_return &= *r;
                self.state = IfState::Next;
            }
            (IfState::Else, Sum::Block(r)) => {
                self.all_return &= *r;
                self.state = IfState::End;
            }
            _ => {}
        }
    }
}
