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

use std::rc::Rc;

use crate::lexeme::{ByteSet, Lex, Text};
use crate::ops::{can_finish, push_op, reduce_all, BinOp, TypeSet, BASES, BIN_OPS};
use crate::scope::{Env, Kind, Scope};
use crate::scoped_names::{AcceptedKind, ScopedNames};
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
    Expr { ctx: Ctx, want: TypeSet, stack: Vec<(Type, BinOp)>, unary: Vec<bool>, have: Option<Type> },
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
        Frame::Root { kind: kind.to_string(), state: 0, hook: 0, done: Vec::new(), scope: Scope::default() }
    }

    /// An expression node wanting type `t`.
    pub fn expr(ctx: &Ctx, t: &Type) -> Frame {
        Frame::Expr { ctx: ctx.clone(), want: TypeSet::one(t), stack: Vec::new(), unary: Vec::new(), have: None }
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
                format!("returns {}, {} names in scope{}", ctx.ret.display(n), ctx.scope.len(), if *returns { ", has returned" } else { "" })
            }
            Frame::Local { name, ty, state, .. } => format!("{name}: {} (state {state})", ty.display(n)),
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
            Frame::Prefix { cur, .. } | Frame::Stmt { cur, .. } => format!("value of type {}", cur.display(n)),
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
            Frame::Block { needs_return, returns, .. } => (!*needs_return || *returns).then_some(Sum::Block(*returns)),
            Frame::Local { state: 4, name, ty, .. } => Some(Sum::Stmt(false, false, Some((name.clone(), ty.clone())))),
            Frame::TypeSpec { state: 9, params, .. } => params.last().cloned().map(Sum::Ty),
            Frame::If { state: 6, all_return, has_else, .. } => Some(Sum::Stmt(*all_return && *has_else, false, None)),
            Frame::While { state: 6, .. } | Frame::For { state: 8, .. } => Some(Sum::Stmt(false, false, None)),
            Frame::Do { state: 3, returns, .. } => Some(Sum::Stmt(*returns, false, None)),
            Frame::Return { state: 2 } => Some(Sum::Stmt(true, true, None)),
            Frame::Break { state: 1 } => Some(Sum::Stmt(false, true, None)),
            Frame::Stmt { state: 9, .. } => Some(Sum::Stmt(false, false, None)),
            Frame::Expr { want, stack, have: Some(t), .. } => {
                reduce_all(stack, t).filter(|r| want.contains(r)).map(Sum::Ty)
            }
            Frame::Prefix { state: 0, cur, targets, .. } => targets.contains(cur).then(|| Sum::Ty(cur.clone())),
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

    /// The lexemes this node accepts next.
    pub fn choices(&self, env: &Env) -> Vec<Choice> {
        let api = &env.api;
        match self {
            Frame::Root { kind, state, done, .. } => match state {
                0 if kind.is_empty() => {
                    let mut kinds: Vec<&String> = api.hooks.keys().collect();
                    kinds.sort();
                    kinds.into_iter().map(|k| kw(k)).collect()
                }
                0 => vec![kw(kind)],
                1 => vec![Choice {
                    lex: Lex::Name { upper: true, exclude: env.taken_upper.clone() },
                    act: Act::NewName,
                    ann: Ann::None,
                }],
                2 | 6 => vec![kw(";")],
                3 => vec![kw("local"), kw("hook")],
                4 => {
                    let hooks = &api.hooks[kind];
                    let last = hooks.len() - 1;
                    let required_done =
                        hooks[..last].iter().enumerate().all(|(i, h)| !h.required || done.get(i).copied().unwrap_or(false));
                    hooks
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| !done.get(*i).copied().unwrap_or(false) && (*i < last || required_done))
                        .map(|(i, h)| Choice { lex: Lex::Lit((&h.name).into()), act: Act::Hook(i), ann: Ann::None })
                        .collect()
                }
                5 => vec![kw("=")],
                8 => vec![kw("function")],
                _ => vec![],
            },
            Frame::Block { ctx, terminal, .. } => {
                if *terminal {
                    return vec![];
                }
                let mut out: Vec<Choice> =
                    ["local", "if", "while", "for", "do", "return"].into_iter().map(kw).collect();
                if ctx.in_loop {
                    out.push(kw("break"));
                }
                out.extend(scoped(env, &ctx.scope, true, |k| k.assignable || api.stmt_reaches(&k.ty)));
                for (name, ty) in env.globals() {
                    if ctx.scope.lookup(name.as_bytes()).is_none() {
                        out.push(Choice { lex: Lex::Lit(name.clone()), act: Act::Var(ty.clone(), false), ann: Ann::None });
                    }
                }
                out
            }
            Frame::Local { state, .. } => match state {
                0 => vec![Choice { lex: Lex::Name { upper: false, exclude: env.reserved.clone() }, act: Act::NewName, ann: Ann::None }],
                1 => vec![kw(":")],
                2 => vec![kw("=")],
                3 => vec![kw(";")],
                _ => vec![],
            },
            Frame::TypeSpec { state, params, top } => {
                let names = |void: bool| {
                    let mut out: Vec<Choice> = [("number", Type::Number), ("string", Type::String), ("boolean", Type::Boolean)]
                        .into_iter()
                        .chain(void.then_some(("void", Type::Void)))
                        .map(|(n, t)| Choice { lex: Lex::Lit(n.into()), act: Act::TypeName(t), ann: Ann::None })
                        .collect();
                    out.extend(api.table_names.iter().enumerate().map(|(i, n)| Choice {
                        lex: Lex::Lit(n.into()),
                        act: Act::TypeName(Type::Table(i)),
                        ann: Ann::None,
                    }));
                    out
                };
                match state {
                    0 => {
                        let mut out = names(false);
                        if *top {
                            out.push(kw("("));
                        }
                        out
                    }
                    1 => {
                        let mut out = names(false);
                        if params.is_empty() {
                            out.push(kw(")"));
                        }
                        out
                    }
                    2 => vec![kw(","), kw(")")],
                    3 => names(false),
                    4 => vec![kw("->")],
                    5 => names(true),
                    _ => vec![],
                }
            }
            Frame::If { state, has_else, .. } => match state {
                1 => vec![kw("then")],
                3 => {
                    let mut out = vec![kw("elseif"), kw("end")];
                    if !has_else {
                        out.push(kw("else"));
                    }
                    out
                }
                5 => vec![kw(";")],
                7 => vec![kw("end")],
                _ => vec![],
            },
            Frame::While { state, .. } => match state {
                1 => vec![kw("do")],
                3 => vec![kw("end")],
                5 => vec![kw(";")],
                _ => vec![],
            },
            Frame::For { state, bounds, .. } => match state {
                0 => vec![Choice { lex: Lex::Name { upper: false, exclude: env.reserved.clone() }, act: Act::NewName, ann: Ann::None }],
                1 => vec![kw("=")],
                3 => vec![kw(",")],
                4 => {
                    if *bounds == 2 {
                        vec![kw(","), kw("do")]
                    } else {
                        vec![kw("do")]
                    }
                }
                10 => vec![kw("do")],
                6 => vec![kw("end")],
                9 => vec![kw(";")],
                _ => vec![],
            },
            Frame::Do { state, .. } => match state {
                1 => vec![kw("end")],
                2 => vec![kw(";")],
                _ => vec![],
            },
            Frame::Return { state } => match state {
                1 => vec![kw(";")],
                _ => vec![],
            },
            Frame::Break { state } => match state {
                0 => vec![kw(";")],
                _ => vec![],
            },
            Frame::Stmt { cur, lvalue, called, state, .. } => match state {
                0 => {
                    let mut out = Vec::new();
                    if let Type::Table(i) = cur {
                        let t = &api.tables[*i];
                        if !t.methods.is_empty() || t.fields.iter().any(|f| f.mutable || api.stmt_reaches(&f.ty)) {
                            out.push(kw("."));
                        }
                    }
                    if matches!(cur, Type::Func(_)) {
                        out.push(kw("("));
                    }
                    if *lvalue {
                        out.push(kw("="));
                    }
                    if *called {
                        out.push(kw(";"));
                    }
                    out
                }
                1 => {
                    let Type::Table(i) = cur else { return vec![] };
                    let t = &api.tables[*i];
                    let mut out: Vec<Choice> = t
                        .fields
                        .iter()
                        .enumerate()
                        .filter(|(_, f)| f.mutable || api.stmt_reaches(&f.ty))
                        .map(|(j, f)| Choice { lex: Lex::Lit((&f.name).into()), act: Act::Field(j), ann: Ann::None })
                        .collect();
                    out.extend(t.methods.iter().enumerate().map(|(j, m)| Choice {
                        lex: Lex::Lit((&m.name).into()),
                        act: Act::Method(j),
                        ann: Ann::Method,
                    }));
                    out
                }
                2 => vec![kw("(")],
                8 => vec![kw(";")],
                _ => vec![],
            },
            Frame::Expr { ctx, want, stack, unary, have } => match have {
                Some(t) => {
                    let mut out = Vec::new();
                    if t.is_base() {
                        for op in BIN_OPS {
                            if let Some(st2) = push_op(stack, t, op) {
                                if BASES.iter().any(|b| can_finish(want, &st2, b)) {
                                    out.push(Choice { lex: Lex::Lit(op.text().into()), act: Act::Op(op), ann: Ann::None });
                                }
                            }
                        }
                    }
                    out
                }
                None => operand_choices(env, ctx, &operand_targets(want, stack, unary), unary, want, stack),
            },
            Frame::Prefix { cur, targets, state, .. } => match state {
                0 => {
                    let mut out = Vec::new();
                    if let Type::Table(i) = cur {
                        let t = &api.tables[*i];
                        let any = t.fields.iter().any(|f| api.reaches(&f.ty, &|x| targets.contains(x)))
                            || t.methods.iter().any(|m| api.reaches(&ret(&m.ty), &|x| targets.contains(x)));
                        if any {
                            out.push(kw("."));
                        }
                    }
                    if let Type::Func(ft) = cur {
                        if api.reaches(&ft.ret, &|x| targets.contains(x)) {
                            out.push(kw("("));
                        }
                    }
                    out
                }
                1 => {
                    let Type::Table(i) = cur else { return vec![] };
                    let t = &api.tables[*i];
                    let mut out: Vec<Choice> = t
                        .fields
                        .iter()
                        .enumerate()
                        .filter(|(_, f)| api.reaches(&f.ty, &|x| targets.contains(x)))
                        .map(|(j, f)| Choice { lex: Lex::Lit((&f.name).into()), act: Act::Field(j), ann: Ann::None })
                        .collect();
                    out.extend(
                        t.methods
                            .iter()
                            .enumerate()
                            .filter(|(_, m)| api.reaches(&ret(&m.ty), &|x| targets.contains(x)))
                            .map(|(j, m)| Choice { lex: Lex::Lit((&m.name).into()), act: Act::Method(j), ann: Ann::Method }),
                    );
                    out
                }
                2 => vec![kw("(")],
                _ => vec![],
            },
            Frame::Paren { state: 1, .. } => vec![kw(")")],
            Frame::Paren { .. } => vec![],
            Frame::Args { params, i, state, .. } => match state {
                1 => {
                    if i + 1 < params.len() {
                        vec![kw(",")]
                    } else {
                        vec![kw(")")]
                    }
                }
                2 => vec![kw(")")],
                _ => vec![],
            },
            Frame::Func { ft, names, state, .. } => match state {
                0 => vec![kw("(")],
                1 => {
                    if ft.params.is_empty() {
                        vec![kw(")")]
                    } else {
                        vec![Choice { lex: Lex::Name { upper: false, exclude: env.reserved.clone() }, act: Act::NewName, ann: Ann::None }]
                    }
                }
                2 => {
                    if names.len() < ft.params.len() {
                        vec![kw(",")]
                    } else {
                        vec![kw(")")]
                    }
                }
                4 => vec![kw("end")],
                _ => vec![],
            },
            Frame::Table { table, next, state, .. } => {
                let fields = &api.tables[*table].fields;
                let rest_optional = |from: usize| fields[from.min(fields.len())..].iter().all(|f| f.default.is_some());
                let field_choices = |from: usize| {
                    let mut out = Vec::new();
                    for (j, f) in fields.iter().enumerate().skip(from) {
                        out.push(Choice { lex: Lex::Lit((&f.name).into()), act: Act::CtorField(j), ann: Ann::None });
                        if f.default.is_none() {
                            break;
                        }
                    }
                    out
                };
                match state {
                    0 => {
                        let mut out = field_choices(*next);
                        if rest_optional(*next) {
                            out.push(kw("}"));
                        }
                        out
                    }
                    1 => vec![kw("=")],
                    3 => {
                        let mut out = Vec::new();
                        if *next < fields.len() {
                            out.push(kw(","));
                        }
                        if rest_optional(*next) {
                            out.push(kw("}"));
                        }
                        out
                    }
                    4 => field_choices(*next),
                    _ => vec![],
                }
            }
        }
    }

    /// Consumes the choice taken (with the lexeme's text) and returns the children
    /// to push, innermost last.
    pub fn step(&mut self, act: &Act, text: &str, env: &Env) -> Vec<Frame> {
        let api = &env.api;
        match self {
            Frame::Root { kind, state, hook, done, scope } => match (*state, act) {
                (0, _) => {
                    *kind = text.to_string();
                    *state = 1;
                }
                (1, _) => *state = 2,
                (2, _) => *state = 3,
                (3, _) if text == "local" => {
                    let ctx = Ctx { scope: scope.clone(), ret: Type::Void, in_loop: false };
                    return vec![Frame::Local { ctx, state: 0, name: String::new(), ty: Type::Void }];
                }
                (3, _) => *state = 4,
                (4, Act::Hook(i)) => {
                    *hook = *i;
                    *state = 5;
                }
                (5, _) => *state = 8,
                (8, _) => {
                    *state = 5;
                    let h = &api.hooks[kind.as_str()][*hook];
                    if let Type::Func(ft) = &h.ty {
                        let ctx = Ctx { scope: scope.clone(), ret: Type::Void, in_loop: false };
                        return vec![Frame::func(&ctx, ft, h.param_names.clone())];
                    }
                }
                (6, _) => {
                    if done.len() <= *hook {
                        done.resize(*hook + 1, false);
                    }
                    done[*hook] = true;
                    let last = api.hooks[kind.as_str()].len() - 1;
                    *state = if *hook == last { 7 } else { 3 };
                }
                _ => {}
            },
            Frame::Block { ctx, .. } => {
                let c = ctx.clone();
                return match (act, text) {
                    (Act::Kw, "local") => vec![Frame::Local { ctx: c, state: 0, name: String::new(), ty: Type::Void }],
                    (Act::Kw, "if") => {
                        let e = Frame::expr(&c, &Type::Boolean);
                        vec![Frame::If { ctx: c, state: 0, all_return: true, has_else: false }, e]
                    }
                    (Act::Kw, "while") => {
                        let e = Frame::expr(&c, &Type::Boolean);
                        vec![Frame::While { ctx: c, state: 0 }, e]
                    }
                    (Act::Kw, "for") => vec![Frame::For { ctx: c, state: 0, name: String::new(), bounds: 0 }],
                    (Act::Kw, "do") => {
                        let b = Frame::block(c.clone(), false);
                        vec![Frame::Do { ctx: c, state: 0, returns: false }, b]
                    }
                    (Act::Kw, "return") => {
                        if c.ret == Type::Void {
                            vec![Frame::Return { state: 1 }]
                        } else {
                            let e = Frame::expr(&c, &c.ret);
                            vec![Frame::Return { state: 0 }, e]
                        }
                    }
                    (Act::Kw, "break") => vec![Frame::Break { state: 0 }],
                    (Act::Var(t, assignable), _) => vec![Frame::Stmt {
                        ctx: c,
                        cur: t.clone(),
                        lvalue: *assignable,
                        called: false,
                        state: 0,
                        call_ret: Type::Void,
                    }],
                    _ => vec![],
                };
            }
            Frame::Local { ctx, state, name, ty } => match *state {
                0 => {
                    *name = text.to_string();
                    *state = 1;
                }
                1 => return vec![Frame::TypeSpec { state: 0, params: Vec::new(), top: true }],
                2 => {
                    *state = 5;
                    return vec![Frame::expr(ctx, ty)];
                }
                3 => *state = 4,
                _ => {}
            },
            Frame::TypeSpec { state, params, .. } => match (*state, act) {
                (0, Act::TypeName(t)) | (5, Act::TypeName(t)) => {
                    if *state == 5 {
                        let ps = std::mem::take(params);
                        params.push(Type::func(ps, t.clone()));
                    } else {
                        params.push(t.clone());
                    }
                    *state = 9;
                }
                (0, _) => *state = 1,
                (1, Act::TypeName(t)) | (3, Act::TypeName(t)) => {
                    params.push(t.clone());
                    *state = 2;
                }
                (1, _) => *state = 4,
                (2, _) if text == "," => *state = 3,
                (2, _) => *state = 4,
                (4, _) => *state = 5,
                _ => {}
            },
            Frame::If { ctx, state, has_else, .. } => match (*state, text) {
                (1, _) => {
                    *state = 2;
                    return vec![Frame::block(ctx.clone(), false)];
                }
                (3, "elseif") => {
                    *state = 0;
                    return vec![Frame::expr(ctx, &Type::Boolean)];
                }
                (3, "else") => {
                    *has_else = true;
                    *state = 4;
                    return vec![Frame::block(ctx.clone(), false)];
                }
                (3, _) | (7, _) => *state = 5,
                (5, _) => *state = 6,
                _ => {}
            },
            Frame::While { ctx, state } => match *state {
                1 => {
                    *state = 2;
                    let c = Ctx { in_loop: true, ..ctx.clone() };
                    return vec![Frame::block(c, false)];
                }
                3 => *state = 5,
                5 => *state = 6,
                _ => {}
            },
            Frame::For { ctx, state, name, .. } => match (*state, text) {
                (0, _) => {
                    *name = text.to_string();
                    *state = 1;
                }
                (1, _) | (3, _) => {
                    *state = 2;
                    return vec![Frame::expr(ctx, &Type::Number)];
                }
                (4, ",") => {
                    *state = 7;
                    return vec![Frame::expr(ctx, &Type::Number)];
                }
                (4, _) | (10, _) => {
                    *state = 5;
                    let c = Ctx { in_loop: true, scope: env.push(&ctx.scope, name, &Type::Number, false), ret: ctx.ret.clone() };
                    return vec![Frame::block(c, false)];
                }
                (6, _) => *state = 9,
                (9, _) => *state = 8,
                _ => {}
            },
            Frame::Do { state, .. } => *state += 1,
            Frame::Return { state } => *state = 2,
            Frame::Break { state } => *state = 1,
            Frame::Stmt { ctx, cur, lvalue, called, state, call_ret } => match (*state, act) {
                (0, _) if text == "." => *state = 1,
                (0, _) if text == "(" => {
                    let ft = cur.as_func().cloned().unwrap_or(FuncType { params: vec![], ret: Type::Void });
                    *call_ret = ft.ret.clone();
                    *state = 3;
                    return args(ctx, &ft.params);
                }
                (0, _) if text == "=" => {
                    *state = 7;
                    return vec![Frame::expr(ctx, cur)];
                }
                (0, _) => *state = 9,
                (1, Act::Field(j)) => {
                    if let Type::Table(i) = cur {
                        let f = &api.tables[*i].fields[*j];
                        *lvalue = f.mutable;
                        *cur = f.ty.clone();
                        *called = false;
                        *state = 0;
                    }
                }
                (1, Act::Method(j)) => {
                    if let Type::Table(i) = cur {
                        *cur = api.tables[*i].methods[*j].ty.clone();
                        *state = 2;
                    }
                }
                (2, _) => {
                    let ft = cur.as_func().cloned().unwrap_or(FuncType { params: vec![], ret: Type::Void });
                    *call_ret = ft.ret.clone();
                    *state = 3;
                    return args(ctx, &ft.params);
                }
                (8, _) => *state = 9,
                _ => {}
            },
            Frame::Expr { ctx, want, stack, unary, have } => {
                let targets = operand_targets(want, stack, unary);
                match act {
                    Act::Op(op) => {
                        if let Some(t) = have.take() {
                            *stack = push_op(stack, &t, *op).unwrap_or_default();
                        }
                    }
                    Act::Unary(is_not) => unary.push(*is_not),
                    Act::Literal(t) => {
                        unary.clear();
                        *have = Some(t.clone());
                    }
                    Act::Var(t, _) => {
                        return vec![Frame::Prefix { ctx: ctx.clone(), cur: t.clone(), targets, state: 0, call_ret: Type::Void }]
                    }
                    Act::Kw if text == "(" => {
                        let inner = TypeSet { bases: targets.bases, other: None };
                        return vec![
                            Frame::Paren { state: 0, ty: Type::Void },
                            Frame::Expr { ctx: ctx.clone(), want: inner, stack: vec![], unary: vec![], have: None },
                        ];
                    }
                    Act::Kw if text == "function" => {
                        if let Some(Type::Func(ft)) = &targets.other {
                            return vec![Frame::func(ctx, ft, vec![])];
                        }
                    }
                    Act::Kw if text == "{" => {
                        if let Some(Type::Table(i)) = &targets.other {
                            return vec![Frame::Table { ctx: ctx.clone(), table: *i, next: 0, state: 0 }];
                        }
                    }
                    _ => {}
                }
            }
            Frame::Prefix { ctx, cur, state, call_ret, .. } => match (*state, act) {
                (0, _) if text == "." => *state = 1,
                (0, _) => {
                    let ft = cur.as_func().cloned().unwrap_or(FuncType { params: vec![], ret: Type::Void });
                    *call_ret = ft.ret.clone();
                    *state = 3;
                    return args(ctx, &ft.params);
                }
                (1, Act::Field(j)) => {
                    if let Type::Table(i) = cur {
                        *cur = api.tables[*i].fields[*j].ty.clone();
                        *state = 0;
                    }
                }
                (1, Act::Method(j)) => {
                    if let Type::Table(i) = cur {
                        *cur = api.tables[*i].methods[*j].ty.clone();
                        *state = 2;
                    }
                }
                (2, _) => {
                    let ft = cur.as_func().cloned().unwrap_or(FuncType { params: vec![], ret: Type::Void });
                    *call_ret = ft.ret.clone();
                    *state = 3;
                    return args(ctx, &ft.params);
                }
                _ => {}
            },
            Frame::Paren { state, .. } => *state = 2,
            Frame::Args { ctx, params, i, state } => match *state {
                1 if text == "," => {
                    *i += 1;
                    *state = 0;
                    return vec![Frame::expr(ctx, &params[*i])];
                }
                _ => *state = 3,
            },
            Frame::Func { ctx, ft, names, state, .. } => match *state {
                0 => *state = 1,
                1 if matches!(act, Act::NewName) => {
                    names.push(text.to_string());
                    *state = 2;
                }
                2 if text == "," => *state = 1,
                1 | 2 => {
                    *state = 3;
                    let mut scope = ctx.scope.clone();
                    for (n, t) in names.iter().zip(&ft.params) {
                        scope = env.push(&scope, n, t, true);
                    }
                    let c = Ctx { scope, ret: ft.ret.clone(), in_loop: false };
                    return vec![Frame::block(c, ft.ret != Type::Void)];
                }
                4 => *state = 5,
                _ => {}
            },
            Frame::Table { ctx, table, next, state } => match (*state, act) {
                (0, Act::CtorField(j)) | (4, Act::CtorField(j)) => {
                    *next = *j;
                    *state = 1;
                }
                (1, _) => {
                    *state = 2;
                    let t = api.tables[*table].fields[*next].ty.clone();
                    *next += 1;
                    return vec![Frame::expr(ctx, &t)];
                }
                (3, _) if text == "," => *state = 4,
                _ => *state = 9,
            },
        }
        vec![]
    }

    /// A key fixing this node's choices when they depend on nothing but the key and
    /// the API (not on the scope): statements and prefixes after a variable, the
    /// nodes a variable choice pushes. [`crate::tree::Tree`] memoises the bytes that
    /// may start the segment after such a node by this key in the [`Env`].
    pub fn choice_key(&self) -> Option<ChoiceKey> {
        match self {
            Frame::Stmt { cur, lvalue, called, state, .. } => Some(ChoiceKey::Stmt(cur.clone(), *lvalue, *called, *state)),
            Frame::Prefix { cur, targets, state, .. } => Some(ChoiceKey::Prefix(cur.clone(), targets.clone(), *state)),
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

fn ret(t: &Type) -> Type {
    t.as_func().map_or(Type::Void, |f| f.ret.clone())
}

fn args(ctx: &Ctx, params: &[Type]) -> Vec<Frame> {
    let mut out = vec![Frame::Args { ctx: ctx.clone(), params: params.to_vec(), i: 0, state: if params.is_empty() { 2 } else { 0 } }];
    if let Some(p) = params.first() {
        out.push(Frame::expr(ctx, p));
    }
    out
}

/// The types the next operand may have: after unary operators their operand type,
/// otherwise every base type from which the expression can still end in `want`,
/// plus a table or function type when the operand is the whole expression.
fn operand_targets(want: &TypeSet, stack: &[(Type, BinOp)], unary: &[bool]) -> TypeSet {
    match unary.last() {
        Some(true) => TypeSet::one(&Type::Boolean),
        Some(false) => TypeSet::one(&Type::Number),
        None => {
            let mut bases = 0;
            for (i, b) in BASES.iter().enumerate() {
                if can_finish(want, stack, b) {
                    bases |= 1 << i;
                }
            }
            TypeSet { bases, other: if stack.is_empty() { want.other.clone() } else { None } }
        }
    }
}

fn operand_choices(env: &Env, ctx: &Ctx, targets: &TypeSet, unary: &[bool], want: &TypeSet, stack: &[(Type, BinOp)]) -> Vec<Choice> {
    let api = &env.api;
    let mut out = Vec::new();
    let lit = |lex: Lex, t: Type| Choice { lex, act: Act::Literal(t), ann: Ann::None };
    if targets.contains(&Type::Number) {
        out.push(lit(Lex::Number, Type::Number));
    }
    if targets.contains(&Type::String) {
        out.push(lit(Lex::Str, Type::String));
    }
    if targets.contains(&Type::Boolean) {
        out.push(lit(Lex::Lit("true".into()), Type::Boolean));
        out.push(lit(Lex::Lit("false".into()), Type::Boolean));
    }
    let neg_ok = match unary.last() {
        Some(u) => !*u,
        None => can_finish(want, stack, &Type::Number),
    };
    let not_ok = match unary.last() {
        Some(u) => *u,
        None => can_finish(want, stack, &Type::Boolean),
    };
    if neg_ok {
        out.push(Choice { lex: Lex::Lit("-".into()), act: Act::Unary(false), ann: Ann::None });
    }
    if not_ok {
        out.push(Choice { lex: Lex::Lit("not".into()), act: Act::Unary(true), ann: Ann::None });
    }
    if targets.bases != 0 {
        out.push(kw("("));
    }
    match &targets.other {
        Some(Type::Func(_)) => out.push(kw("function")),
        Some(Type::Table(i)) if api.tables[*i].constructible => {
            out.push(Choice { lex: Lex::Lit("{".into()), act: Act::Kw, ann: Ann::Table(*i) })
        }
        _ => {}
    }
    let fits = |t: &Type| api.reaches(t, &|x| targets.contains(x));
    out.extend(scoped(env, &ctx.scope, false, |k| fits(&k.ty)));
    for (name, ty) in env.globals() {
        if fits(ty) && ctx.scope.lookup(name.as_bytes()).is_none() {
            out.push(Choice { lex: Lex::Lit(name.clone()), act: Act::Var(ty.clone(), false), ann: Ann::None });
        }
    }
    out
}

/// The choice of any name of `scope` whose kind `accept`s, if there is one.
fn scoped(env: &Env, scope: &Scope, assignable: bool, accept: impl Fn(&Kind) -> bool) -> Option<Choice> {
    let kinds: Vec<AcceptedKind> = scope
        .kinds()
        .iter()
        .filter_map(|&id| {
            let k = env.kind(id);
            accept(&k).then(|| AcceptedKind { id, is_func: matches!(k.ty, Type::Func(_)), la: ByteSet::default() })
        })
        .collect();
    (!kinds.is_empty()).then(|| Choice {
        lex: Lex::Scoped(Rc::new(ScopedNames { scope: scope.clone(), kinds, assignable })),
        act: Act::Scoped,
        ann: Ann::None,
    })
}
