//! Scopes as persistent tries of names, and the environment every parser node sees.
//!
//! A parser node keeps the [`Scope`] it sees; cloning the tree of parsers (done for
//! every look-ahead and every token tried) copies no names. A scope is a byte trie
//! of the visible names, each bound to a [`KindId`] (its type and whether scripts may
//! assign it); every trie node also lists the kinds bound somewhere below it. Adding
//! a name copies only the nodes on its path (path copying), so a declaration costs
//! its length times the fan-out, not the number of names in scope, and an inner
//! declaration shadows an outer one by rebinding the same trie node.
//!
//! This is what lets a segment offer "any name in scope of a fitting type" without
//! listing the names: the segment automaton ([`crate::seg_auto`]) walks the trie
//! and a prefix is alive while its node lists an accepted kind. Listing the names
//! (a regex alternative per name, rebuilt and recompiled at every statement) made a
//! script of 2,000 locals take minutes to check.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::api::Api;
use crate::types::Type;

/// The interned kind of a variable: its type and whether it is assignable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KindId(pub u32);

/// What a [`KindId`] stands for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Kind {
    /// The static type.
    pub ty: Type,
    /// Whether scripts may assign it (false for loop variables).
    pub assignable: bool,
}

/// One node of a scope trie.
#[derive(Debug, Default)]
pub struct ScopeNode {
    /// Children by next byte, sorted by byte.
    children: Vec<(u8, Rc<ScopeNode>)>,
    /// The kind of the name ending here, if one does.
    binding: Option<KindId>,
    /// Every kind bound at or below this node, sorted, no repeats.
    kinds: Rc<[KindId]>,
}

impl ScopeNode {
    /// The child after byte `b`.
    pub fn child(&self, b: u8) -> Option<&Rc<ScopeNode>> {
        self.children.binary_search_by_key(&b, |c| c.0).ok().map(|i| &self.children[i].1)
    }

    /// The kind of the name ending here.
    pub fn binding(&self) -> Option<KindId> {
        self.binding
    }

    /// The kinds bound at or below this node.
    pub fn kinds(&self) -> &[KindId] {
        &self.kinds
    }

    /// The children, by increasing byte.
    pub fn children(&self) -> impl Iterator<Item = (u8, &Rc<ScopeNode>)> {
        self.children.iter().map(|(b, c)| (*b, c))
    }

    fn with(&self, name: &[u8], kind: KindId) -> ScopeNode {
        let mut children = self.children.clone();
        let mut binding = self.binding;
        match name.split_first() {
            None => binding = Some(kind),
            Some((&b, rest)) => {
                let empty = ScopeNode::default();
                match children.binary_search_by_key(&b, |c| c.0) {
                    Ok(i) => children[i].1 = Rc::new(children[i].1.with(rest, kind)),
                    Err(i) => children.insert(i, (b, Rc::new(empty.with(rest, kind)))),
                }
            }
        }
        let mut kinds: Vec<KindId> = binding.into_iter().collect();
        for (_, c) in &children {
            kinds.extend_from_slice(&c.kinds);
        }
        kinds.sort_unstable();
        kinds.dedup();
        ScopeNode { children, binding, kinds: kinds.into() }
    }
}

/// The visible variables: a persistent trie of names (the empty scope by default).
#[derive(Clone, Debug, Default)]
pub struct Scope {
    root: Option<Rc<ScopeNode>>,
    len: usize,
}

impl Scope {
    /// This scope with `name` bound to `kind` (shadowing any outer `name`).
    pub fn with(&self, name: &str, kind: KindId) -> Scope {
        let new = self.lookup(name.as_bytes()).is_none();
        let root = self.root.as_deref().map_or_else(
            || ScopeNode::default().with(name.as_bytes(), kind),
            |r| r.with(name.as_bytes(), kind),
        );
        Scope { root: Some(Rc::new(root)), len: self.len + usize::from(new) }
    }

    /// The kind `name` is bound to.
    pub fn lookup(&self, name: &[u8]) -> Option<KindId> {
        let mut node = self.root.as_deref()?;
        for &b in name {
            node = node.child(b)?;
        }
        node.binding
    }

    /// The trie's root (`None` for the empty scope).
    pub fn root(&self) -> Option<&Rc<ScopeNode>> {
        self.root.as_ref()
    }

    /// The kinds bound in the scope.
    pub fn kinds(&self) -> &[KindId] {
        self.root.as_deref().map_or(&[], |r| &r.kinds)
    }

    /// The number of visible names.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no name is visible.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every visible name with its kind, in byte order (costs the scope's size: for
    /// regexes shown to people and for the random walker).
    pub fn names(&self) -> Vec<(String, KindId)> {
        fn go(node: &ScopeNode, path: &mut Vec<u8>, out: &mut Vec<(String, KindId)>) {
            if let Some(k) = node.binding {
                out.push((String::from_utf8_lossy(path).into_owned(), k));
            }
            for (b, c) in &node.children {
                path.push(*b);
                go(c, path, out);
                path.pop();
            }
        }
        let mut out = Vec::with_capacity(self.len);
        if let Some(r) = &self.root {
            go(r, &mut Vec::new(), &mut out);
        }
        out
    }
}

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
    pub dfas: Rc<crate::dfa::DfaCache>,
    /// API functions and registered effects with their types.
    globals: Vec<(crate::text::Text, Type)>,
    /// Bytes that may start the segment after a node that cannot end, by its
    /// [`crate::node::ChoiceKey`] (see [`crate::tree::Tree`]'s look-ahead).
    pub firsts: RefCell<rustc_hash::FxHashMap<crate::node::ChoiceKey, crate::byte_set::ByteSet>>,
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
    pub fn with_dfas(api: Api, effects: Vec<String>, dfas: Rc<crate::dfa::DfaCache>) -> Env {
        let reserved = dfas.words(crate::api::RESERVED.iter().map(|s| s.to_string()).collect());
        let mut taken: Vec<String> = api.functions.iter().map(|f| f.name.clone()).collect();
        taken.extend(api.table_names.iter().cloned());
        taken.extend(effects.iter().cloned());
        for hooks in api.hooks.values() {
            taken.extend(hooks.iter().map(|h| h.name.clone()));
        }
        let mut globals: Vec<(crate::text::Text, Type)> =
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
    pub fn viability(&self) -> &crate::viability::Viability {
        self.dfas.viability()
    }

    /// Global callables: API functions and registered effects, with their types.
    pub fn globals(&self) -> &[(crate::text::Text, Type)] {
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
        let mut want = vec![st, bo];
        want.sort();
        assert_eq!(inner.kinds(), &want[..]);
        assert!(outer.kinds().contains(&num));
        assert_eq!(inner.names(), vec![("a".to_string(), st), ("ab".to_string(), bo)]);
    }
}
