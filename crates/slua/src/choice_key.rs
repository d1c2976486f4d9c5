//! [`ChoiceKey`]: what the choices of a statement or prefix node depend on, when they
//! depend on nothing but the key and the API (not on the scope). The environment
//! memoises the bytes that may start the segment after such a node by this key (see
//! [`crate::tree::Tree`]'s look-ahead).

use crate::ops::TypeSet;
use crate::types::Type;

/// What the choices of a statement or prefix node depend on
/// ([`crate::node::Frame::choice_key`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ChoiceKey {
    /// A statement: the current type, lvalue, called, and its state
    /// ([`crate::node::StmtState`] as its discriminant).
    Stmt(Type, bool, bool, u8),
    /// A prefix: the current type, the target types, and its state
    /// ([`crate::node::PrefixState`] as its discriminant).
    Prefix(Type, TypeSet, u8),
}
