//! Scopes as persistent linked lists: a parser node keeps an `Rc` to the scope it
//! sees, so cloning the tree of parsers (done for every look-ahead and every token
//! tried) never copies the variables defined so far.

use std::rc::Rc;

use crate::api::Api;
use crate::types::Type;

/// One variable in scope, linked to the ones defined before it.
#[derive(Debug)]
pub struct ScopeNode {
    /// Variable name.
    pub name: String,
    /// Its static type.
    pub ty: Type,
    /// Whether scripts may assign it (false for loop variables).
    pub assignable: bool,
    /// The rest of the scope.
    pub parent: Scope,
}

/// A scope: the innermost variable first (`None` is the empty scope).
pub type Scope = Option<Rc<ScopeNode>>;

/// Adds a variable in front of a scope.
pub fn push(scope: &Scope, name: &str, ty: Type, assignable: bool) -> Scope {
    Some(Rc::new(ScopeNode { name: name.to_string(), ty, assignable, parent: scope.clone() }))
}

/// The visible variables, innermost first, shadowed ones left out.
pub fn visible(scope: &Scope) -> Vec<&ScopeNode> {
    let mut out: Vec<&ScopeNode> = Vec::new();
    let mut cur = scope.as_deref();
    while let Some(node) = cur {
        if !out.iter().any(|n| n.name == node.name) {
            out.push(node);
        }
        cur = node.parent.as_deref();
    }
    out
}

/// What every parser node can see besides its scope: the API and the effects that
/// earlier scripts registered (callable as `Name(actor, data)`).
#[derive(Debug)]
pub struct Env {
    /// The scripting API.
    pub api: Api,
    /// Names of registered effects.
    pub effects: Vec<String>,
    /// Words a new local name may not be.
    pub reserved: Rc<Vec<String>>,
    /// Words a new effect or talent name may not be (API names, effects).
    pub taken_upper: Rc<Vec<String>>,
}

impl Env {
    /// An environment over `api` with `effects` already registered.
    pub fn new(api: Api, effects: Vec<String>) -> Env {
        let reserved = Rc::new(crate::api::RESERVED.iter().map(|s| s.to_string()).collect());
        let mut taken: Vec<String> = api.functions.iter().map(|f| f.name.clone()).collect();
        taken.extend(api.table_names.iter().cloned());
        taken.extend(effects.iter().cloned());
        for hooks in api.hooks.values() {
            taken.extend(hooks.iter().map(|h| h.name.clone()));
        }
        Env { api, effects, reserved, taken_upper: Rc::new(taken) }
    }

    /// The type of a registered effect used as a function: `(Actor, ParamData) -> void`.
    pub fn effect_type(&self) -> Option<Type> {
        let actor = self.api.table("Actor")?;
        let data = self.api.table("ParamData")?;
        Some(Type::func(vec![Type::Table(actor), Type::Table(data)], Type::Void))
    }

    /// Global callables: API functions and registered effects, with their types.
    pub fn globals(&self) -> Vec<(&str, Type)> {
        let mut out: Vec<(&str, Type)> = self.api.functions.iter().map(|f| (f.name.as_str(), f.ty.clone())).collect();
        if let Some(t) = self.effect_type() {
            out.extend(self.effects.iter().map(|e| (e.as_str(), t.clone())));
        }
        out
    }
}
