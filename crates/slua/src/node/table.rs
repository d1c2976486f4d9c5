//! The table node: a constructor of an API table type, `{ f = e, g = e }`, its fields
//! in the table's order, those with a default optional.

use crate::api::Field;
use crate::scope::Env;
use crate::types::Type;

use super::protocol::{kw, Act, Child, Choice, Ctx, Sum};

/// Where a table constructor is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableState {
    /// After `{`: before a field's name or `}`.
    First,
    /// After a field's name: before `=`.
    Eq,
    /// A field's value is running.
    Value,
    /// After a field's value: before `,` or `}`.
    Next,
    /// After `,`: before a field's name.
    Field,
    /// Complete.
    Done,
}

/// A table constructor of an API table type.
#[derive(Clone, Debug)]
pub struct Table {
    /// What the values see.
    pub ctx: Ctx,
    /// The API table type, by index.
    pub table: usize,
    /// The next field that may come, by index.
    pub next: usize,
    /// Where it is.
    pub state: TableState,
}

impl Table {
    /// A constructor of API table `table` after `{`.
    pub fn new(ctx: Ctx, table: usize) -> Table {
        Table { ctx, table, next: 0, state: TableState::First }
    }

    /// The lexemes accepted next.
    pub fn choices(&self, env: &Env) -> Vec<Choice> {
        let fields = &env.api.tables[self.table].fields;
        match self.state {
            TableState::First => {
                let mut out = field_choices(fields, self.next);
                if rest_optional(fields, self.next) {
                    out.push(kw("}"));
                }
                out
            }
            TableState::Eq => vec![kw("=")],
            TableState::Next => {
                let mut out = Vec::new();
                if self.next < fields.len() {
                    out.push(kw(","));
                }
                if rest_optional(fields, self.next) {
                    out.push(kw("}"));
                }
                out
            }
            TableState::Field => field_choices(fields, self.next),
            TableState::Value | TableState::Done => vec![],
        }
    }

    /// Takes the choice: moves on, returns a field's value to push after `=`.
    pub fn step(&mut self, act: &Act, text: &str, env: &Env) -> Vec<Child> {
        match (self.state, act) {
            (TableState::First | TableState::Field, Act::CtorField(j)) => {
                self.next = *j;
                self.state = TableState::Eq;
            }
            (TableState::Eq, _) => {
                self.state = TableState::Value;
                let t = env.api.tables[self.table].fields[self.next].ty.clone();
                self.next += 1;
                return vec![Child::expr(&self.ctx, &t)];
            }
            (TableState::Next, _) if text == "," => self.state = TableState::Field,
            _ => self.state = TableState::Done,
        }
        vec![]
    }

    /// Complete after `}`: a value of the table type.
    pub fn can_end(&self) -> Option<Sum> {
        (self.state == TableState::Done).then_some(Sum::Ty(Type::Table(self.table)))
    }

    /// Takes a field's value.
    pub fn child_done(&mut self) {
        self.state = TableState::Next;
    }
}

/// Whether the fields from `from` on all have defaults.
fn rest_optional(fields: &[Field], from: usize) -> bool {
    fields[from.min(fields.len())..].iter().all(|f| f.default.is_some())
}

/// The fields that may come next from `from`: up to the first without a default.
fn field_choices(fields: &[Field], from: usize) -> Vec<Choice> {
    let mut out = Vec::new();
    for (j, f) in fields.iter().enumerate().skip(from) {
        out.push(Choice::lit(&f.name, Act::CtorField(j)));
        if f.default.is_none() {
            break;
        }
    }
    out
}
