//! The root node: a whole script, `effect Name;` or `talent Name;`, then top-level
//! locals and hooks (`hook Name = function(...) ... end;`) until the last hook, which
//! may come only after every required one.

use crate::scope::Env;
use crate::scope_trie::Scope;
use crate::types::Type;

use super::protocol::{kw, Act, Child, Choice, Ctx, Sum};

/// Where a script is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootState {
    /// Before `effect` or `talent`.
    Kind,
    /// Before the script's name.
    Name,
    /// Before the `;` of the header.
    HeaderSemi,
    /// Before a top-level `local` or `hook` (a local statement may be running).
    Items,
    /// Before the hook's name.
    HookName,
    /// Before the hook's `=`.
    HookEq,
    /// Before the hook's `function`.
    HookFunction,
    /// The hook's function expression is running.
    HookBody,
    /// Before the `;` after the hook's function.
    HookSemi,
    /// The last hook is done: the script is complete.
    Done,
}

/// A whole script.
#[derive(Clone, Debug)]
pub struct Root {
    /// `effect` or `talent`; empty until the first word when either may come.
    pub kind: String,
    /// Where the script is.
    pub state: RootState,
    /// The hook being written, by index in the kind's hooks.
    pub hook: usize,
    /// The hooks written, by index.
    pub done: Vec<bool>,
    /// The top-level locals.
    pub scope: Scope,
}

impl Root {
    /// The root of a script of `kind` (`effect`, `talent`, or empty for either).
    pub fn new(kind: &str) -> Root {
        Root {
            kind: kind.to_string(),
            state: RootState::Kind,
            hook: 0,
            done: Vec::new(),
            scope: Scope::default(),
        }
    }

    /// The lexemes accepted next.
    pub fn choices(&self, env: &Env) -> Vec<Choice> {
        match self.state {
            RootState::Kind if self.kind.is_empty() => {
                let mut kinds: Vec<&String> = env.api.hooks.keys().collect();
                kinds.sort();
                kinds.into_iter().map(kw).collect()
            }
            RootState::Kind => vec![kw(&self.kind)],
            RootState::Name => vec![Choice::new_name(true, &env.taken_upper)],
            RootState::HeaderSemi | RootState::HookSemi => vec![kw(";")],
            RootState::Items => vec![kw("local"), kw("hook")],
            RootState::HookName => self.hook_choices(env),
            RootState::HookEq => vec![kw("=")],
            RootState::HookFunction => vec![kw("function")],
            RootState::HookBody | RootState::Done => vec![],
        }
    }

    /// The hooks not written yet; the last one only once every required one is.
    fn hook_choices(&self, env: &Env) -> Vec<Choice> {
        let written = |i: usize| self.done.get(i).copied().unwrap_or(false);
        let hooks = &env.api.hooks[&self.kind];
        let last = hooks.len() - 1;
        let required_done =
            hooks[..last].iter().enumerate().all(|(i, h)| !h.required || written(i));
        hooks
            .iter()
            .enumerate()
            .filter(|(i, _)| !written(*i) && (*i < last || required_done))
            .map(|(i, h)| Choice::lit(&h.name, Act::Hook(i)))
            .collect()
    }

    /// Takes the choice: moves on, returns the children to push.
    pub fn step(&mut self, act: &Act, text: &str, env: &Env) -> Vec<Child> {
        match (self.state, act) {
            (RootState::Kind, _) => {
                self.kind = text.to_string();
                self.state = RootState::Name;
            }
            (RootState::Name, _) => self.state = RootState::HeaderSemi,
            (RootState::HeaderSemi, _) => self.state = RootState::Items,
            (RootState::Items, _) if text == "local" => return vec![Child::Local(self.ctx())],
            (RootState::Items, _) => self.state = RootState::HookName,
            (RootState::HookName, Act::Hook(i)) => {
                self.hook = *i;
                self.state = RootState::HookEq;
            }
            (RootState::HookEq, _) => self.state = RootState::HookFunction,
            (RootState::HookFunction, _) => {
                self.state = RootState::HookBody;
                let h = &env.api.hooks[self.kind.as_str()][self.hook];
                if let Type::Func(ft) = &h.ty {
                    return vec![Child::Func(self.ctx(), ft.clone(), h.param_names.clone())];
                }
            }
            (RootState::HookSemi, _) => self.end_hook(env),
            _ => {}
        }
        vec![]
    }

    /// Marks the hook written: the script is done after the last one.
    fn end_hook(&mut self, env: &Env) {
        if self.done.len() <= self.hook {
            self.done.resize(self.hook + 1, false);
        }
        self.done[self.hook] = true;
        let last = env.api.hooks[self.kind.as_str()].len() - 1;
        self.state = if self.hook == last { RootState::Done } else { RootState::Items };
    }

    fn ctx(&self) -> Ctx {
        Ctx { scope: self.scope.clone(), ret: Type::Void, in_loop: false }
    }

    /// Takes a finished child's summary: a top-level local joins the scope.
    pub fn child_done(&mut self, sum: &Sum, env: &Env) {
        match (self.state, sum) {
            (RootState::Items, Sum::Stmt(_, _, Some((n, t)))) => {
                self.scope = env.push(&self.scope, n, t, true)
            }
            (RootState::HookBody, _) => self.state = RootState::HookSemi,
            _ => {}
        }
    }
}
