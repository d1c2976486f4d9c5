//! The prefix node: a variable read inside an expression, followed by field reads,
//! method and function calls, ending in one of the wanted types; and [`members`],
//! the fields and methods of a table type that a prefix or statement may go on with.

use crate::api::{Api, Field, Function};
use crate::lexeme::Lex;
use crate::ops::TypeSet;
use crate::scope::Env;
use crate::types::Type;

use super::arguments::call;
use super::protocol::{kw, Act, Ann, Child, Choice, Ctx, Sum};

/// Where a prefix is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PrefixState {
    /// After a value: before `.`, `(`, or the end.
    Value,
    /// After `.`: before a field or method name.
    Member,
    /// After a method's name: before `(`.
    MethodCall,
    /// A call's arguments are running.
    Call,
}

/// A name followed by field reads and calls, ending in one of `targets`.
#[derive(Clone, Debug)]
pub struct Prefix {
    /// What the arguments see.
    pub ctx: Ctx,
    /// The type of the value so far.
    pub cur: Type,
    /// The types the prefix may end in.
    pub targets: TypeSet,
    /// Where the prefix is.
    pub state: PrefixState,
    /// The return type of the call running.
    pub call_ret: Type,
}

impl Prefix {
    /// A prefix after a variable of type `cur`.
    pub fn new(ctx: Ctx, cur: Type, targets: TypeSet) -> Prefix {
        Prefix { ctx, cur, targets, state: PrefixState::Value, call_ret: Type::Void }
    }

    /// The lexemes accepted next: only those from which a target can still be reached.
    pub fn choices(&self, env: &Env) -> Vec<Choice> {
        let api = &env.api;
        let wanted = |t: &Type| api.reaches(t, &|x| self.targets.contains(x));
        match (self.state, &self.cur) {
            (PrefixState::Value, Type::Table(i)) => {
                let t = &api.tables[*i];
                let any = t.fields.iter().any(|f| wanted(&f.ty))
                    || t.methods.iter().any(|m| wanted(&ret(&m.ty)));
                if any {
                    vec![kw(".")]
                } else {
                    vec![]
                }
            }
            (PrefixState::Value, Type::Func(ft)) if wanted(&ft.ret) => vec![kw("(")],
            (PrefixState::Member, Type::Table(i)) => {
                members(api, *i, |f| wanted(&f.ty), |m| wanted(&ret(&m.ty)))
            }
            (PrefixState::MethodCall, _) => vec![kw("(")],
            _ => vec![],
        }
    }

    /// Takes the choice: moves on, returns the children to push (a call's arguments).
    pub fn step(&mut self, act: &Act, text: &str, env: &Env) -> Vec<Child> {
        let api = &env.api;
        match (self.state, act, &self.cur) {
            (PrefixState::Value, _, _) if text == "." => self.state = PrefixState::Member,
            (PrefixState::Value | PrefixState::MethodCall, _, _) => {
                let (ret, children) = call(&self.ctx, &self.cur);
                self.call_ret = ret;
                self.state = PrefixState::Call;
                return children;
            }
            (PrefixState::Member, Act::Field(j), Type::Table(i)) => {
                self.cur = api.tables[*i].fields[*j].ty.clone();
                self.state = PrefixState::Value;
            }
            (PrefixState::Member, Act::Method(j), Type::Table(i)) => {
                self.cur = api.tables[*i].methods[*j].ty.clone();
                self.state = PrefixState::MethodCall;
            }
            _ => {}
        }
        vec![]
    }

    /// May end after a value of a target type.
    pub fn can_end(&self) -> Option<Sum> {
        (self.state == PrefixState::Value && self.targets.contains(&self.cur))
            .then(|| Sum::Ty(self.cur.clone()))
    }

    /// Takes a call's arguments: the value is the call's result.
    pub fn child_done(&mut self) {
        self.cur = self.call_ret.clone();
        self.state = PrefixState::Value;
    }
}

/// The fields of API table `table` that `field_ok` accepts, then its methods that
/// `method_ok` accepts.
pub fn members(
    api: &Api,
    table: usize,
    field_ok: impl Fn(&Field) -> bool,
    method_ok: impl Fn(&Function) -> bool,
) -> Vec<Choice> {
    let t = &api.tables[table];
    let fields = t.fields.iter().enumerate().filter(|(_, f)| field_ok(f));
    let methods = t.methods.iter().enumerate().filter(|(_, m)| method_ok(m));
    fields
        .map(|(j, f)| Choice::lit(&f.name, Act::Field(j)))
        .chain(methods.map(|(j, m)| Choice {
            lex: Lex::Lit((&m.name).into()),
            act: Act::Method(j),
            ann: Ann::Method,
        }))
        .collect()
}

fn ret(t: &Type) -> Type {
    t.as_func().map_or(Type::Void, |f| f.ret.clone())
}
