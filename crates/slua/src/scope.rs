//! The environment every parser node sees besides its scope ([`Env`]): the API, the
//! registered effects, the interned variable kinds that scopes bind names to, the
//! compiled segment automata and the memo of look-ahead bytes by [`ChoiceKey`]. The
//! scopes themselves, persistent tries of names, are [`crate::scope_trie`]'s (and
//! re-exported here).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::api::Api;
use crate::byte_set::ByteSet;
use crate::choice_key::ChoiceKey;
use crate::dfa::DfaCache;
use crate::text::Text;
use crate::types::Type;
use crate::viability::Viability;

pub use crate::scope_trie::{Kind, KindId, Scope, ScopeNode};

/// What every parser node can see besides its scope: the API, the effects that
/// earlier scripts registered (callable as `Name(actor, data)`), the table of
/// variable kinds and the compiled segment automata.
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
    /// Interned variable kinds.
    kinds: RefCell<(Vec<Kind>, HashMap<Kind, KindId>)>,
    /// Compiled DFAs of segment regexes (their fixed part); shared with other
    /// environments through [`Env::with_dfas`].
    pub dfas: Rc<DfaCache>,
    /// API functions and registered effects with their types.
    globals: Vec<(Text, Type)>,
    /// Bytes that may start the segment after a node that cannot end, by its
    /// [`ChoiceKey`] (see [`crate::tree::Tree`]'s look-ahead).
    pub firsts: RefCell<rustc_hash::FxHashMap<ChoiceKey, ByteSet>>,
}

impl Env {
    /// An environment over `api` with `effects` already registered.
    pub fn new(api: Api, effects: Vec<String>) -> Env {
        Env::with_dfas(api, effects, Rc::default())
    }

    /// [`Env::new`] sharing compiled segment DFAs with other environments (a decoder
    /// or a server that checks many scripts keeps one [`crate::dfa::DfaCache`]: a
    /// cold one costs a few milliseconds of compiling over a script's first
    /// segments, and its interned word lists let later environments find them).
    pub fn with_dfas(api: Api, effects: Vec<String>, dfas: Rc<DfaCache>) -> Env {
        let reserved = dfas.words(crate::api::RESERVED.iter().map(|s| s.to_string()).collect());
        let mut taken: Vec<String> = api.functions.iter().map(|f| f.name.clone()).collect();
        taken.extend(api.table_names.iter().cloned());
        taken.extend(effects.iter().cloned());
        for hooks in api.hooks.values() {
            taken.extend(hooks.iter().map(|h| h.name.clone()));
        }
        let mut globals: Vec<(Text, Type)> =
            api.functions.iter().map(|f| ((&f.name).into(), f.ty.clone())).collect();
        if let Some(t) = effect_type(&api) {
            globals.extend(effects.iter().map(|e| (e.into(), t.clone())));
        }
        // Sorted: the hooks come from a hash map, in an order that differs between
        // environments, and equal lists must be equal to be shared.
        taken.sort_unstable();
        taken.dedup();
        let taken_upper = dfas.words(taken);
        Env {
            api,
            effects,
            reserved,
            taken_upper,
            kinds: RefCell::default(),
            dfas,
            globals,
            firsts: RefCell::default(),
        }
    }

    /// The id of the kind (`ty`, `assignable`), interned on first use.
    pub fn kind_id(&self, ty: &Type, assignable: bool) -> KindId {
        let kind = Kind { ty: ty.clone(), assignable };
        let mut k = self.kinds.borrow_mut();
        if let Some(id) = k.1.get(&kind) {
            return *id;
        }
        let id = KindId(k.0.len() as u32);
        k.0.push(kind.clone());
        k.1.insert(kind, id);
        id
    }

    /// The kind an id stands for.
    pub fn kind(&self, id: KindId) -> Kind {
        self.kinds.borrow().0[id.0 as usize].clone()
    }

    /// `scope` with a variable `name` of type `ty` added.
    pub fn push(&self, scope: &Scope, name: &str, ty: &Type, assignable: bool) -> Scope {
        scope.with(name, self.kind_id(ty, assignable))
    }

    /// The type of a registered effect used as a function: `(Actor, ParamData) -> void`.
    pub fn effect_type(&self) -> Option<Type> {
        effect_type(&self.api)
    }

    /// Whether expressions can still end in a wanted type (the cache's, see
    /// [`crate::viability`]).
    pub fn viability(&self) -> &Viability {
        self.dfas.viability()
    }

    /// Global callables: API functions and registered effects, with their types.
    pub fn globals(&self) -> &[(Text, Type)] {
        &self.globals
    }
}

fn effect_type(api: &Api) -> Option<Type> {
    let actor = api.table("Actor")?;
    let data = api.table("ParamData")?;
    Some(Type::func(vec![Type::Table(actor), Type::Table(data)], Type::Void))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_shadow_and_kinds_summarise_subtrees() {
        let env = Env::new(Api::dungeon(), vec![]);
        let outer = env.push(
            &env.push(&Scope::default(), "ab", &Type::Number, true),
            "a",
            &Type::String,
            true,
        );
        let inner = env.push(&outer, "ab", &Type::Boolean, false);
        let (num, st, bo) = (
            env.kind_id(&Type::Number, true),
            env.kind_id(&Type::String, true),
            env.kind_id(&Type::Boolean, false),
        );
        assert_eq!(outer.lookup(b"ab"), Some(num));
        assert_eq!(inner.lookup(b"ab"), Some(bo));
        assert_eq!(inner.lookup(b"a"), Some(st));
        assert_eq!(inner.lookup(b"abc"), None);
        assert_eq!((outer.len(), inner.len()), (2, 2));
        // The shadowed kind is gone from the inner scope's summary, kept in the outer.
        let mut want = [st, bo];
        want.sort();
        assert_eq!(inner.kinds(), &want[..]);
        assert!(outer.kinds().contains(&num));
        assert_eq!(inner.names(), vec![("a".to_string(), st), ("ab".to_string(), bo)]);
    }
}
