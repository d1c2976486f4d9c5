//! The parser nodes of the tree of parsers. Each node is a small context-free
//! template (a state machine over lexemes) whose slots are filled from its
//! environment: the scope, the wanted type, the API's types, fields and functions.
//!
//! A node offers [`Choice`]s (lexemes and what they mean), consumes the one taken
//! ([`Frame::step`], which may push child nodes), reports when it may end
//! ([`Frame::can_end`], with a [`Sum`]mary for its parent) and takes its finished
//! child's summary ([`Frame::child_done`]). Summaries carry types, never syntax
//! trees, so cloning a node for look-ahead stays cheap; the syntax tree is rebuilt
//! from the annotated lexeme log afterwards (see `ast`).
//!
//! This file holds the nodes' types and their bookkeeping (ending, taking a child's
//! summary); what a node offers is in `node/choices.rs`, what taking a lexeme does
//! in `node/step.rs`.

mod choices;
mod step;

use std::rc::Rc;

use crate::lexeme::Lex;
use crate::ops::{reduce_all, BinOp, TypeSet, BASES};
use crate::scope::{Env, Scope};
use crate::text::Text;
use crate::types::{FuncType, Type};

/// A note attached to a consumed lexeme for building the syntax tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ann {
    /// Nothing special.
    None,
    /// The name of a method (translated as `obj:Name(...)`).
    Method,
    /// The `{` of a constructor of the API table type with this index.
    Table(usize),
}

/// What taking a choice means to the node that offered it.
#[derive(Clone, Debug)]
pub enum Act {
    /// A keyword or punctuation that advances the node's state.
    Kw,
    /// A new name (local, parameter, loop variable, script name).
    NewName,
    /// A variable or global function of this type; `bool`: assignable.
    Var(Type, bool),
    /// A name in scope ([`Lex::Scoped`]): the tree resolves it to [`Act::Var`] by the
    /// name's kind before the node steps.
    Scoped,
    /// A field of the current table type, by index.
    Field(usize),
    /// A method of the current table type, by index.
    Method(usize),
    /// A type name.
    TypeName(Type),
    /// A hook of the script kind, by index.
    Hook(usize),
    /// A literal of this type.
    Literal(Type),
    /// A binary operator.
    Op(BinOp),
    /// A unary operator (`not` or `-`).
    Unary(bool),
    /// A field of a table constructor, by index.
    CtorField(usize),
}

/// One lexeme a node accepts next.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The lexeme.
    pub lex: Lex,
    /// Its meaning.
    pub act: Act,
    /// Its note for the syntax tree.
    pub ann: Ann,
}

fn kw(s: impl Into<Text>) -> Choice {
    Choice { lex: Lex::Lit(s.into()), act: Act::Kw, ann: Ann::None }
}

/// What the choices of a statement or prefix node depend on ([`Frame::choice_key`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ChoiceKey {
    /// `Frame::Stmt`: the current type, lvalue, called, state.
    Stmt(Type, bool, bool, u8),
    /// `Frame::Prefix`: the current type, the target types, state.
    Prefix(Type, TypeSet, u8),
}

/// A finished node's summary for its parent.
#[derive(Clone, Debug)]
pub enum Sum {
    /// An expression or type specification of this type.
    Ty(Type),
    /// A block; whether every path through it returns.
    Block(bool),
    /// A statement: whether it returns on every path, whether it must be the last
    /// of its block (return, break), and a variable it defines.
    Stmt(bool, bool, Option<(String, Type)>),
}

/// What statements inside a function see.
#[derive(Clone, Debug)]
pub struct Ctx {
    /// The scope.
    pub scope: Scope,
    /// The enclosing function's return type.
    pub ret: Type,
    /// Whether `break` is allowed.
    pub in_loop: bool,
}

/// A parser node: one variant per template.
#[derive(Clone, Debug)]
pub enum Frame {
    /// A whole script: `effect Name;` or `talent Name;`, top-level locals, hooks.
    Root { kind: String, state: u8, hook: usize, done: Vec<bool>, scope: Scope },
    /// A block of statements.
    Block { ctx: Ctx, needs_return: bool, returns: bool, terminal: bool },
    /// `local name: T = e;`
    Local { ctx: Ctx, state: u8, name: String, ty: Type },
    /// A type specification.
    TypeSpec { state: u8, params: Vec<Type>, top: bool },
    /// `if c then b (elseif c then b)* (else b)? end;`
    If { ctx: Ctx, state: u8, all_return: bool, has_else: bool },
    /// `while c do b end;`
    While { ctx: Ctx, state: u8 },
    /// `for i = a, b (, s)? do b end;`
    For { ctx: Ctx, state: u8, name: String, bounds: u8 },
    /// `do b end;`
    Do { ctx: Ctx, state: u8, returns: bool },
    /// `return e;` / `return;`
    Return { state: u8 },
    /// `break;`
    Break { state: u8 },
    /// An assignment or call statement starting with a name.
    Stmt { ctx: Ctx, cur: Type, lvalue: bool, called: bool, state: u8, call_ret: Type },
    /// An expression (operators by precedence) wanting one of `want`.
    Expr {
        ctx: Ctx,
        want: TypeSet,
        stack: Vec<(Type, BinOp)>,
        unary: Vec<bool>,
        have: Option<Type>,
    },
    /// A name followed by field reads and calls, ending in one of `targets`.
    Prefix { ctx: Ctx, cur: Type, targets: TypeSet, state: u8, call_ret: Type },
    /// A parenthesised expression.
    Paren { state: u8, ty: Type },
    /// An argument list after `(`.
    Args { ctx: Ctx, params: Vec<Type>, i: usize, state: u8 },
    /// A function expression of a known type.
    Func { ctx: Ctx, ft: Rc<FuncType>, names: Vec<String>, state: u8, hint: Vec<String> },
    /// A table constructor of an API table type.
    Table { ctx: Ctx, table: usize, next: usize, state: u8 },
}

impl Frame {
    /// The root node of a script of `kind` (`effect` or `talent`).
    pub fn root(kind: &str) -> Frame {
        Frame::Root {
            kind: kind.to_string(),
            state: 0,
            hook: 0,
            done: Vec::new(),
            scope: Scope::default(),
        }
    }

    /// An expression node wanting type `t`.
    pub fn expr(ctx: &Ctx, t: &Type) -> Frame {
        Frame::Expr {
            ctx: ctx.clone(),
            want: TypeSet::one(t),
            stack: Vec::new(),
            unary: Vec::new(),
            have: None,
        }
    }

    fn block(ctx: Ctx, needs_return: bool) -> Frame {
        Frame::Block { ctx, needs_return, returns: false, terminal: false }
    }

    fn func(ctx: &Ctx, ft: &Rc<FuncType>, hint: Vec<String>) -> Frame {
        Frame::Func { ctx: ctx.clone(), ft: ft.clone(), names: Vec::new(), state: 0, hint }
    }

    /// The node's kind, for the visualizer.
    pub fn kind(&self) -> &'static str {
        match self {
            Frame::Root { .. } => "root",
            Frame::Block { .. } => "block",
            Frame::Local { .. } => "local",
            Frame::TypeSpec { .. } => "type",
            Frame::If { .. } => "if",
            Frame::While { .. } => "while",
            Frame::For { .. } => "for",
            Frame::Do { .. } => "do",
            Frame::Return { .. } => "return",
            Frame::Break { .. } => "break",
            Frame::Stmt { .. } => "statement",
            Frame::Expr { .. } => "expression",
            Frame::Prefix { .. } => "prefix",
            Frame::Paren { .. } => "paren",
            Frame::Args { .. } => "arguments",
            Frame::Func { .. } => "function",
            Frame::Table { .. } => "table",
        }
    }

    /// A short description of the node's state, for the visualizer.
    pub fn describe(&self, env: &Env) -> String {
        let n = &env.api.table_names;
        match self {
            Frame::Root { kind, state, .. } => format!("{kind} script, state {state}"),
            Frame::Block { ctx, returns, .. } => {
                format!(
                    "returns {}, {} names in scope{}",
                    ctx.ret.display(n),
                    ctx.scope.len(),
                    if *returns { ", has returned" } else { "" }
                )
            }
            Frame::Local { name, ty, state, .. } => {
                format!("{name}: {} (state {state})", ty.display(n))
            }
            Frame::Expr { want, stack, have, .. } => {
                let w: Vec<String> = BASES
                    .iter()
                    .filter(|b| want.contains(b))
                    .chain(want.other.iter())
                    .map(|t| t.display(n).to_string())
                    .collect();
                let ops: Vec<&str> = stack.iter().map(|(_, o)| o.text()).collect();
                format!(
                    "want {} | pending [{}] | operand {}",
                    w.join(" or "),
                    ops.join(" "),
                    have.as_ref().map_or("?".into(), |t| t.display(n).to_string())
                )
            }
            Frame::Prefix { cur, .. } | Frame::Stmt { cur, .. } => {
                format!("value of type {}", cur.display(n))
            }
            Frame::Args { params, i, .. } => format!("argument {} of {}", i + 1, params.len()),
            Frame::Func { ft, .. } => format!("{}", Type::Func(ft.clone()).display(n)),
            Frame::Table { table, next, .. } => format!("{} field {}", n[*table], next + 1),
            other => format!("state {}", other.state()),
        }
    }

    fn state(&self) -> u8 {
        match self {
            Frame::Root { state, .. }
            | Frame::Local { state, .. }
            | Frame::TypeSpec { state, .. }
            | Frame::If { state, .. }
            | Frame::While { state, .. }
            | Frame::For { state, .. }
            | Frame::Do { state, .. }
            | Frame::Return { state }
            | Frame::Break { state }
            | Frame::Stmt { state, .. }
            | Frame::Prefix { state, .. }
            | Frame::Paren { state, .. }
            | Frame::Args { state, .. }
            | Frame::Func { state, .. }
            | Frame::Table { state, .. } => *state,
            _ => 0,
        }
    }

    /// Whether the node may end here, and what it tells its parent.
    pub fn can_end(&self) -> Option<Sum> {
        match self {
            Frame::Root { .. } => None,
            Frame::Block { needs_return, returns, .. } => {
                (!*needs_return || *returns).then_some(Sum::Block(*returns))
            }
            Frame::Local { state: 4, name, ty, .. } => {
                Some(Sum::Stmt(false, false, Some((name.clone(), ty.clone()))))
            }
            Frame::TypeSpec { state: 9, params, .. } => params.last().cloned().map(Sum::Ty),
            Frame::If { state: 6, all_return, has_else, .. } => {
                Some(Sum::Stmt(*all_return && *has_else, false, None))
            }
            Frame::While { state: 6, .. } | Frame::For { state: 8, .. } => {
                Some(Sum::Stmt(false, false, None))
            }
            Frame::Do { state: 3, returns, .. } => Some(Sum::Stmt(*returns, false, None)),
            Frame::Return { state: 2 } => Some(Sum::Stmt(true, true, None)),
            Frame::Break { state: 1 } => Some(Sum::Stmt(false, true, None)),
            Frame::Stmt { state: 9, .. } => Some(Sum::Stmt(false, false, None)),
            Frame::Expr { want, stack, have: Some(t), .. } => {
                reduce_all(stack, t).filter(|r| want.contains(r)).map(Sum::Ty)
            }
            Frame::Prefix { state: 0, cur, targets, .. } => {
                targets.contains(cur).then(|| Sum::Ty(cur.clone()))
            }
            Frame::Paren { state: 2, ty } => Some(Sum::Ty(ty.clone())),
            Frame::Args { state: 3, .. } => Some(Sum::Ty(Type::Void)),
            Frame::Func { state: 5, ft, .. } => Some(Sum::Ty(Type::Func(ft.clone()))),
            Frame::Table { state: 9, table, .. } => Some(Sum::Ty(Type::Table(*table))),
            _ => None,
        }
    }

    /// Takes the summary of the child that just ended.
    pub fn child_done(&mut self, sum: &Sum, env: &Env) {
        match (self, sum) {
            (Frame::Root { state, scope, .. }, s) => match (*state, s) {
                (3, Sum::Stmt(_, _, Some((n, t)))) => *scope = env.push(scope, n, t, true),
                (5, _) => *state = 6,
                _ => {}
            },
            (Frame::Block { ctx, returns, terminal, .. }, Sum::Stmt(r, term, var)) => {
                *returns |= *r;
                *terminal |= *term;
                if let Some((n, t)) = var {
                    ctx.scope = env.push(&ctx.scope, n, t, true);
                }
            }
            (Frame::Local { state, ty, .. }, Sum::Ty(t)) => {
                if *state == 1 {
                    *ty = t.clone();
                    *state = 2;
                } else {
                    *state = 3;
                }
            }
            (Frame::If { state, all_return, .. }, s) => match (*state, s) {
                (0, _) => *state = 1,
                (2, Sum::Block(r)) => {
                    *all_return &= *r;
                    *state = 3;
                }
                (4, Sum::Block(r)) => {
                    *all_return &= *r;
                    *state = 7;
                }
                _ => {}
            },
            (Frame::While { state, .. }, _) => *state += 1,
            (Frame::For { state, bounds, .. }, _) => match *state {
                2 => {
                    *bounds += 1;
                    *state = if *bounds == 1 { 3 } else { 4 };
                }
                7 => *state = 10,
                5 => *state = 6,
                _ => {}
            },
            (Frame::Do { state, returns, .. }, Sum::Block(r)) => {
                *returns = *r;
                *state = 1;
            }
            (Frame::Return { state }, _) => *state = 1,
            (Frame::Stmt { state, cur, called, lvalue, call_ret, .. }, _) => {
                if *state == 3 {
                    *cur = call_ret.clone();
                    *called = true;
                    *lvalue = false;
                    *state = 0;
                } else {
                    *state = 8;
                }
            }
            (Frame::Expr { unary, have, .. }, Sum::Ty(t)) => {
                unary.clear();
                *have = Some(t.clone());
            }
            (Frame::Prefix { state, cur, call_ret, .. }, _) => {
                *cur = call_ret.clone();
                *state = 0;
            }
            (Frame::Paren { state, ty }, Sum::Ty(t)) => {
                *ty = t.clone();
                *state = 1;
            }
            (Frame::Args { state, .. }, _) => *state = 1,
            (Frame::Func { state, .. }, _) => *state = 4,
            (Frame::Table { state, .. }, _) => *state = 3,
            _ => {}
        }
    }

    /// A key fixing this node's choices when they depend on nothing but the key and
    /// the API (not on the scope): statements and prefixes after a variable, the
    /// nodes a variable choice pushes. [`crate::tree::Tree`] memoises the bytes that
    /// may start the segment after such a node by this key in the [`Env`].
    pub fn choice_key(&self) -> Option<ChoiceKey> {
        match self {
            Frame::Stmt { cur, lvalue, called, state, .. } => {
                Some(ChoiceKey::Stmt(cur.clone(), *lvalue, *called, *state))
            }
            Frame::Prefix { cur, targets, state, .. } => {
                Some(ChoiceKey::Prefix(cur.clone(), targets.clone(), *state))
            }
            _ => None,
        }
    }

    /// The hint of parameter names (hooks) for the function node, if any.
    pub fn param_hint(&self) -> Option<&[String]> {
        match self {
            Frame::Func { hint, .. } if !hint.is_empty() => Some(hint),
            _ => None,
        }
    }
}
