//! [`Checker`]: the state of one file's check and the rules of reads, bindings and
//! deletions, as pyflakes 3.2 (`checker.py`) applies them. The traversal that calls
//! them is in `statements.rs` and `expressions.rs`.
//!
//! The order is pyflakes': the module and class bodies are read in order (a read before
//! the module binds the name is refused), function and lambda bodies are deferred to
//! the end of the module, each with the scopes around its definition as they are by
//! then. So a function may read a module name bound anywhere in the file (a forward
//! reference is legal Python when the function runs after the binding), and a local
//! read before the function binds the name, when an outer scope binds it, is an
//! UnboundLocalError.

use std::borrow::Cow;
use std::collections::VecDeque;

use rustpython_parser::ast;
use unicode_normalization::UnicodeNormalization;

use crate::refusal::{LineIndex, Outer, Refusal, Why};
use crate::scope::{Binding, BindingKind, Scope, ScopeId, ScopeKind};

/// Names a function may read and bind without the UnboundLocalError rule (pyflakes'
/// `FunctionScope.alwaysUsed`: traceback helpers some frameworks read).
const ALWAYS_USED: [&str; 3] =
    ["__tracebackhide__", "__traceback_info__", "__traceback_supplement__"];

/// Names a class body may read without binding them (what `dir()` lists there).
const CLASS_MAGIC: [&str; 2] = ["__module__", "__qualname__"];

/// A body whose check waits for the end of the module.
#[derive(Clone, Copy)]
pub(crate) enum Body<'a> {
    /// A `def`'s parameters and statements.
    Function(&'a ast::Arguments, &'a [ast::Stmt]),
    /// A lambda's parameters and expression.
    Lambda(&'a ast::Arguments, &'a ast::Expr),
}

/// A deferred body with the scopes around its definition.
struct Deferred<'a> {
    body: Body<'a>,
    stack: Vec<ScopeId>,
    /// Whether the definition sits under an `if`, `while` or conditional expression
    /// (where `del` is not followed, see [`Checker::delete`]).
    conditional: bool,
}

/// What a refusal found before lines are known.
struct Found {
    offset: usize,
    name: String,
    why: FoundWhy,
}

enum FoundWhy {
    Undefined,
    /// With the offset of the outer binding (`None`: a builtin).
    UnboundLocal(Option<usize>),
}

/// One file's check.
pub(crate) struct Checker<'a> {
    scopes: Vec<Scope>,
    stack: Vec<ScopeId>,
    deferred: VecDeque<Deferred<'a>>,
    /// For each `try` body being read, innermost last, the exception names its
    /// handlers catch: a read inside one that catches `NameError` is not refused.
    pub(crate) handlers: Vec<Vec<&'a str>>,
    /// How many `if`, `while` and conditional expressions enclose the node read.
    pub(crate) conditional: usize,
    /// `from __future__ import annotations` ran: annotations are not evaluated.
    pub(crate) annotations_postponed: bool,
    /// The file is a package's `__init__.py` (where `__path__` exists).
    package_init: bool,
    found: Vec<Found>,
}

impl<'a> Checker<'a> {
    /// A check with the module scope holding `builtins`.
    pub(crate) fn new(builtins: &rustc_hash::FxHashSet<&'static str>, package_init: bool) -> Self {
        let mut module = Scope::new(ScopeKind::Module);
        for name in builtins {
            let b = Binding { kind: BindingKind::Builtin, at: None, used: None };
            module.names.insert(name.to_string(), b);
        }
        Self {
            scopes: vec![module],
            stack: vec![ScopeId(0)],
            deferred: VecDeque::new(),
            handlers: vec![Vec::new()],
            conditional: 0,
            annotations_postponed: false,
            package_init,
            found: Vec::new(),
        }
    }

    /// Checks the deferred bodies (first in, first out; bodies defined inside them
    /// join the queue) and returns the refusals in source order.
    pub(crate) fn finish(mut self, lines: &LineIndex<'_>) -> Vec<Refusal> {
        while let Some(d) = self.deferred.pop_front() {
            self.stack = d.stack;
            self.handlers = vec![Vec::new()];
            self.conditional = d.conditional as usize;
            self.run(d.body);
        }
        let mut out: Vec<Refusal> = self
            .found
            .into_iter()
            .map(|f| {
                let (line, col) = lines.locate(f.offset);
                let why = match f.why {
                    FoundWhy::Undefined => Why::Undefined,
                    FoundWhy::UnboundLocal(None) => Why::UnboundLocal { outer: Outer::Builtin },
                    FoundWhy::UnboundLocal(Some(at)) => {
                        Why::UnboundLocal { outer: Outer::Line(lines.locate(at).0) }
                    }
                };
                Refusal { offset: f.offset, line, col, name: f.name, why }
            })
            .collect();
        out.sort_by_key(|r| r.offset);
        out
    }

    fn run(&mut self, body: Body<'a>) {
        self.push_scope(ScopeKind::Function);
        let args = match body {
            Body::Function(args, _) | Body::Lambda(args, _) => args,
        };
        let positional = args.posonlyargs.iter().chain(&args.args).chain(&args.kwonlyargs);
        let starred = args.vararg.iter().chain(&args.kwarg).map(|a| &**a);
        for arg in positional.map(|a| &a.def).chain(starred) {
            self.bind(arg.arg.as_str(), at(arg), BindingKind::Plain);
        }
        match body {
            Body::Function(_, stmts) => self.stmts(stmts),
            Body::Lambda(_, e) => self.expr(e),
        }
        self.pop_scope();
    }

    /// Queues `body` for the end of the module.
    pub(crate) fn defer(&mut self, body: Body<'a>) {
        let stack = self.stack.clone();
        self.deferred.push_back(Deferred { body, stack, conditional: self.conditional > 0 });
    }

    pub(crate) fn push_scope(&mut self, kind: ScopeKind) {
        self.scopes.push(Scope::new(kind));
        self.stack.push(ScopeId(self.scopes.len() - 1));
    }

    pub(crate) fn pop_scope(&mut self) {
        self.stack.pop();
    }

    fn current(&self) -> ScopeId {
        *self.stack.last().expect("the module scope stays")
    }

    /// The kind of the innermost scope.
    pub(crate) fn current_kind(&self) -> ScopeKind {
        self.scopes[self.current().0].kind
    }

    /// A read of `name` at byte `offset` (pyflakes' `handleNodeLoad`): the scopes
    /// from the innermost out, class scopes only where the read is directly in the
    /// class body or in comprehensions directly in it; then the builtins (in the
    /// module scope). Refused unless a star import may bind it or a `try` catching
    /// `NameError` encloses it.
    pub(crate) fn load(&mut self, name: &str, offset: usize) {
        let name = &*normalized(name);
        let current = self.current();
        let mut class_visible: Option<bool> = None;
        let mut star = false;
        for &ScopeId(s) in self.stack.iter().rev() {
            let scope = &mut self.scopes[s];
            if scope.kind == ScopeKind::Class {
                if name == "__class__" {
                    return;
                }
                if class_visible == Some(false) {
                    continue;
                }
            }
            if let Some(b) = scope.names.get_mut(name) {
                b.used = Some((current, offset));
                if b.kind != BindingKind::Annotation {
                    return;
                }
                continue;
            }
            star |= scope.star_import;
            if class_visible != Some(false) {
                class_visible = Some(scope.kind == ScopeKind::Generator);
            }
        }
        let exempt = star
            || (name == "__path__" && self.package_init)
            || (CLASS_MAGIC.contains(&name) && self.current_kind() == ScopeKind::Class)
            || self.handlers.last().is_some_and(|h| h.contains(&"NameError"));
        if !exempt {
            self.found.push(Found { offset, name: name.to_string(), why: FoundWhy::Undefined });
        }
    }

    /// An assignment-like binding of `name` (pyflakes' `handleNodeStore`): in a
    /// function that does not bind the name yet, a read of it earlier in this
    /// function that found an enclosing function's or the module's binding is an
    /// UnboundLocalError. A walrus binds in the nearest scope that is not a
    /// comprehension.
    pub(crate) fn store(&mut self, name: &str, offset: usize, kind: BindingKind, walrus: bool) {
        let name = &*normalized(name);
        let current = self.current();
        let scope = &self.scopes[current.0];
        if scope.kind == ScopeKind::Function && !scope.names.contains_key(name) {
            for &ScopeId(s) in &self.stack[..self.stack.len() - 1] {
                let outer = &self.scopes[s];
                if !matches!(outer.kind, ScopeKind::Function | ScopeKind::Module) {
                    continue;
                }
                let Some(b) = outer.names.get(name) else { continue };
                if let Some((user, read_at)) = b.used {
                    if user == current && !ALWAYS_USED.contains(&name) {
                        let why = FoundWhy::UnboundLocal(b.at);
                        self.found.push(Found { offset: read_at, name: name.to_string(), why });
                        break;
                    }
                }
            }
        }
        self.add(name, Binding { kind, at: Some(offset), used: None }, walrus);
    }

    /// A binding that is no assignment (parameters, imports, `def`, `class`:
    /// pyflakes' `addBinding` without `handleNodeStore`).
    pub(crate) fn bind(&mut self, name: &str, offset: usize, kind: BindingKind) {
        let name = &*normalized(name);
        self.add(name, Binding { kind, at: Some(offset), used: None }, false);
    }

    fn add(&mut self, name: &str, mut binding: Binding, walrus: bool) {
        let current = &self.scopes[self.current().0];
        let existing = current.names.get(name);
        if let Some(e) = existing {
            binding.used = e.used;
        }
        if existing.is_some() && binding.kind == BindingKind::Annotation {
            return;
        }
        let mut i = self.stack.len() - 1;
        while walrus && i > 0 && self.scopes[self.stack[i].0].kind == ScopeKind::Generator {
            i -= 1;
        }
        self.scopes[self.stack[i].0].names.insert(name.to_string(), binding);
    }

    /// `del name` (pyflakes' `handleNodeDelete`): unbinds it from the current scope,
    /// refused when that scope does not bind it. Under an `if`, `while` or
    /// conditional expression the deletion may not run: nothing changes (permissive:
    /// a later read of the name is not refused).
    pub(crate) fn delete(&mut self, name: &str, offset: usize) {
        let name = &*normalized(name);
        if self.conditional > 0 {
            return;
        }
        let current = self.current();
        let scope = &mut self.scopes[current.0];
        if scope.kind == ScopeKind::Function && ALWAYS_USED.contains(&name) {
            return;
        }
        if scope.names.remove(name).is_none() {
            self.found.push(Found { offset, name: name.to_string(), why: FoundWhy::Undefined });
        }
    }

    /// `global` / `nonlocal` (pyflakes treats both alike): outside the module, the
    /// name is bound in the module (if not yet) and in every scope from there to the
    /// current one, and earlier refusals of the name are withdrawn (the function may
    /// bind it in the module before the refused read runs).
    pub(crate) fn declare_global(&mut self, names: &[ast::Identifier], offset: usize) {
        let module = self.stack[0];
        if self.current() == module {
            return;
        }
        for name in names {
            let name = &*normalized(name.as_str());
            self.found.retain(|f| !(matches!(f.why, FoundWhy::Undefined) && f.name == name));
            let b = Binding {
                kind: BindingKind::Plain,
                at: Some(offset),
                used: Some((module, offset)),
            };
            self.scopes[module.0].names.entry(name.to_string()).or_insert(b);
            for &ScopeId(s) in &self.stack[1..] {
                self.scopes[s].names.insert(name.to_string(), b);
            }
        }
    }

    /// Removes the current scope's binding of `name` and returns it.
    pub(crate) fn unbind(&mut self, name: &str) -> Option<Binding> {
        let name = &*normalized(name);
        let current = self.current();
        self.scopes[current.0].names.remove(name)
    }

    /// Puts `binding` back as the current scope's binding of `name`.
    pub(crate) fn rebind(&mut self, name: &str, binding: Binding) {
        let name = &*normalized(name);
        let current = self.current();
        self.scopes[current.0].names.insert(name.to_string(), binding);
    }

    /// Whether the current scope binds `name`.
    pub(crate) fn binds(&self, name: &str) -> bool {
        let name = &*normalized(name);
        self.scopes[self.current().0].names.contains_key(name)
    }

    /// Marks the current scope (the module) as having a star import.
    pub(crate) fn star_import(&mut self) {
        let current = self.current();
        self.scopes[current.0].star_import = true;
    }
}

/// A name as Python reads it: NFKC-normalized (`ｗｉｄｔｈ` is `width`).
fn normalized(name: &str) -> Cow<'_, str> {
    if name.is_ascii() {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(name.nfkc().collect())
    }
}

/// The byte offset where a node starts.
pub(crate) fn at(node: &impl ast::Ranged) -> usize {
    node.range().start().to_usize()
}
