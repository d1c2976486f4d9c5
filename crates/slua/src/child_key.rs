//! [`ChildKey`]: what decides the tree of parsers after a completed segment, the key
//! of the memo of trees after the current segment (see [`crate::trie_walk`]'s
//! module doc for what it keeps and leaves out).

use crate::byte_set::is_ws;
use crate::lexeme::Lex;
use crate::scope_trie::KindId;
use crate::tree::Segment;

/// What decides the tree after a completed segment (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ChildKey {
    /// Index of the alternative in the segment.
    alt: u32,
    /// The look-ahead byte (`b' '` for any whitespace), or 256 when the alternative
    /// has no look-ahead.
    la: u16,
    /// The lexeme's text when it is a new name.
    pub(crate) name: Option<Box<[u8]>>,
    /// The kind of the variable when the lexeme is a name in scope: the tree after
    /// it depends on the kind (an actor wants `.`, a number an operator), not on
    /// which name of that kind it is.
    kind: Option<KindId>,
}

impl ChildKey {
    /// The key for completing `seg` (after the carried byte `carry`, if any) with
    /// `seg_bytes` (the segment's bytes after the carried byte; the DFA accepts
    /// them). `None` when they are not UTF-8 or no alternative matches (the tree
    /// would refuse them).
    pub(crate) fn new(seg: &Segment, carry: Option<u8>, seg_bytes: &[u8]) -> Option<ChildKey> {
        std::str::from_utf8(seg_bytes).ok()?;
        let mut full = Vec::with_capacity(seg_bytes.len() + 1);
        full.extend(carry);
        full.extend_from_slice(seg_bytes);
        let k = seg.alts.iter().position(|a| a.matches(&full))?;
        let alt = &seg.alts[k];
        let last = *full.last()?;
        let la = match alt.la {
            Some(_) if is_ws(last) => u16::from(b' '),
            Some(_) => u16::from(last),
            None => 256,
        };
        let lead =
            if alt.done.is_empty() { full.iter().take_while(|b| is_ws(**b)).count() } else { 0 };
        let end = if alt.la.is_some() { full.len() - 1 } else { full.len() };
        let (name, kind) = match &alt.lex {
            Lex::Name { .. } => (Some(full[lead..end].into()), None),
            Lex::Scoped(names) => (None, Some(names.match_len(&full[lead..end])?.1)),
            _ => (None, None),
        };
        Some(ChildKey { alt: k as u32, la, name, kind })
    }
}
