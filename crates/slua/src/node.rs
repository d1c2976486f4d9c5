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
//! One file per construct (as rust-analyzer's parser is laid out), each with its
//! named states and its own `choices`, `step`, `can_end` and `child_done`: `root`,
//! `block`, `local`, `if`, `while`, `for`, `do`, `statement` (with `return` and
//! `break`), `expression` (with parentheses), `prefix`, `arguments`, `function`,
//! `table` and `type`. They speak the vocabulary of `protocol` and ask for children
//! as [`Child`]ren; this file holds [`Frame`], which dispatches to them and turns a
//! [`Child`] into a node, so no construct imports another's node.

mod arguments;
mod block;
mod r#do;
mod expression;
mod r#for;
mod function;
mod r#if;
mod local;
mod loop_tail;
mod prefix;
mod protocol;
mod root;
mod statement;
mod table;
mod r#type;
mod r#while;

use crate::choice_key::ChoiceKey;
use crate::ops::BASES;
use crate::scope::Env;
use crate::types::Type;

pub use arguments::{Args, ArgsState};
pub use block::Block;
pub use expression::{Expr, Paren, ParenState};
pub use function::{Func, FuncState};
pub use local::{Local, LocalState};
pub use loop_tail::LoopTail;
pub use prefix::{Prefix, PrefixState};
pub use protocol::{Act, Ann, Child, Choice, Ctx, Sum};
pub use r#do::{Do, DoState};
pub use r#for::{For, ForState};
pub use r#if::{If, IfState};
pub use r#type::{TypeSpec, TypeState};
pub use r#while::{While, WhileState};
pub use root::{Root, RootState};
pub use statement::{Break, Return, ReturnState, Stmt, StmtState};
pub use table::{Table, TableState};

/// A parser node: one variant per construct.
#[derive(Clone, Debug)]
pub enum Frame {
    /// A whole script: `effect Name;` or `talent Name;`, top-level locals, hooks.
    Root(Root),
    /// A block of statements.
    Block(Block),
    /// `local name: T = e;`
    Local(Local),
    /// A type specification.
    TypeSpec(TypeSpec),
    /// `if c then b (elseif c then b)* (else b)? end;`
    If(If),
    /// `while c do b end;`
    While(While),
    /// `for i = a, b (, s)? do b end;`
    For(For),
    /// `do b end;`
    Do(Do),
    /// `return e;` / `return;`
    Return(Return),
    /// `break;`
    Break(Break),
    /// An assignment or call statement starting with a name.
    Stmt(Stmt),
    /// An expression (operators by precedence) wanting one of a set of types.
    Expr(Expr),
    /// A name followed by field reads and calls, ending in one of a set of types.
    Prefix(Prefix),
    /// A parenthesised expression.
    Paren(Paren),
    /// An argument list after `(`.
    Args(Args),
    /// A function expression of a known type.
    Func(Func),
    /// A table constructor of an API table type.
    Table(Table),
}

impl Frame {
    /// The root node of a script of `kind` (`effect`, `talent`, or empty for either).
    pub fn root(kind: &str) -> Frame {
        Frame::Root(Root::new(kind))
    }

    /// An expression node wanting type `t`.
    pub fn expr(ctx: &Ctx, t: &Type) -> Frame {
        Frame::spawn(Child::expr(ctx, t))
    }

    /// The node a step asked for, in its starting state.
    pub fn spawn(child: Child) -> Frame {
        match child {
            Child::Block(ctx, needs_return) => Frame::Block(Block::new(ctx, needs_return)),
            Child::Local(ctx) => Frame::Local(Local::new(ctx)),
            Child::TypeSpec => Frame::TypeSpec(TypeSpec::start()),
            Child::If(ctx) => Frame::If(If::new(ctx)),
            Child::While(ctx) => Frame::While(While::new(ctx)),
            Child::For(ctx) => Frame::For(For::new(ctx)),
            Child::Do(ctx) => Frame::Do(Do::new(ctx)),
            Child::Return(value) => Frame::Return(Return::new(value)),
            Child::Break => Frame::Break(Break { done: false }),
            Child::Stmt(ctx, cur, lvalue) => Frame::Stmt(Stmt::new(ctx, cur, lvalue)),
            Child::Expr(ctx, want) => Frame::Expr(Expr::new(ctx, want)),
            Child::Prefix(ctx, cur, targets) => Frame::Prefix(Prefix::new(ctx, cur, targets)),
            Child::Paren => Frame::Paren(Paren::open()),
            Child::Args(ctx, params) => Frame::Args(Args::new(ctx, params)),
            Child::Func(ctx, ft, hint) => Frame::Func(Func::new(ctx, ft, hint)),
            Child::Table(ctx, table) => Frame::Table(Table::new(ctx, table)),
        }
    }

    /// The lexemes this node accepts next.
    pub fn choices(&self, env: &Env) -> Vec<Choice> {
        match self {
            Frame::Root(n) => n.choices(env),
            Frame::Block(n) => n.choices(env),
            Frame::Local(n) => n.choices(env),
            Frame::TypeSpec(n) => n.choices(env),
            Frame::If(n) => n.choices(),
            Frame::While(n) => n.choices(),
            Frame::For(n) => n.choices(env),
            Frame::Do(n) => n.choices(),
            Frame::Return(n) => n.choices(),
            Frame::Break(n) => n.choices(),
            Frame::Stmt(n) => n.choices(env),
            Frame::Expr(n) => n.choices(env),
            Frame::Prefix(n) => n.choices(env),
            Frame::Paren(n) => n.choices(),
            Frame::Args(n) => n.choices(),
            Frame::Func(n) => n.choices(env),
            Frame::Table(n) => n.choices(env),
        }
    }

    /// Consumes the choice taken (with the lexeme's text) and returns the children
    /// to push, innermost last (spawned as they are pushed: no second vector).
    pub fn step(
        &mut self,
        act: &Act,
        text: &str,
        env: &Env,
    ) -> impl ExactSizeIterator<Item = Frame> {
        let children = match self {
            Frame::Root(n) => n.step(act, text, env),
            Frame::Block(n) => n.step(act, text),
            Frame::Local(n) => n.step(text),
            Frame::TypeSpec(n) => {
                n.step(act, text);
                vec![]
            }
            Frame::If(n) => n.step(text),
            Frame::While(n) => n.step(),
            Frame::For(n) => n.step(text, env),
            Frame::Do(n) => {
                n.step();
                vec![]
            }
            Frame::Return(n) => {
                n.step();
                vec![]
            }
            Frame::Break(n) => {
                n.step();
                vec![]
            }
            Frame::Stmt(n) => n.step(act, text, env),
            Frame::Expr(n) => n.step(act, text, env),
            Frame::Prefix(n) => n.step(act, text, env),
            Frame::Paren(n) => {
                n.step();
                vec![]
            }
            Frame::Args(n) => n.step(text),
            Frame::Func(n) => n.step(act, text, env),
            Frame::Table(n) => n.step(act, text, env),
        };
        children.into_iter().map(Frame::spawn)
    }

    /// Whether the node may end here, and what it tells its parent.
    pub fn can_end(&self) -> Option<Sum> {
        match self {
            Frame::Root(_) => None,
            Frame::Block(n) => n.can_end(),
            Frame::Local(n) => n.can_end(),
            Frame::TypeSpec(n) => n.can_end(),
            Frame::If(n) => n.can_end(),
            Frame::While(n) => n.can_end(),
            Frame::For(n) => n.can_end(),
            Frame::Do(n) => n.can_end(),
            Frame::Return(n) => n.can_end(),
            Frame::Break(n) => n.can_end(),
            Frame::Stmt(n) => n.can_end(),
            Frame::Expr(n) => n.can_end(),
            Frame::Prefix(n) => n.can_end(),
            Frame::Paren(n) => n.can_end(),
            Frame::Args(n) => n.can_end(),
            Frame::Func(n) => n.can_end(),
            Frame::Table(n) => n.can_end(),
        }
    }

    /// Takes the summary of the child that just ended.
    pub fn child_done(&mut self, sum: &Sum, env: &Env) {
        match self {
            Frame::Root(n) => n.child_done(sum, env),
            Frame::Block(n) => n.child_done(sum, env),
            Frame::Local(n) => n.child_done(sum),
            Frame::If(n) => n.child_done(sum),
            Frame::While(n) => n.child_done(),
            Frame::For(n) => n.child_done(),
            Frame::Do(n) => n.child_done(sum),
            Frame::Return(n) => n.child_done(),
            Frame::Stmt(n) => n.child_done(),
            Frame::Expr(n) => n.child_done(sum),
            Frame::Prefix(n) => n.child_done(),
            Frame::Paren(n) => n.child_done(sum),
            Frame::Args(n) => n.child_done(),
            Frame::Func(n) => n.child_done(),
            Frame::Table(n) => n.child_done(),
            Frame::TypeSpec(_) | Frame::Break(_) => {}
        }
    }

    /// Whether this is the root of a complete script.
    pub fn is_finished_root(&self) -> bool {
        matches!(self, Frame::Root(r) if r.state == RootState::Done)
    }

    /// The node's kind, for the visualizer.
    pub fn kind(&self) -> &'static str {
        match self {
            Frame::Root(_) => "root",
            Frame::Block(_) => "block",
            Frame::Local(_) => "local",
            Frame::TypeSpec(_) => "type",
            Frame::If(_) => "if",
            Frame::While(_) => "while",
            Frame::For(_) => "for",
            Frame::Do(_) => "do",
            Frame::Return(_) => "return",
            Frame::Break(_) => "break",
            Frame::Stmt(_) => "statement",
            Frame::Expr(_) => "expression",
            Frame::Prefix(_) => "prefix",
            Frame::Paren(_) => "paren",
            Frame::Args(_) => "arguments",
            Frame::Func(_) => "function",
            Frame::Table(_) => "table",
        }
    }

    /// A short description of the node's state, for the visualizer.
    pub fn describe(&self, env: &Env) -> String {
        let n = &env.api.table_names;
        match self {
            Frame::Root(r) => format!("{} script, {:?}", r.kind, r.state),
            Frame::Block(b) => format!(
                "returns {}, {} names in scope{}",
                b.ctx.ret.display(n),
                b.ctx.scope.len(),
                if b.returns { ", has returned" } else { "" }
            ),
            Frame::Local(l) => format!("{}: {} ({:?})", l.name, l.ty.display(n), l.state),
            Frame::Expr(e) => describe_expr(e, env),
            Frame::Prefix(Prefix { cur, .. }) | Frame::Stmt(Stmt { cur, .. }) => {
                format!("value of type {}", cur.display(n))
            }
            Frame::Args(a) => format!("argument {} of {}", a.i + 1, a.params.len()),
            Frame::Func(f) => format!("{}", Type::Func(f.ft.clone()).display(n)),
            Frame::Table(t) => format!("{} field {}", n[t.table], t.next + 1),
            Frame::TypeSpec(t) => format!("{:?}", t.state),
            Frame::If(i) => format!("{:?}", i.state),
            Frame::While(w) => format!("{:?}", w.state),
            Frame::For(f) => format!("{:?}", f.state),
            Frame::Do(d) => format!("{:?}", d.state),
            Frame::Return(r) => format!("{:?}", r.state),
            Frame::Break(b) => (if b.done { "Done" } else { "Semi" }).to_string(),
            Frame::Paren(p) => format!("{:?}", p.state),
        }
    }

    /// A key fixing this node's choices when they depend on nothing but the key and
    /// the API (not on the scope): statements and prefixes after a variable, the
    /// nodes a variable choice pushes. [`crate::tree::Tree`] memoises the bytes that
    /// may start the segment after such a node by this key in the [`Env`].
    pub fn choice_key(&self) -> Option<ChoiceKey> {
        match self {
            Frame::Stmt(s) => {
                Some(ChoiceKey::Stmt(s.cur.clone(), s.lvalue, s.called, s.state as u8))
            }
            Frame::Prefix(p) => {
                Some(ChoiceKey::Prefix(p.cur.clone(), p.targets.clone(), p.state as u8))
            }
            _ => None,
        }
    }

    /// The hint of parameter names (hooks) for the function node, if any.
    pub fn param_hint(&self) -> Option<&[String]> {
        match self {
            Frame::Func(f) if !f.hint.is_empty() => Some(&f.hint),
            _ => None,
        }
    }
}

/// The wanted types, the operators waiting and the operand of an expression.
fn describe_expr(e: &Expr, env: &Env) -> String {
    let n = &env.api.table_names;
    let w: Vec<String> = BASES
        .iter()
        .filter(|b| e.want.contains(b))
        .chain(e.want.other.iter())
        .map(|t| t.display(n).to_string())
        .collect();
    let ops: Vec<&str> = e.stack.iter().map(|(_, o)| o.text()).collect();
    format!(
        "want {} | pending [{}] | operand {}",
        w.join(" or "),
        ops.join(" "),
        e.have.as_ref().map_or("?".into(), |t| t.display(n).to_string())
    )
}
