//! The parts of the names machine's state ([`super::Machine`]): the statement's kind,
//! the last significant token, the role of the identifier being typed, the brackets
//! open, and the names whose role or check waits.

use super::super::lexer::Op;

/// The kind of the statement being read, as far as names go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stmt {
    /// Nothing read yet.
    Start,
    /// An expression statement or assignment (targets not decided).
    Segment,
    /// A compound statement's header (`if`, `while`, `with`, `except`, ...).
    Compound,
    /// `return`, `del`, `assert`, `raise`, a decorator: names are read.
    Load,
    Import,
    FromModule,
    FromNames,
    Global,
    Def,
    Class,
    /// A `for` statement's targets (until `in`).
    For,
    /// A `case` pattern: names bind (permissive: values are not told from captures).
    Case,
}

/// The last significant token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Prev {
    /// A statement starts (line start, `;`, a header's `:`).
    Start,
    Name,
    /// A literal, a closing bracket, `None` / `True` / `False`.
    Atom,
    Def,
    Class,
    Lambda,
    As,
    Import,
    /// `if` / `elif` / `while` starting a statement: the condition may be a walrus.
    CondKeyword,
    /// Any other keyword after which an expression is read.
    Keyword,
    Op(Op),
}

/// What the identifier being typed is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ctx {
    Ignore,
    Bind {
        module: bool,
        /// An assignment (a `for` target, `with` / `except` ... `as`): the
        /// UnboundLocalError rule applies (imports and `global` are no assignments).
        store: bool,
    },
    DefName,
    ClassName,
    Param,
    LambdaParam,
    CompTarget,
    Read,
    /// Read, unless a keyword argument (`=`) or walrus target (`:=`).
    Ambiguous,
    /// A possible assignment target (decided by the statement's `=` or end).
    Target,
}

/// A name read whose check waits (see the module doc).
#[derive(Debug)]
pub(super) struct Pending {
    pub(super) name: String,
    pub(super) at: usize,
}

#[derive(Debug)]
pub(super) struct Bracket {
    /// Opened where an assignment target may stand (`(a, b) = ...`).
    pub(super) target: bool,
    /// Still in the first element, no `for` yet: a comprehension may bind its reads.
    pub(super) first: bool,
    /// A comprehension: its `for` came.
    pub(super) comp: bool,
    pub(super) comp_targets: Vec<String>,
    /// The comprehension's `for` clauses so far.
    pub(super) fors: usize,
    /// Reading the first `for` clause's iterable, which Python evaluates in the
    /// enclosing scope: the comprehension's targets are not bound there
    /// (`[n for n in range(n)]` reads the outer `n`).
    pub(super) first_iterable: bool,
    /// A `def`'s parameter list.
    pub(super) params: bool,
    /// Opened after `as` (`with m() as (a, b):`): its names are bound.
    pub(super) binds: bool,
    /// The statement's possible targets listed before it opened: those after are
    /// inside it (`c = [(i, j) for ...]`: not targets once its `for` comes).
    pub(super) segment_at: usize,
    pub(super) pending: Vec<Pending>,
    /// Names read here (resolved) while the bracket may still turn out a
    /// comprehension: their claims wait for that to be decided.
    pub(super) tentative: Vec<String>,
}

clone_reusing!(Pending { name, at });
clone_reusing!(Bracket {
    target,
    first,
    comp,
    comp_targets,
    fors,
    first_iterable,
    params,
    binds,
    segment_at,
    pending,
    tentative
});
clone_reusing!(Awaiting { name, at, target });

impl Bracket {
    pub(super) fn may_comprehend(&self) -> bool {
        self.first && !self.comp && !self.params
    }

    /// Whether a read here sees the comprehension's targets: in a comprehension, but
    /// not in its first iterable.
    pub(super) fn sees_targets(&self) -> bool {
        self.comp && !self.first_iterable
    }
}

/// The name whose role the next token decides.
#[derive(Debug)]
pub(super) struct Awaiting {
    pub(super) name: String,
    pub(super) at: usize,
    /// A possible target (else: a possible keyword argument or walrus target).
    pub(super) target: bool,
}
