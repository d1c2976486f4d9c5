//! The statement nodes: an assignment or call statement starting with a variable
//! (`v.f.g = e;`, `f(a);`, `obj.m(a).n = e;`), `return e;` / `return;` and `break;`.

use crate::scope::Env;
use crate::types::Type;

use super::arguments::call;
use super::prefix::members;
use super::protocol::{kw, Act, Child, Choice, Ctx, Sum};

/// Where an assignment or call statement is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum StmtState {
    /// After a value: before `.`, `(`, `=` (assignable) or `;` (after a call).
    Value,
    /// After `.`: before a field or method name.
    Member,
    /// After a method's name: before `(`.
    MethodCall,
    /// A call's arguments are running.
    Call,
    /// The assigned expression is running.
    Assigned,
    /// After the assigned expression: before `;`.
    Semi,
    /// Complete.
    Done,
}

/// An assignment or call statement starting with a name.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// What the arguments and the assigned value see.
    pub ctx: Ctx,
    /// The type of the value so far.
    pub cur: Type,
    /// Whether the value may be assigned.
    pub lvalue: bool,
    /// Whether the value is a call's result (a statement may end after it).
    pub called: bool,
    /// Where the statement is.
    pub state: StmtState,
    /// The return type of the call running.
    pub call_ret: Type,
}

impl Stmt {
    /// A statement starting with a variable of type `cur`.
    pub fn new(ctx: Ctx, cur: Type, lvalue: bool) -> Stmt {
        Stmt { ctx, cur, lvalue, called: false, state: StmtState::Value, call_ret: Type::Void }
    }

    /// The lexemes accepted next.
    pub fn choices(&self, env: &Env) -> Vec<Choice> {
        let api = &env.api;
        let field_ok = |f: &crate::api::Field| f.mutable || api.stmt_reaches(&f.ty);
        match (self.state, &self.cur) {
            (StmtState::Value, cur) => {
                let mut out = Vec::new();
                if let Type::Table(i) = cur {
                    let t = &api.tables[*i];
                    if !t.methods.is_empty() || t.fields.iter().any(field_ok) {
                        out.push(kw("."));
                    }
                }
                if matches!(cur, Type::Func(_)) {
                    out.push(kw("("));
                }
                if self.lvalue {
                    out.push(kw("="));
                }
                if self.called {
                    out.push(kw(";"));
                }
                out
            }
            (StmtState::Member, Type::Table(i)) => members(api, *i, field_ok, |_| true),
            (StmtState::MethodCall, _) => vec![kw("(")],
            (StmtState::Semi, _) => vec![kw(";")],
            _ => vec![],
        }
    }

    /// Takes the choice: moves on, returns the children to push.
    pub fn step(&mut self, act: &Act, text: &str, env: &Env) -> Vec<Child> {
        let api = &env.api;
        match (self.state, act, &self.cur) {
            (StmtState::Value, _, _) if text == "." => self.state = StmtState::Member,
            (StmtState::Value, _, _) if text == "(" => return self.call(),
            (StmtState::Value, _, _) if text == "=" => {
                self.state = StmtState::Assigned;
                return vec![Child::expr(&self.ctx, &self.cur)];
            }
            (StmtState::Value, _, _) => self.state = StmtState::Done,
            (StmtState::Member, Act::Field(j), Type::Table(i)) => {
                let f = &api.tables[*i].fields[*j];
                self.lvalue = f.mutable;
                self.cur = f.ty.clone();
                self.called = false;
                self.state = StmtState::Value;
            }
            (StmtState::Member, Act::Method(j), Type::Table(i)) => {
                self.cur = api.tables[*i].methods[*j].ty.clone();
                self.state = StmtState::MethodCall;
            }
            (StmtState::MethodCall, _, _) => return self.call(),
            (StmtState::Semi, _, _) => self.state = StmtState::Done,
            _ => {}
        }
        vec![]
    }

    /// Starts the call of the value after `(`.
    fn call(&mut self) -> Vec<Child> {
        let (ret, children) = call(&self.ctx, &self.cur);
        self.call_ret = ret;
        self.state = StmtState::Call;
        children
    }

    /// Complete after `;`.
    pub fn can_end(&self) -> Option<Sum> {
        (self.state == StmtState::Done).then_some(Sum::Stmt(false, false, None))
    }

    /// Takes a call's arguments (the value is the call's result) or the assigned value.
    pub fn child_done(&mut self) {
        if self.state == StmtState::Call {
            self.cur = self.call_ret.clone();
            self.called = true;
            self.lvalue = false;
            self.state = StmtState::Value;
        } else {
            self.state = StmtState::Semi;
        }
    }
}

/// Where a return statement is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReturnState {
    /// The returned expression is running.
    Value,
    /// Before `;`.
    Semi,
    /// Complete.
    Done,
}

/// `return e;` / `return;`: the last statement of its block, returning on every path.
#[derive(Clone, Debug)]
pub struct Return {
    /// Where it is.
    pub state: ReturnState,
}

impl Return {
    /// A return statement after `return`; `value`: an expression is pushed beside it.
    pub fn new(value: bool) -> Return {
        Return { state: if value { ReturnState::Value } else { ReturnState::Semi } }
    }

    /// `;` once the value is written.
    pub fn choices(&self) -> Vec<Choice> {
        match self.state {
            ReturnState::Semi => vec![kw(";")],
            ReturnState::Value | ReturnState::Done => vec![],
        }
    }

    /// Takes `;`.
    pub fn step(&mut self) {
        self.state = ReturnState::Done;
    }

    /// Complete after `;`.
    pub fn can_end(&self) -> Option<Sum> {
        (self.state == ReturnState::Done).then_some(Sum::Stmt(true, true, None))
    }

    /// Takes the returned value.
    pub fn child_done(&mut self) {
        self.state = ReturnState::Semi;
    }
}

/// `break;`: the last statement of its block.
#[derive(Clone, Debug)]
pub struct Break {
    /// Whether the `;` is taken.
    pub done: bool,
}

impl Break {
    /// `;` until it is taken.
    pub fn choices(&self) -> Vec<Choice> {
        if self.done {
            vec![]
        } else {
            vec![kw(";")]
        }
    }

    /// Takes `;`.
    pub fn step(&mut self) {
        self.done = true;
    }

    /// Complete after `;`.
    pub fn can_end(&self) -> Option<Sum> {
        self.done.then_some(Sum::Stmt(false, true, None))
    }
}
