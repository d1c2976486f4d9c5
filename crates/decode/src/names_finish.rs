//! The way out of mode `names`: the bytes that take a text to a complete program the
//! names layer accepts, for the wrap-up when the grammar's own finishing mask is
//! refused by the layer (issue 34).
//!
//! The grammar's finishing mask steers by the grammar's remaining cost alone. Where
//! the layer holds a name open ([`NamesLayer::owed`]), the grammar's shortest way out
//! may read it unbound: after `[x + i for i in r if i` only ` for x in ...` binds `x`
//! before the `]` can come, and after `y = hashlib_md5` only an `=` makes the name a
//! target before the line may end. The plan is built byte by byte from copies of the
//! grammar constraint and the layer:
//! - where the layer owes a name, the first of its settlements
//!   ([`NamesLayer::settlements`]: ` for x in ()`, ` = 0`, ` := 0`, the rest of a name
//!   being typed) that the grammar and the layer take and that lowers what is owed;
//! - otherwise a byte that lowers the grammar's remaining cost
//!   ([`GrammarConstraint::lowering_bytes`]) and that the layer takes, bytes that
//!   cannot start or extend a name first (they open no new obligation), then digits,
//!   then name bytes, each class by least cost;
//!
//! until the grammar is complete and the layer lets the text end, within
//! [`PLAN_LIMIT`] bytes. A plan is exact where it is found (every byte of it was read
//! by both); where none is found (`None`) the caller falls back to the allowed tokens.

use espalier_constraint::{Constraint, GrammarConstraint};
use espalier_names::layer::NamesLayer;

/// The most bytes a plan may take (a way out is the grammar's closers and a few
/// settlements: tens of bytes).
pub const PLAN_LIMIT: usize = 400;

/// The bytes that take the text read by `grammar` and `layer` to a complete program
/// the layer lets end (see the module doc); `None` when the plan finds none within
/// [`PLAN_LIMIT`] bytes. Empty when the text is complete already.
pub fn way_out(grammar: &GrammarConstraint, layer: &NamesLayer) -> Option<Vec<u8>> {
    let (mut g, mut l) = (grammar.clone(), layer.clone());
    let mut out = Vec::new();
    let mut lowering = Vec::new();
    while !(g.is_complete() && l.may_end()) {
        if out.len() > PLAN_LIMIT {
            return None;
        }
        let step = match settlement(&g, &l) {
            Some(s) => s,
            None => vec![lowering_byte(&g, &l, &mut lowering)?],
        };
        g.commit(&step).ok()?;
        if !l.push_bytes(&step) {
            return None;
        }
        out.extend_from_slice(&step);
    }
    Some(out)
}

/// The first settlement of what `l` owes that the grammar and the layer take where
/// the text is and that lowers what is owed.
fn settlement(g: &GrammarConstraint, l: &NamesLayer) -> Option<Vec<u8>> {
    let owed = l.owed();
    if owed == 0 {
        return None;
    }
    l.settlements().into_iter().find(|s| {
        let mut after = l.clone();
        g.allows(s) && after.push_bytes(s) && after.owed() < owed
    })
}

/// A byte that lowers the grammar's remaining cost and that the layer takes, in the
/// order of the module doc (`scratch`: the lowering bytes, reused).
fn lowering_byte(
    g: &GrammarConstraint,
    l: &NamesLayer,
    scratch: &mut Vec<(u8, u32)>,
) -> Option<u8> {
    g.lowering_bytes(scratch)?;
    scratch.sort_by_key(|&(b, cost)| (class(b), cost, b));
    scratch.iter().map(|&(b, _)| b).find(|&b| l.clone().push_byte(b))
}

/// 0: a byte that cannot start or extend a name; 1: a digit; 2: a name byte.
fn class(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => 1,
        b'a'..=b'z' | b'A'..=b'Z' | b'_' | 0x80.. => 2,
        _ => 0,
    }
}
