//! The expressions' part of the traversal: names read, bound (targets, walrus) or
//! deleted by their context; comprehensions in their own scope; lambdas deferred;
//! `match` patterns' captures. Attributes after a dot are not names: only the value
//! before the dot is read.

use rustpython_parser::ast::{self, Expr, ExprContext, Pattern};

use crate::checker::{at, Body, Checker};
use crate::scope::{BindingKind, ScopeKind};

impl<'a> Checker<'a> {
    pub(crate) fn exprs(&mut self, es: &'a [Expr]) {
        for e in es {
            self.expr(e);
        }
    }

    pub(crate) fn opt_expr(&mut self, e: Option<&'a Expr>) {
        if let Some(e) = e {
            self.expr(e);
        }
    }

    /// Reads one expression: its loads checked, its bindings made.
    ///
    /// Over 80 lines on purpose (issue 32): one arm per kind of node of rustpython's
    /// `Expr` (27 of them), each a line or a few, so the checker says in one place what
    /// every kind of expression reads and binds; a split would only group arms.
    pub(crate) fn expr(&mut self, e: &'a Expr) {
        match e {
            Expr::Name(n) => match n.ctx {
                ExprContext::Load => self.load(n.id.as_str(), at(n)),
                ExprContext::Store => self.store(n.id.as_str(), at(n), BindingKind::Plain, false),
                ExprContext::Del => self.delete(n.id.as_str(), at(n)),
            },
            Expr::NamedExpr(n) => {
                self.expr(&n.value);
                match &*n.target {
                    Expr::Name(t) => self.store(t.id.as_str(), at(t), BindingKind::Plain, true),
                    other => self.expr(other),
                }
            }
            Expr::BoolOp(b) => self.exprs(&b.values),
            Expr::BinOp(b) => {
                self.expr(&b.left);
                self.expr(&b.right);
            }
            Expr::UnaryOp(u) => self.expr(&u.operand),
            Expr::Lambda(l) => {
                let args = &l.args;
                let all = args.posonlyargs.iter().chain(&args.args).chain(&args.kwonlyargs);
                for default in all.filter_map(|a| a.default.as_deref()) {
                    self.expr(default);
                }
                self.defer(Body::Lambda(&l.args, &l.body));
            }
            Expr::IfExp(i) => {
                self.conditional += 1;
                self.expr(&i.test);
                self.expr(&i.body);
                self.expr(&i.orelse);
                self.conditional -= 1;
            }
            Expr::Dict(d) => {
                for k in d.keys.iter().flatten() {
                    self.expr(k);
                }
                self.exprs(&d.values);
            }
            Expr::Set(s) => self.exprs(&s.elts),
            Expr::ListComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::SetComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::GeneratorExp(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::DictComp(c) => self.comprehension(&c.generators, &[&c.key, &c.value]),
            // pyflakes reads nothing of these outside a function (a SyntaxError there).
            Expr::Await(a) if !self.outside_functions() => self.expr(&a.value),
            Expr::YieldFrom(y) if !self.outside_functions() => self.expr(&y.value),
            Expr::Yield(y) if !self.outside_functions() => self.opt_expr(y.value.as_deref()),
            Expr::Await(_) | Expr::YieldFrom(_) | Expr::Yield(_) => {}
            Expr::Compare(c) => {
                self.expr(&c.left);
                self.exprs(&c.comparators);
            }
            Expr::Call(c) => {
                self.expr(&c.func);
                self.exprs(&c.args);
                for k in &c.keywords {
                    self.expr(&k.value);
                }
            }
            Expr::FormattedValue(f) => {
                self.expr(&f.value);
                self.opt_expr(f.format_spec.as_deref());
            }
            Expr::JoinedStr(j) => self.exprs(&j.values),
            Expr::Constant(_) => {}
            Expr::Attribute(a) => self.expr(&a.value),
            Expr::Subscript(s) => {
                self.expr(&s.value);
                self.expr(&s.slice);
            }
            Expr::Starred(s) => self.expr(&s.value),
            Expr::List(l) => self.exprs(&l.elts),
            Expr::Tuple(t) => self.exprs(&t.elts),
            Expr::Slice(s) => {
                self.opt_expr(s.lower.as_deref());
                self.opt_expr(s.upper.as_deref());
                self.opt_expr(s.step.as_deref());
            }
        }
    }

    /// A comprehension in its own scope: each `for` clause's iterable, target and
    /// conditions in order, then the element(s).
    fn comprehension(&mut self, generators: &'a [ast::Comprehension], elements: &[&'a Expr]) {
        self.push_scope(ScopeKind::Generator);
        for g in generators {
            self.expr(&g.iter);
            self.expr(&g.target);
            self.exprs(&g.ifs);
        }
        for e in elements {
            self.expr(e);
        }
        self.pop_scope();
    }

    /// A `case` pattern: captures bind (`case x`, `case [*rest]`, `case {**kw}`,
    /// `case P() as p`), value patterns read (`case Color.RED`).
    pub(crate) fn pattern(&mut self, p: &'a Pattern) {
        match p {
            Pattern::MatchValue(v) => self.expr(&v.value),
            Pattern::MatchSingleton(_) => {}
            Pattern::MatchSequence(s) => self.patterns(&s.patterns),
            Pattern::MatchMapping(m) => {
                if let Some(rest) = &m.rest {
                    self.store(rest.as_str(), at(m), BindingKind::Plain, false);
                }
                self.exprs(&m.keys);
                self.patterns(&m.patterns);
            }
            Pattern::MatchClass(c) => {
                self.expr(&c.cls);
                self.patterns(&c.patterns);
                self.patterns(&c.kwd_patterns);
            }
            Pattern::MatchStar(s) => {
                if let Some(name) = &s.name {
                    self.store(name.as_str(), at(s), BindingKind::Plain, false);
                }
            }
            Pattern::MatchAs(a) => {
                if let Some(name) = &a.name {
                    self.store(name.as_str(), at(a), BindingKind::Plain, false);
                }
                if let Some(p) = &a.pattern {
                    self.pattern(p);
                }
            }
            Pattern::MatchOr(o) => self.patterns(&o.patterns),
        }
    }

    fn patterns(&mut self, ps: &'a [Pattern]) {
        for p in ps {
            self.pattern(p);
        }
    }
}
