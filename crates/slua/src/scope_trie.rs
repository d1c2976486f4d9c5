//! Scopes as persistent tries of names (the environment that interns their kinds is
//! [`crate::scope::Env`]).
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

use std::rc::Rc;

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
