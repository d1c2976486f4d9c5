//! The lexeme "a name in scope of a fitting kind", offered as one choice however many
//! names are in scope.
//!
//! A statement may start with any assignable or callable variable, an operand may be
//! any variable whose type reaches the wanted one. Listing each name as a literal
//! made every segment cost the size of the scope (and the next segment after each
//! name one look-ahead computation per name). [`ScopedNames`] keeps the scope's trie
//! ([`crate::scope`]) and the accepted kinds, each with its look-ahead class (what may
//! follow a variable of that kind: `.`, `(`, `=`, an operator...), so a segment costs
//! the number of distinct kinds, and the segment automaton walks the trie.

use std::rc::Rc;

use crate::byte_set::{is_ident_byte, ByteSet, WS};
use crate::regex_escape::escape;
use crate::scope_trie::{KindId, Scope, ScopeNode};

/// One accepted kind of a [`ScopedNames`] choice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcceptedKind {
    /// The kind.
    pub id: KindId,
    /// Whether its type is a function type (the finishing order ranks those last).
    pub is_func: bool,
    /// The look-ahead class after a name of this kind (filled when the segment is
    /// built; empty in a node's choices).
    pub la: ByteSet,
}

/// The names of `scope` bound to one of `kinds`.
#[derive(Clone, Debug)]
pub struct ScopedNames {
    /// The scope.
    pub scope: Scope,
    /// The accepted kinds, sorted by id.
    pub kinds: Vec<AcceptedKind>,
    /// Whether the variable taken keeps its assignability (statement start) or is
    /// read only (operand).
    pub assignable: bool,
}

impl PartialEq for ScopedNames {
    fn eq(&self, other: &Self) -> bool {
        let same_scope = match (self.scope.root(), other.scope.root()) {
            (Some(a), Some(b)) => Rc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same_scope && self.kinds == other.kinds && self.assignable == other.assignable
    }
}

impl Eq for ScopedNames {}

impl ScopedNames {
    /// The accepted kind `id`, if accepted.
    pub fn accepted(&self, id: KindId) -> Option<&AcceptedKind> {
        self.kinds.binary_search_by_key(&id, |k| k.id).ok().map(|i| &self.kinds[i])
    }

    /// Whether some accepted name lies at or below `node`.
    #[inline]
    pub fn live(&self, node: &ScopeNode) -> bool {
        node.kinds().iter().any(|k| self.accepted(*k).is_some())
    }

    /// The look-ahead class after a name ending at `node`, if an accepted one does.
    #[inline]
    pub fn la_at(&self, node: &ScopeNode) -> Option<ByteSet> {
        self.accepted(node.binding()?).map(|k| k.la)
    }

    /// The accepted name's node after `node` and byte `b`, if alive.
    #[inline]
    pub fn step<'n>(&self, node: &'n ScopeNode, b: u8) -> Option<&'n Rc<ScopeNode>> {
        node.child(b).filter(|c| self.live(c))
    }

    /// Bytes an accepted name starts with.
    pub fn first(&self) -> ByteSet {
        let mut set = ByteSet::default();
        if let Some(root) = self.scope.root() {
            for (b, c) in root.children() {
                if self.live(c) {
                    set.insert(b);
                }
            }
        }
        set
    }

    /// The length and kind of the accepted name at the start of `s` (the whole run
    /// of identifier bytes).
    pub fn match_len(&self, s: &[u8]) -> Option<(usize, KindId)> {
        let n = s.iter().take_while(|b| is_ident_byte(**b)).count();
        let k = self.scope.lookup(&s[..n])?;
        (n > 0 && self.accepted(k).is_some()).then_some((n, k))
    }

    /// The accepted names starting with `done`, with their kinds (costs the scope's
    /// size: for regexes shown to people and the random walker).
    pub fn names(&self, done: &[u8]) -> Vec<(String, &AcceptedKind)> {
        self.scope
            .names()
            .into_iter()
            .filter(|(n, _)| n.as_bytes().starts_with(done))
            .filter_map(|(n, k)| Some((n, self.accepted(k)?)))
            .collect()
    }

    /// The regex of the alternative: per accepted kind, optional whitespace (when
    /// `done` is empty), the names of that kind after `done`, the kind's look-ahead.
    pub fn regex(&self, done: &[u8]) -> String {
        let names = self.names(done);
        let mut alts = Vec::new();
        for k in &self.kinds {
            let group: Vec<String> = names
                .iter()
                .filter(|(_, a)| a.id == k.id)
                .map(|(n, _)| escape(&n[done.len()..]))
                .collect();
            if group.is_empty() {
                continue;
            }
            let ws = if done.is_empty() { WS } else { "" };
            alts.push(format!("{ws}(?:{}){}", group.join("|"), k.la.class()));
        }
        match alts.len() {
            0 => "[^\\x00-\\xff]".to_string(),
            _ => alts.join("|"),
        }
    }

    /// A shortest accepted name starting with `first` (when given), preferring kinds
    /// that are not functions (the finishing plan must not nest calls forever).
    /// Breadth-first over the trie, so it costs the names no longer than the answer.
    pub fn shortest(&self, first: Option<u8>) -> Option<String> {
        let root = self.scope.root()?;
        let start: Vec<(Vec<u8>, &ScopeNode)> = match first {
            Some(c) => vec![(vec![c], self.step(root, c)?)],
            None => vec![(Vec::new(), root)],
        };
        let pick = |want_func: Option<bool>| {
            let mut level = start.clone();
            while !level.is_empty() {
                for (path, node) in &level {
                    if let Some(k) = node.binding().and_then(|k| self.accepted(k)) {
                        if want_func.is_none_or(|f| f == k.is_func) && !path.is_empty() {
                            return Some(String::from_utf8_lossy(path).into_owned());
                        }
                    }
                }
                let mut next = Vec::new();
                for (path, node) in &level {
                    for (b, c) in node.children() {
                        if self.live(c) {
                            let mut p = path.clone();
                            p.push(b);
                            next.push((p, &**c));
                        }
                    }
                }
                level = next;
            }
            None
        };
        pick(Some(false)).or_else(|| pick(None))
    }
}
