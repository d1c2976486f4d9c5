//! The local node: `local name: T = e;`, whose variable joins the scope of the
//! statements after it.

use crate::scope::Env;
use crate::types::Type;

use super::protocol::{kw, Child, Choice, Ctx, Sum};

/// Where a local statement is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalState {
    /// Before the new name.
    Name,
    /// Before `:`.
    Colon,
    /// The type specification is running.
    Type,
    /// Before `=`.
    Eq,
    /// The value's expression is running.
    Value,
    /// Before `;`.
    Semi,
    /// Complete.
    Done,
}

/// `local name: T = e;`
#[derive(Clone, Debug)]
pub struct Local {
    /// What the value sees (not the new name).
    pub ctx: Ctx,
    /// Where the statement is.
    pub state: LocalState,
    /// The new name.
    pub name: String,
    /// Its declared type.
    pub ty: Type,
}

impl Local {
    /// A local statement after `local`.
    pub fn new(ctx: Ctx) -> Local {
        Local { ctx, state: LocalState::Name, name: String::new(), ty: Type::Void }
    }

    /// The lexemes accepted next.
    pub fn choices(&self, env: &Env) -> Vec<Choice> {
        match self.state {
            LocalState::Name => vec![Choice::new_name(false, &env.reserved)],
            LocalState::Colon => vec![kw(":")],
            LocalState::Eq => vec![kw("=")],
            LocalState::Semi => vec![kw(";")],
            LocalState::Type | LocalState::Value | LocalState::Done => vec![],
        }
    }

    /// Takes the choice: moves on, returns the children to push.
    pub fn step(&mut self, text: &str) -> Vec<Child> {
        match self.state {
            LocalState::Name => {
                self.name = text.to_string();
                self.state = LocalState::Colon;
            }
            LocalState::Colon => {
                self.state = LocalState::Type;
                return vec![Child::TypeSpec];
            }
            LocalState::Eq => {
                self.state = LocalState::Value;
                return vec![Child::expr(&self.ctx, &self.ty)];
            }
            LocalState::Semi => self.state = LocalState::Done,
            LocalState::Type | LocalState::Value | LocalState::Done => {}
        }
        vec![]
    }

    /// Complete after `;`: defines its variable.
    pub fn can_end(&self) -> Option<Sum> {
        (self.state == LocalState::Done)
            .then(|| Sum::Stmt(false, false, Some((self.name.clone(), self.ty.clone()))))
    }

    /// Takes the type specification's or the value's type.
    pub fn child_done(&mut self, sum: &Sum) {
        let Sum::Ty(t) = sum else { return };
        match self.state {
            LocalState::Type => {
                self.ty = t.clone();
                self.state = LocalState::Eq;
            }
            LocalState::Value => self.state = LocalState::Semi,
            _ => {}
        }
    }
}
