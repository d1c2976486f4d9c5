//! What a parser node offers next: [`Frame::choices`], the lexemes each template
//! accepts in its current state, with the names of the scope, the API's functions,
//! fields and types, and the operators and operands an expression may continue with.

use std::rc::Rc;

use crate::byte_set::ByteSet;
use crate::lexeme::Lex;
use crate::ops::{push_op, BinOp, TypeSet, BASES, BIN_OPS};
use crate::scope::{Env, Kind, Scope};
use crate::scoped_names::{AcceptedKind, ScopedNames};
use crate::types::Type;
use crate::viability::Viability;

use super::{kw, Act, Ann, Choice, Ctx, Frame};

impl Frame {
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
                    let required_done = hooks[..last]
                        .iter()
                        .enumerate()
                        .all(|(i, h)| !h.required || done.get(i).copied().unwrap_or(false));
                    hooks
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| {
                            !done.get(*i).copied().unwrap_or(false) && (*i < last || required_done)
                        })
                        .map(|(i, h)| Choice {
                            lex: Lex::Lit((&h.name).into()),
                            act: Act::Hook(i),
                            ann: Ann::None,
                        })
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
                out.extend(scoped(env, &ctx.scope, true, |k| {
                    k.assignable || api.stmt_reaches(&k.ty)
                }));
                for (name, ty) in env.globals() {
                    if ctx.scope.lookup(name.as_bytes()).is_none() {
                        out.push(Choice {
                            lex: Lex::Lit(name.clone()),
                            act: Act::Var(ty.clone(), false),
                            ann: Ann::None,
                        });
                    }
                }
                out
            }
            Frame::Local { state, .. } => match state {
                0 => vec![Choice {
                    lex: Lex::Name { upper: false, exclude: env.reserved.clone() },
                    act: Act::NewName,
                    ann: Ann::None,
                }],
                1 => vec![kw(":")],
                2 => vec![kw("=")],
                3 => vec![kw(";")],
                _ => vec![],
            },
            Frame::TypeSpec { state, params, top } => {
                let names = |void: bool| {
                    let mut out: Vec<Choice> = [
                        ("number", Type::Number),
                        ("string", Type::String),
                        ("boolean", Type::Boolean),
                    ]
                    .into_iter()
                    .chain(void.then_some(("void", Type::Void)))
                    .map(|(n, t)| Choice {
                        lex: Lex::Lit(n.into()),
                        act: Act::TypeName(t),
                        ann: Ann::None,
                    })
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
                0 => vec![Choice {
                    lex: Lex::Name { upper: false, exclude: env.reserved.clone() },
                    act: Act::NewName,
                    ann: Ann::None,
                }],
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
                        if !t.methods.is_empty()
                            || t.fields.iter().any(|f| f.mutable || api.stmt_reaches(&f.ty))
                        {
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
                        .map(|(j, f)| Choice {
                            lex: Lex::Lit((&f.name).into()),
                            act: Act::Field(j),
                            ann: Ann::None,
                        })
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
                                if BASES.iter().any(|b| env.viability().can_finish(want, &st2, b)) {
                                    out.push(Choice {
                                        lex: Lex::Lit(op.text().into()),
                                        act: Act::Op(op),
                                        ann: Ann::None,
                                    });
                                }
                            }
                        }
                    }
                    out
                }
                None => operand_choices(
                    env,
                    ctx,
                    &operand_targets(env.viability(), want, stack, unary),
                    unary,
                    want,
                    stack,
                ),
            },
            Frame::Prefix { cur, targets, state, .. } => match state {
                0 => {
                    let mut out = Vec::new();
                    if let Type::Table(i) = cur {
                        let t = &api.tables[*i];
                        let any =
                            t.fields.iter().any(|f| api.reaches(&f.ty, &|x| targets.contains(x)))
                                || t.methods
                                    .iter()
                                    .any(|m| api.reaches(&ret(&m.ty), &|x| targets.contains(x)));
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
                        .map(|(j, f)| Choice {
                            lex: Lex::Lit((&f.name).into()),
                            act: Act::Field(j),
                            ann: Ann::None,
                        })
                        .collect();
                    out.extend(
                        t.methods
                            .iter()
                            .enumerate()
                            .filter(|(_, m)| api.reaches(&ret(&m.ty), &|x| targets.contains(x)))
                            .map(|(j, m)| Choice {
                                lex: Lex::Lit((&m.name).into()),
                                act: Act::Method(j),
                                ann: Ann::Method,
                            }),
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
                        vec![Choice {
                            lex: Lex::Name { upper: false, exclude: env.reserved.clone() },
                            act: Act::NewName,
                            ann: Ann::None,
                        }]
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
                let rest_optional = |from: usize| {
                    fields[from.min(fields.len())..].iter().all(|f| f.default.is_some())
                };
                let field_choices = |from: usize| {
                    let mut out = Vec::new();
                    for (j, f) in fields.iter().enumerate().skip(from) {
                        out.push(Choice {
                            lex: Lex::Lit((&f.name).into()),
                            act: Act::CtorField(j),
                            ann: Ann::None,
                        });
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
}

fn ret(t: &Type) -> Type {
    t.as_func().map_or(Type::Void, |f| f.ret.clone())
}

/// The types the next operand may have: after unary operators their operand type,
/// otherwise every base type from which the expression can still end in `want`,
/// plus a table or function type when the operand is the whole expression.
pub(super) fn operand_targets(
    viability: &Viability,
    want: &TypeSet,
    stack: &[(Type, BinOp)],
    unary: &[bool],
) -> TypeSet {
    match unary.last() {
        Some(true) => TypeSet::one(&Type::Boolean),
        Some(false) => TypeSet::one(&Type::Number),
        None => {
            let mut bases = 0;
            for (i, b) in BASES.iter().enumerate() {
                if viability.can_finish(want, stack, b) {
                    bases |= 1 << i;
                }
            }
            TypeSet { bases, other: if stack.is_empty() { want.other.clone() } else { None } }
        }
    }
}

fn operand_choices(
    env: &Env,
    ctx: &Ctx,
    targets: &TypeSet,
    unary: &[bool],
    want: &TypeSet,
    stack: &[(Type, BinOp)],
) -> Vec<Choice> {
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
        None => env.viability().can_finish(want, stack, &Type::Number),
    };
    let not_ok = match unary.last() {
        Some(u) => *u,
        None => env.viability().can_finish(want, stack, &Type::Boolean),
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
            out.push(Choice {
                lex: Lex::Lit(name.clone()),
                act: Act::Var(ty.clone(), false),
                ann: Ann::None,
            });
        }
    }
    out
}

/// The choice of any name of `scope` whose kind `accept`s, if there is one.
fn scoped(
    env: &Env,
    scope: &Scope,
    assignable: bool,
    accept: impl Fn(&Kind) -> bool,
) -> Option<Choice> {
    let kinds: Vec<AcceptedKind> = scope
        .kinds()
        .iter()
        .filter_map(|&id| {
            let k = env.kind(id);
            accept(&k).then(|| AcceptedKind {
                id,
                is_func: matches!(k.ty, Type::Func(_)),
                la: ByteSet::default(),
            })
        })
        .collect();
    (!kinds.is_empty()).then(|| Choice {
        lex: Lex::Scoped(Rc::new(ScopedNames { scope: scope.clone(), kinds, assignable })),
        act: Act::Scoped,
        ann: Ann::None,
    })
}
