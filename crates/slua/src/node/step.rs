//! What taking a lexeme does to a parser node: [`Frame::step`] moves the template
//! to its next state, records names and types, and returns the child nodes to push.

use crate::ops::{push_op, TypeSet};
use crate::scope::Env;
use crate::types::{FuncType, Type};

use super::choices::operand_targets;
use super::{Act, Ctx, Frame};

impl Frame {
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
                    return vec![Frame::Local {
                        ctx,
                        state: 0,
                        name: String::new(),
                        ty: Type::Void,
                    }];
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
                    (Act::Kw, "local") => {
                        vec![Frame::Local { ctx: c, state: 0, name: String::new(), ty: Type::Void }]
                    }
                    (Act::Kw, "if") => {
                        let e = Frame::expr(&c, &Type::Boolean);
                        vec![Frame::If { ctx: c, state: 0, all_return: true, has_else: false }, e]
                    }
                    (Act::Kw, "while") => {
                        let e = Frame::expr(&c, &Type::Boolean);
                        vec![Frame::While { ctx: c, state: 0 }, e]
                    }
                    (Act::Kw, "for") => {
                        vec![Frame::For { ctx: c, state: 0, name: String::new(), bounds: 0 }]
                    }
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
                    let c = Ctx {
                        in_loop: true,
                        scope: env.push(&ctx.scope, name, &Type::Number, false),
                        ret: ctx.ret.clone(),
                    };
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
                    let ft = cur
                        .as_func()
                        .cloned()
                        .unwrap_or(FuncType { params: vec![], ret: Type::Void });
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
                    let ft = cur
                        .as_func()
                        .cloned()
                        .unwrap_or(FuncType { params: vec![], ret: Type::Void });
                    *call_ret = ft.ret.clone();
                    *state = 3;
                    return args(ctx, &ft.params);
                }
                (8, _) => *state = 9,
                _ => {}
            },
            Frame::Expr { ctx, want, stack, unary, have } => {
                let targets = operand_targets(env.viability(), want, stack, unary);
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
                        return vec![Frame::Prefix {
                            ctx: ctx.clone(),
                            cur: t.clone(),
                            targets,
                            state: 0,
                            call_ret: Type::Void,
                        }]
                    }
                    Act::Kw if text == "(" => {
                        let inner = TypeSet { bases: targets.bases, other: None };
                        return vec![
                            Frame::Paren { state: 0, ty: Type::Void },
                            Frame::Expr {
                                ctx: ctx.clone(),
                                want: inner,
                                stack: vec![],
                                unary: vec![],
                                have: None,
                            },
                        ];
                    }
                    Act::Kw if text == "function" => {
                        if let Some(Type::Func(ft)) = &targets.other {
                            return vec![Frame::func(ctx, ft, vec![])];
                        }
                    }
                    Act::Kw if text == "{" => {
                        if let Some(Type::Table(i)) = &targets.other {
                            return vec![Frame::Table {
                                ctx: ctx.clone(),
                                table: *i,
                                next: 0,
                                state: 0,
                            }];
                        }
                    }
                    _ => {}
                }
            }
            Frame::Prefix { ctx, cur, state, call_ret, .. } => match (*state, act) {
                (0, _) if text == "." => *state = 1,
                (0, _) => {
                    let ft = cur
                        .as_func()
                        .cloned()
                        .unwrap_or(FuncType { params: vec![], ret: Type::Void });
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
                    let ft = cur
                        .as_func()
                        .cloned()
                        .unwrap_or(FuncType { params: vec![], ret: Type::Void });
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
}

fn args(ctx: &Ctx, params: &[Type]) -> Vec<Frame> {
    let mut out = vec![Frame::Args {
        ctx: ctx.clone(),
        params: params.to_vec(),
        i: 0,
        state: if params.is_empty() { 2 } else { 0 },
    }];
    if let Some(p) = params.first() {
        out.push(Frame::expr(ctx, p));
    }
    out
}
