//! The statements' part of the traversal: what each statement reads and binds, in
//! pyflakes' order (an assignment's value before its targets, a `for`'s iterable
//! before its target, decorators and defaults where the `def` runs, bodies deferred).

use rustpython_parser::ast::{self, Expr, Stmt};

use crate::checker::{at, Body, Checker};
use crate::scope::{BindingKind, ScopeKind};

/// [`Checker::function_def`] on a `def` or an `async def`: rustpython's two node types
/// have the same fields but no common type, so a macro names the fields once.
macro_rules! function_def {
    ($checker:expr, $stmt:expr, $f:expr) => {
        $checker.function_def(
            $stmt,
            &$f.decorator_list,
            &$f.args,
            $f.returns.as_deref(),
            &$f.body,
            &$f.name,
        )
    };
}

impl<'a> Checker<'a> {
    /// Reads statements in order.
    pub(crate) fn stmts(&mut self, body: &'a [Stmt]) {
        for s in body {
            self.stmt(s);
        }
    }

    /// Reads one statement: what it binds, what it reads, the bodies it defers (one arm
    /// per kind of node of rustpython's `Stmt`, each a line or a few).
    fn stmt(&mut self, s: &'a Stmt) {
        match s {
            Stmt::FunctionDef(f) => function_def!(self, s, f),
            Stmt::AsyncFunctionDef(f) => function_def!(self, s, f),
            Stmt::ClassDef(c) => self.class_def(s, c),
            Stmt::Return(r) => {
                // pyflakes reads nothing of a `return` outside a function.
                if !self.outside_functions() {
                    self.opt_expr(r.value.as_deref());
                }
            }
            Stmt::Delete(d) => self.exprs(&d.targets),
            Stmt::Assign(a) => {
                self.expr(&a.value);
                self.exprs(&a.targets);
            }
            Stmt::TypeAlias(t) => self.expr(&t.name),
            Stmt::AugAssign(a) => {
                // The target is read first: `x += 1` needs `x` bound.
                if let Expr::Name(n) = &*a.target {
                    self.load(n.id.as_str(), at(n));
                }
                self.expr(&a.value);
                self.expr(&a.target);
            }
            Stmt::AnnAssign(a) => self.ann_assign(a),
            Stmt::For(f) => self.for_loop(&f.iter, &f.target, &f.body, &f.orelse),
            Stmt::AsyncFor(f) => self.for_loop(&f.iter, &f.target, &f.body, &f.orelse),
            Stmt::While(w) => self.conditional_branch(&w.test, &w.body, &w.orelse),
            Stmt::If(i) => self.conditional_branch(&i.test, &i.body, &i.orelse),
            Stmt::With(w) => self.with(&w.items, &w.body),
            Stmt::AsyncWith(w) => self.with(&w.items, &w.body),
            Stmt::Match(m) => {
                self.expr(&m.subject);
                for case in &m.cases {
                    self.pattern(&case.pattern);
                    self.opt_expr(case.guard.as_deref());
                    self.stmts(&case.body);
                }
            }
            Stmt::Raise(r) => {
                self.opt_expr(r.exc.as_deref());
                self.opt_expr(r.cause.as_deref());
            }
            Stmt::Try(t) => self.try_stmt(&t.body, &t.handlers, &t.orelse, &t.finalbody),
            Stmt::TryStar(t) => self.try_stmt(&t.body, &t.handlers, &t.orelse, &t.finalbody),
            Stmt::Assert(a) => {
                self.expr(&a.test);
                self.opt_expr(a.msg.as_deref());
            }
            Stmt::Import(i) => {
                for alias in &i.names {
                    // `import a.b.c` binds `a`.
                    let name = match &alias.asname {
                        Some(n) => n.as_str(),
                        None => alias.name.split('.').next().unwrap_or(&alias.name),
                    };
                    self.bind(name, at(alias), BindingKind::Plain);
                }
            }
            Stmt::ImportFrom(i) => self.import_from(i),
            Stmt::Global(g) => self.declare_global(&g.names, at(s)),
            Stmt::Nonlocal(n) => self.declare_global(&n.names, at(s)),
            Stmt::Expr(e) => self.expr(&e.value),
            Stmt::Pass(_) | Stmt::Break(_) | Stmt::Continue(_) => {}
        }
    }

    /// Whether the innermost scope is the module or a class body.
    pub(crate) fn outside_functions(&self) -> bool {
        matches!(self.current_kind(), ScopeKind::Module | ScopeKind::Class)
    }

    fn function_def(
        &mut self,
        s: &'a Stmt,
        decorators: &'a [Expr],
        args: &'a ast::Arguments,
        returns: Option<&'a Expr>,
        body: &'a [Stmt],
        name: &ast::Identifier,
    ) {
        self.exprs(decorators);
        let all = args.posonlyargs.iter().chain(&args.args).chain(&args.kwonlyargs);
        let starred = args.vararg.iter().chain(&args.kwarg).map(|a| &**a);
        for arg in all.clone().map(|a| &a.def).chain(starred) {
            if let Some(a) = &arg.annotation {
                self.annotation(a);
            }
        }
        if let Some(r) = returns {
            self.annotation(r);
        }
        for default in all.filter_map(|a| a.default.as_deref()) {
            self.expr(default);
        }
        self.defer(Body::Function(args, body));
        self.bind(name.as_str(), at(s), BindingKind::Plain);
    }

    fn class_def(&mut self, s: &'a Stmt, c: &'a ast::StmtClassDef) {
        self.exprs(&c.decorator_list);
        self.exprs(&c.bases);
        for k in &c.keywords {
            self.expr(&k.value);
        }
        self.push_scope(ScopeKind::Class);
        self.stmts(&c.body);
        self.pop_scope();
        self.bind(c.name.as_str(), at(s), BindingKind::Plain);
    }

    fn ann_assign(&mut self, a: &'a ast::StmtAnnAssign) {
        self.annotation(&a.annotation);
        if let Some(v) = &a.value {
            // `X: TypeAlias = ...`: the value is an annotation too.
            if is_type_alias(&a.annotation) {
                self.annotation(v);
            } else {
                self.expr(v);
            }
        }
        match (&*a.target, &a.value) {
            (Expr::Name(n), None) => {
                self.store(n.id.as_str(), at(n), BindingKind::Annotation, false)
            }
            (target, _) => self.expr(target),
        }
    }

    /// An annotation: read where it is written, unless it is a string (a forward
    /// reference; its names are not checked: permissive) or annotations are
    /// postponed by `from __future__ import annotations` (not evaluated at all; not
    /// checked: permissive, where pyflakes checks them at the end of the module).
    pub(crate) fn annotation(&mut self, e: &'a Expr) {
        let is_string = matches!(e, Expr::Constant(c) if c.value.is_str());
        if !is_string && !self.annotations_postponed {
            self.expr(e);
        }
    }

    fn for_loop(&mut self, iter: &'a Expr, target: &'a Expr, body: &'a [Stmt], orelse: &'a [Stmt]) {
        self.expr(iter);
        self.expr(target);
        self.stmts(body);
        self.stmts(orelse);
    }

    fn conditional_branch(&mut self, test: &'a Expr, body: &'a [Stmt], orelse: &'a [Stmt]) {
        self.conditional += 1;
        self.expr(test);
        self.stmts(body);
        self.stmts(orelse);
        self.conditional -= 1;
    }

    fn with(&mut self, items: &'a [ast::WithItem], body: &'a [Stmt]) {
        for item in items {
            self.expr(&item.context_expr);
            self.opt_expr(item.optional_vars.as_deref());
        }
        self.stmts(body);
    }

    fn import_from(&mut self, i: &'a ast::StmtImportFrom) {
        let future = i.module.as_ref().is_some_and(|m| m.as_str() == "__future__");
        for alias in &i.names {
            if alias.name.as_str() == "*" {
                // Only a module may star-import (elsewhere a SyntaxError).
                if self.current_kind() == ScopeKind::Module {
                    self.star_import();
                }
                continue;
            }
            if future && alias.name.as_str() == "annotations" {
                self.annotations_postponed = true;
            }
            let name = alias.asname.as_ref().unwrap_or(&alias.name);
            self.bind(name.as_str(), at(alias), BindingKind::Plain);
        }
    }

    /// `try`: the body is read with the names its handlers catch in hand (a read
    /// there is not refused when one is `NameError`), then the handlers, `else` and
    /// `finally`.
    fn try_stmt(
        &mut self,
        body: &'a [Stmt],
        handlers: &'a [ast::ExceptHandler],
        orelse: &'a [Stmt],
        finalbody: &'a [Stmt],
    ) {
        let mut caught = Vec::new();
        for ast::ExceptHandler::ExceptHandler(h) in handlers {
            match h.type_.as_deref() {
                Some(Expr::Tuple(t)) => caught.extend(t.elts.iter().filter_map(name_of)),
                Some(e) => caught.extend(name_of(e)),
                None => {}
            }
        }
        self.handlers.push(caught);
        self.stmts(body);
        self.handlers.pop();
        for ast::ExceptHandler::ExceptHandler(h) in handlers {
            self.except_handler(h);
        }
        self.stmts(orelse);
        self.stmts(finalbody);
    }

    /// `except E as e:` binds `e` for the handler only: Python deletes it at the
    /// handler's end, and a binding it hid comes back (as pyflakes has it).
    fn except_handler(&mut self, h: &'a ast::ExceptHandlerExceptHandler) {
        let Some(name) = &h.name else {
            self.opt_expr(h.type_.as_deref());
            self.stmts(&h.body);
            return;
        };
        let (name, offset) = (name.as_str(), at(h));
        if self.binds(name) {
            self.store(name, offset, BindingKind::Plain, false);
        }
        let hidden = self.unbind(name);
        self.store(name, offset, BindingKind::Plain, false);
        self.opt_expr(h.type_.as_deref());
        self.stmts(&h.body);
        self.unbind(name);
        if let Some(b) = hidden {
            self.rebind(name, b);
        }
    }
}

/// The name of an exception in an `except` clause, as pyflakes takes it (a plain name;
/// `module.Error` gives none).
fn name_of(e: &Expr) -> Option<&str> {
    match e {
        Expr::Name(n) => Some(n.id.as_str()),
        _ => None,
    }
}

/// Whether an annotation names `TypeAlias` (`TypeAlias` or `typing.TypeAlias`).
fn is_type_alias(e: &Expr) -> bool {
    match e {
        Expr::Name(n) => n.id.as_str() == "TypeAlias",
        Expr::Attribute(a) => a.attr.as_str() == "TypeAlias",
        _ => false,
    }
}
