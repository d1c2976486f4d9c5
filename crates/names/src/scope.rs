//! Scopes and bindings as pyflakes keeps them: a scope maps names to bindings, and a
//! binding remembers the scope that read it last (what tells a function's read of an
//! outer name, followed by a local binding of it, from an ordinary read).

use rustc_hash::FxHashMap;

/// An index into the checker's scope arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ScopeId(pub(crate) usize);

/// The kinds of scope Python's name resolution tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScopeKind {
    /// The module: its bindings, and the builtins (as pyflakes keeps them, in it).
    Module,
    /// A class body: visible to itself and to comprehensions directly in it, not to
    /// the functions defined in it.
    Class,
    /// A function or lambda body.
    Function,
    /// A comprehension or generator expression.
    Generator,
}

/// What a binding is, where it matters to reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BindingKind {
    /// A builtin (in the module scope).
    Builtin,
    /// An annotation without a value (`x: int`): binds nothing at run time, so reads
    /// pass it by.
    Annotation,
    /// Everything else: assignments, parameters, imports, definitions, ...
    Plain,
}

/// One name's binding in a scope.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Binding {
    pub(crate) kind: BindingKind,
    /// Byte offset of what bound it (`None` for builtins).
    pub(crate) at: Option<usize>,
    /// The scope of the last read that found it, and that read's offset.
    pub(crate) used: Option<(ScopeId, usize)>,
}

/// One scope: its kind and bindings.
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    pub(crate) kind: ScopeKind,
    pub(crate) names: FxHashMap<String, Binding>,
    /// A `from m import *` ran in it: any name may be bound.
    pub(crate) star_import: bool,
}

impl Scope {
    pub(crate) fn new(kind: ScopeKind) -> Self {
        Self { kind, names: FxHashMap::default(), star_import: false }
    }
}
