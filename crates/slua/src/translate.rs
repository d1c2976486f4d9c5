//! Translation of a checked sLua script to Lua 5.4.
//!
//! Type annotations are dropped; `obj.Method(...)` becomes `obj:Method(...)`; number
//! literals become floats (so `%` and `/` never raise integer errors); `..` goes
//! through `__cat`, which caps string length; every loop iteration spends one unit
//! of the per-hook budget `__budget` (the engine sets it before each hook call) and
//! a loop stops after 100 iterations or when the budget is spent; a zero or NaN
//! `for` step becomes 1. Constructors fill in the defaults of omitted optional
//! fields. The chunk returns a table of the script's hooks.

use crate::api::Api;
use crate::ast::{Expr, Item, Script, Stmt};
use crate::ops::BinOp;

/// Lua helpers every translated chunk relies on; the engine loads them once.
pub const PRELUDE: &str = r#"
__budget = 1000
function __cat(a, b)
  local s = a .. b
  if #s > 256 then s = string.sub(s, 1, 256) end
  return s
end
function __step(s)
  if s ~= s or s == 0 then return 1.0 end
  return s
end
function __tick()
  __budget = __budget - 1
  return __budget >= 0
end
"#;

/// Lua source for `script`: a chunk returning `{ kind =, name =, hooks = {...} }`.
pub fn to_lua(script: &Script, api: &Api) -> String {
    let mut w = W { out: String::new(), api, indent: 0 };
    w.line("local __hooks = {}");
    for item in &script.items {
        match item {
            Item::Local(n, e) => {
                let e = w.expr(e);
                w.line(&format!("local {n} = {e}"));
            }
            Item::Hook(n, e) => {
                let e = w.expr(e);
                w.line(&format!("__hooks.{n} = {e}"));
            }
        }
    }
    w.line(&format!(
        "return {{ kind = {:?}, name = {:?}, hooks = __hooks }}",
        script.kind, script.name
    ));
    w.out
}

struct W<'a> {
    out: String,
    api: &'a Api,
    indent: usize,
}

impl W<'_> {
    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn block(&mut self, b: &[Stmt]) {
        self.indent += 1;
        for s in b {
            self.stmt(s);
        }
        self.indent -= 1;
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Local(n, e) => {
                let e = self.expr(e);
                self.line(&format!("local {n} = {e}"));
            }
            Stmt::Assign(t, e) => {
                let (t, e) = (self.expr(t), self.expr(e));
                self.line(&format!("{t} = {e}"));
            }
            Stmt::Call(e) => {
                let e = self.expr(e);
                self.line(&e);
            }
            Stmt::If(arms, other) => {
                for (i, (c, b)) in arms.iter().enumerate() {
                    let c = self.expr(c);
                    self.line(&format!("{} {c} then", if i == 0 { "if" } else { "elseif" }));
                    self.block(b);
                }
                if let Some(b) = other {
                    self.line("else");
                    self.block(b);
                }
                self.line("end");
            }
            Stmt::While(c, b) => {
                let c = self.expr(c);
                self.line("do local __n = 0");
                self.line(&format!("while {c} do"));
                self.line("  __n = __n + 1; if __n > 100 or not __tick() then break end");
                self.block(b);
                self.line("end end");
            }
            Stmt::For(v, a, b, st, body) => {
                let (a, b) = (self.expr(a), self.expr(b));
                let st =
                    st.as_ref().map(|e| format!(", __step({})", self.expr(e))).unwrap_or_default();
                self.line("do local __n = 0");
                self.line(&format!("for {v} = {a}, {b}{st} do"));
                self.line("  __n = __n + 1; if __n > 100 or not __tick() then break end");
                self.block(body);
                self.line("end end");
            }
            Stmt::Do(b) => {
                self.line("do");
                self.block(b);
                self.line("end");
            }
            Stmt::Return(e) => {
                let e = e.as_ref().map(|e| self.expr(e)).unwrap_or_default();
                // `do return end` keeps Lua's "return is last" rule however the block goes on.
                self.line(&format!("do return {e} end"));
            }
            Stmt::Break => self.line("do break end"),
        }
    }

    fn list(&mut self, es: &[Expr]) -> String {
        es.iter().map(|e| self.expr(e)).collect::<Vec<_>>().join(", ")
    }

    fn expr(&mut self, e: &Expr) -> String {
        match e {
            Expr::Num(n) => {
                if n.contains('.') {
                    n.clone()
                } else {
                    format!("{n}.0")
                }
            }
            Expr::Str(s) => s.clone(),
            Expr::Bool(b) => b.to_string(),
            Expr::Name(n) => n.clone(),
            Expr::Field(o, f) => format!("{}.{f}", self.expr(o)),
            Expr::Call(f, a) => {
                let f = self.expr(f);
                format!("{f}({})", self.list(a))
            }
            Expr::Method(o, m, a) => {
                let o = self.expr(o);
                format!("{o}:{m}({})", self.list(a))
            }
            Expr::Bin(l, BinOp::Concat, r) => format!("__cat({}, {})", self.expr(l), self.expr(r)),
            Expr::Bin(l, op, r) => format!("({} {} {})", self.expr(l), op.text(), self.expr(r)),
            Expr::Not(x) => format!("(not {})", self.expr(x)),
            Expr::Neg(x) => format!("(- {})", self.expr(x)),
            Expr::Paren(x) => format!("({})", self.expr(x)),
            Expr::Func(ps, body) => {
                let mut inner = W { out: String::new(), api: self.api, indent: self.indent + 1 };
                for s in body {
                    inner.stmt(s);
                }
                let pad = "  ".repeat(self.indent);
                format!("function({})\n{}{pad}end", ps.join(", "), inner.out)
            }
            Expr::Table(idx, fields) => {
                let mut parts: Vec<String> =
                    fields.iter().map(|(n, e)| format!("{n} = {}", self.expr(e))).collect();
                if let Some(t) = self.api.tables.get(*idx) {
                    for f in &t.fields {
                        if let (Some(d), false) =
                            (&f.default, fields.iter().any(|(n, _)| *n == f.name))
                        {
                            let d = if d.parse::<f64>().is_ok() && !d.contains('.') {
                                format!("{d}.0")
                            } else {
                                d.clone()
                            };
                            parts.push(format!("{} = {d}", f.name));
                        }
                    }
                }
                format!("{{ {} }}", parts.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check;
    use crate::scope::Env;
    use std::rc::Rc;

    #[test]
    fn methods_numbers_loops_and_defaults_are_translated() {
        let api = Api::dungeon();
        let env = Rc::new(Env::new(api.clone(), vec![]));
        let src = "effect E;\nhook OnApply = function(owner, data)\n  local d: ParamData = { power = 1, turns = 2 };\n  while owner.IsAlive() do\n    owner.Heal(1);\n    break;\n  end;\n  Log(\"a\" .. \"b\");\nend;\nhook GetDescription = function(data)\n  return \"x\";\nend;\n";
        let lua = to_lua(&check(env, src).unwrap(), &api);
        assert!(lua.contains("owner:Heal(1.0)"), "{lua}");
        assert!(lua.contains("stacks = 1.0") && lua.contains("label = \"\""), "{lua}");
        assert!(lua.contains("__n > 100") && lua.contains("__cat(\"a\", \"b\")"), "{lua}");
    }
}
