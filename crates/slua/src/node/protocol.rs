//! What a parser node and the tree exchange: the [`Choice`]s a node offers (a lexeme,
//! what taking it means, a note for the syntax tree), the [`Ctx`] a statement node
//! hands down, the [`Child`]ren it asks the tree to push and the [`Sum`]mary it hands
//! up when it ends. Every construct's file speaks only this vocabulary; the
//! [`crate::node::Frame`] that holds the constructs turns a [`Child`] into a node.

use std::rc::Rc;

use crate::byte_set::ByteSet;
use crate::lexeme::Lex;
use crate::ops::{BinOp, TypeSet};
use crate::scope::Env;
use crate::scope_trie::Kind;
use crate::scope_trie::Scope;
use crate::scoped_names::{AcceptedKind, ScopedNames};
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

/// A keyword or punctuation.
pub fn kw(s: impl Into<Text>) -> Choice {
    Choice { lex: Lex::Lit(s.into()), act: Act::Kw, ann: Ann::None }
}

impl Choice {
    /// A literal text with its meaning.
    pub fn lit(s: impl Into<Text>, act: Act) -> Choice {
        Choice { lex: Lex::Lit(s.into()), act, ann: Ann::None }
    }

    /// A new name other than the words of `exclude` (upper-case first for script names).
    pub fn new_name(upper: bool, exclude: &Rc<Vec<String>>) -> Choice {
        Choice {
            lex: Lex::Name { upper, exclude: exclude.clone() },
            act: Act::NewName,
            ann: Ann::None,
        }
    }

    /// The choice of any name of `scope` whose kind `accept`s, if there is one.
    pub fn scoped(
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

    /// The global callables (API functions, registered effects) not shadowed by a
    /// name of `scope` whose type `fits`.
    pub fn globals<'a>(
        env: &'a Env,
        scope: &'a Scope,
        fits: impl Fn(&Type) -> bool + 'a,
    ) -> impl Iterator<Item = Choice> + 'a {
        env.globals()
            .iter()
            .filter(move |(name, ty)| fits(ty) && scope.lookup(name.as_bytes()).is_none())
            .map(|(name, ty)| Choice::lit(name.clone(), Act::Var(ty.clone(), false)))
    }
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

/// A node a step asks the tree to push, in its starting state.
#[derive(Clone, Debug)]
pub enum Child {
    /// A block; whether every path through it must return.
    Block(Ctx, bool),
    /// `local name: T = e;` after `local`.
    Local(Ctx),
    /// A type specification (after `:`).
    TypeSpec,
    /// `if` after the keyword (its condition is pushed beside it).
    If(Ctx),
    /// `while` after the keyword (its condition is pushed beside it).
    While(Ctx),
    /// `for` after the keyword.
    For(Ctx),
    /// `do` after the keyword (its block is pushed beside it).
    Do(Ctx),
    /// `return`; whether a value follows (pushed beside it).
    Return(bool),
    /// `break`.
    Break,
    /// A statement starting with a variable of this type; whether it is assignable.
    Stmt(Ctx, Type, bool),
    /// An expression wanting one of these types.
    Expr(Ctx, TypeSet),
    /// A variable of this type read towards one of these types.
    Prefix(Ctx, Type, TypeSet),
    /// A parenthesised expression (its inner expression is pushed beside it).
    Paren,
    /// The arguments of a call after `(`.
    Args(Ctx, Vec<Type>),
    /// A function expression of this type, with parameter names to suggest.
    Func(Ctx, Rc<FuncType>, Vec<String>),
    /// A constructor of the API table type with this index, after `{`.
    Table(Ctx, usize),
}

impl Child {
    /// An expression wanting exactly `t`.
    pub fn expr(ctx: &Ctx, t: &Type) -> Child {
        Child::Expr(ctx.clone(), TypeSet::one(t))
    }
}
