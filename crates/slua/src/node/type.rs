//! The type node: a type specification, a base or API table type, or a function type
//! `(T, ...) -> R` whose parameters are not functions.

use crate::scope::Env;
use crate::types::Type;

use super::protocol::{kw, Act, Choice, Sum};

/// Where a type specification is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeState {
    /// Before a type name or `(`.
    Start,
    /// After `(`: before the first parameter type or `)`.
    FirstParam,
    /// After a parameter type: before `,` or `)`.
    AfterParam,
    /// After `,`: before a parameter type.
    NextParam,
    /// After `)`: before `->`.
    Arrow,
    /// After `->`: before the return type.
    Return,
    /// Complete.
    Done,
}

/// A type specification.
#[derive(Clone, Debug)]
pub struct TypeSpec {
    /// Where it is.
    pub state: TypeState,
    /// The parameter types read; once complete, the type alone.
    pub params: Vec<Type>,
    /// Whether a function type may come (not inside one).
    pub top: bool,
}

impl TypeSpec {
    /// A type specification where a function type may come.
    pub fn start() -> TypeSpec {
        TypeSpec { state: TypeState::Start, params: Vec::new(), top: true }
    }

    /// The lexemes accepted next.
    pub fn choices(&self, env: &Env) -> Vec<Choice> {
        match self.state {
            TypeState::Start => {
                let mut out = names(env, false);
                if self.top {
                    out.push(kw("("));
                }
                out
            }
            TypeState::FirstParam => {
                let mut out = names(env, false);
                if self.params.is_empty() {
                    out.push(kw(")"));
                }
                out
            }
            TypeState::AfterParam => vec![kw(","), kw(")")],
            TypeState::NextParam => names(env, false),
            TypeState::Arrow => vec![kw("->")],
            TypeState::Return => names(env, true),
            TypeState::Done => vec![],
        }
    }

    /// Takes the choice: moves on (a type specification has no children).
    pub fn step(&mut self, act: &Act, text: &str) {
        self.state = match (self.state, act) {
            (TypeState::Start, Act::TypeName(t)) => {
                self.params.push(t.clone());
                TypeState::Done
            }
            (TypeState::Return, Act::TypeName(t)) => {
                let ps = std::mem::take(&mut self.params);
                self.params.push(Type::func(ps, t.clone()));
                TypeState::Done
            }
            (TypeState::Start, _) => TypeState::FirstParam,
            (TypeState::FirstParam | TypeState::NextParam, Act::TypeName(t)) => {
                self.params.push(t.clone());
                TypeState::AfterParam
            }
            (TypeState::FirstParam, _) => TypeState::Arrow,
            (TypeState::AfterParam, _) if text == "," => TypeState::NextParam,
            (TypeState::AfterParam, _) => TypeState::Arrow,
            (TypeState::Arrow, _) => TypeState::Return,
            (s, _) => s,
        };
    }

    /// Complete: the type.
    pub fn can_end(&self) -> Option<Sum> {
        if self.state != TypeState::Done {
            return None;
        }
        self.params.last().cloned().map(Sum::Ty)
    }
}

/// The type names: base types (`void` where a return type may be one) and API tables.
fn names(env: &Env, void: bool) -> Vec<Choice> {
    [("number", Type::Number), ("string", Type::String), ("boolean", Type::Boolean)]
        .into_iter()
        .chain(void.then_some(("void", Type::Void)))
        .map(|(n, t)| Choice::lit(n, Act::TypeName(t)))
        .chain(
            env.api
                .table_names
                .iter()
                .enumerate()
                .map(|(i, n)| Choice::lit(n, Act::TypeName(Type::Table(i)))),
        )
        .collect()
}
