//! *Viability*: whether an expression can still end in the wanted type, asked for
//! every operand and operator an expression node offers, so that generation never
//! paints itself into a corner (`1 +` when a string is wanted).
//!
//! [`Viability`] answers it and owns what answering needs: a table of every packed
//! operator stack over base types reachable from an empty one, with the base types
//! each can end in, and a memo of the search for stacks outside it. One lives in each
//! [`crate::dfa::DfaCache`] (the compiled automata environments share). Building the
//! table takes about 1.1 ms (1.8 before its states were numbered as met): the checker
//! builds it at the first expression it meets (a script refused before any is refused
//! without it), a [`crate::SluaConstraint`] when it is made ([`Viability::prepare`]),
//! since built by the first expression's mask it made that a step over 2 ms.

use std::cell::{OnceCell, RefCell};
use std::collections::{HashMap, HashSet};

use rustc_hash::FxHashMap;

use crate::ops::{push_op, reduce_all, BinOp, Stack, TypeSet, BASES, BIN_OPS};
use crate::types::Type;

/// Whether expressions can still end in a wanted type (see the module doc).
#[derive(Debug, Default)]
pub struct Viability {
    /// Packed state (see [`pack`]) -> the base types it can end in (bit `i`: `BASES[i]`).
    reach: OnceCell<FxHashMap<u64, u8>>,
    /// Answers of [`Viability::search`]; started afresh past [`Viability::SEARCH_CAP`].
    searched: RefCell<HashMap<(TypeSet, Stack, Type), bool>>,
}

impl Viability {
    /// At most this many searched answers are kept (long `..` chains are the only
    /// stacks outside the table; a decoder's cache lives across scripts).
    pub const SEARCH_CAP: usize = 4096;

    /// Builds the table of packed states now (5,820 of them, ~1.1 ms), if
    /// not built yet: for callers about to step expressions in a hurry (masks).
    pub fn prepare(&self) {
        self.table();
    }

    fn table(&self) -> &FxHashMap<u64, u8> {
        self.reach.get_or_init(reach_table)
    }

    /// The number of packed states in the table (0 until built).
    pub fn states(&self) -> usize {
        self.reach.get().map_or(0, |r| r.len())
    }

    /// Whether, after an operand of type `cur` with operators `stack` pending, the
    /// expression can still end in a type of `want` (searching operator
    /// continuations; operands of every base type can always be written).
    ///
    /// Stacks of base types are looked up in the table; the others (long `..`
    /// chains, table or function types) are searched ([`Viability::search`]).
    pub fn can_finish(&self, want: &TypeSet, stack: &[(Type, BinOp)], cur: &Type) -> bool {
        match pack(stack, cur).and_then(|key| self.table().get(&key)) {
            Some(mask) => mask & want.bases != 0,
            None => self.search(want, stack, cur),
        }
    }

    /// The viability search over vectors, bounded like the table (no operator is
    /// pushed onto six pending ones): for stacks too long to pack, and the reference
    /// for the table. Memoised.
    pub fn search(&self, want: &TypeSet, stack: &[(Type, BinOp)], cur: &Type) -> bool {
        let key = (want.clone(), stack.to_vec(), cur.clone());
        if let Some(&v) = self.searched.borrow().get(&key) {
            return v;
        }
        let found = search(want, stack, cur);
        let mut memo = self.searched.borrow_mut();
        if memo.len() >= Self::SEARCH_CAP {
            memo.clear();
        }
        memo.insert(key, found);
        found
    }
}

/// The search of [`Viability::search`], depth first over operator continuations.
fn search(want: &TypeSet, stack: &[(Type, BinOp)], cur: &Type) -> bool {
    let mut seen = HashSet::new();
    let mut todo = vec![(stack.to_vec(), cur.clone())];
    while let Some((st, t)) = todo.pop() {
        if !seen.insert((st.clone(), t.clone())) {
            continue;
        }
        if reduce_all(&st, &t).is_some_and(|r| want.contains(&r)) {
            return true;
        }
        if st.len() >= MAX_PENDING || !t.is_base() {
            continue;
        }
        for op in BIN_OPS {
            if let Some(st2) = push_op(&st, &t, op) {
                for b in &BASES {
                    todo.push((st2.clone(), b.clone()));
                }
            }
        }
    }
    false
}

/// Stack entries above which a packed state does not fit (6 bits each, 4 bits of
/// length, 2 bits for the operand).
const MAX_PACKED: usize = 9;

/// The bound of the search: no operator is pushed onto six pending ones.
const MAX_PENDING: usize = 6;

/// `t`'s index in [`BASES`] (a match: the table look-ups' hot path compares no types).
fn base_index(t: &Type) -> Option<u64> {
    match t {
        Type::Number => Some(0),
        Type::String => Some(1),
        Type::Boolean => Some(2),
        _ => None,
    }
}

fn op_index(op: BinOp) -> u64 {
    BIN_OPS.iter().position(|o| *o == op).unwrap_or(0) as u64
}

/// Packs a state whose operand and stack types are all base types.
fn pack(stack: &[(Type, BinOp)], cur: &Type) -> Option<u64> {
    if stack.len() > MAX_PACKED {
        return None;
    }
    let mut key = stack.len() as u64 | (base_index(cur)? << 4);
    for (k, (t, op)) in stack.iter().enumerate() {
        key |= (base_index(t)? | (op_index(*op) << 2)) << (6 + 6 * k);
    }
    Some(key)
}

/// For every packed state reachable from an empty stack, the base types it can end
/// in (bit `i`: `BASES[i]`).
///
/// Stepped on the packed keys with the operators' typing on base types tabulated
/// first ([`BinOp::result`], [`BinOp::accepts_left`]): building the table through
/// [`push_op`] on vectors cost 3 ms; numbering states when they are first met and
/// keeping successors as numbers in one flat list took it from 1.7 to 1.1 ms.
fn reach_table() -> FxHashMap<u64, u8> {
    let ops = OpTables::new();
    let mut graph = StateGraph::default();
    for b in 0..3 {
        graph.number(pack_indices(&[], b));
    }
    let mut mask: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < graph.states.len() {
        let (len, cur, st) = unpack_indices(graph.states[i]);
        let st = &st[..len];
        mask.push(ops.reduce_all(st, cur).map_or(0, |i| 1 << i));
        if len < MAX_PENDING {
            for op in 0..BIN_OPS.len() {
                if let Some((st2, len2)) = ops.push(st, cur, op) {
                    // The operand's type is bits 4-5 of a key.
                    let key = pack_indices(&st2[..len2], 0);
                    for b in 0..3u64 {
                        let k = graph.number(key | (b << 4));
                        graph.succ.push(k);
                    }
                }
            }
        }
        graph.succ_end.push(graph.succ.len());
        i += 1;
    }
    graph.close(&mut mask);
    graph.states.into_iter().zip(mask).collect()
}

/// A packed state: pending (left type, operator index) pairs and the operand's type.
type Pending = [(u8, usize); MAX_PACKED];

/// A key's pending pairs (by base type and operator index), their count and the
/// operand's base type.
fn unpack_indices(key: u64) -> (usize, u8, Pending) {
    let mut st = [(0u8, 0usize); MAX_PACKED];
    let len = (key & 15) as usize;
    for (k, e) in st.iter_mut().enumerate().take(len) {
        let bits = key >> (6 + 6 * k);
        *e = ((bits & 3) as u8, ((bits >> 2) & 15) as usize);
    }
    (len, ((key >> 4) & 3) as u8, st)
}

/// The key of pending pairs by index (as [`unpack_indices`] reads it).
fn pack_indices(st: &[(u8, usize)], cur: u8) -> u64 {
    st.iter().enumerate().fold(st.len() as u64 | (u64::from(cur) << 4), |key, (k, &(t, op))| {
        key | ((u64::from(t) | ((op as u64) << 2)) << (6 + 6 * k))
    })
}

/// The operators' typing on base types, tabulated: `result[op][left][right]` and
/// `accepts[op][left]`.
struct OpTables {
    result: Vec<[[Option<u8>; 3]; 3]>,
    accepts: Vec<[bool; 3]>,
}

impl OpTables {
    fn new() -> OpTables {
        let base = |t: Option<Type>| t.as_ref().and_then(base_index).map(|i| i as u8);
        let result = BIN_OPS
            .iter()
            .map(|op| {
                std::array::from_fn(|l| {
                    std::array::from_fn(|r| base(op.result(&BASES[l], &BASES[r])))
                })
            })
            .collect();
        let accepts =
            BIN_OPS.iter().map(|op| std::array::from_fn(|t| op.accepts_left(&BASES[t]))).collect();
        OpTables { result, accepts }
    }

    /// The type of the whole expression if it ended here.
    fn reduce_all(&self, st: &[(u8, usize)], cur: u8) -> Option<u8> {
        st.iter()
            .rev()
            .try_fold(cur, |cur, &(l, op)| self.result[op][usize::from(l)][usize::from(cur)])
    }

    /// `push_op` on a packed state: the stack after the operator, if well typed.
    fn push(&self, st: &[(u8, usize)], cur: u8, op: usize) -> Option<(Pending, usize)> {
        let mut out = [(0u8, 0usize); MAX_PACKED];
        out[..st.len()].copy_from_slice(st);
        let (mut len, mut cur) = (st.len(), cur);
        let o = BIN_OPS[op];
        while len > 0 {
            let (l, top) = out[len - 1];
            let t = BIN_OPS[top];
            if !(t.prec() > o.prec() || (t.prec() == o.prec() && !o.right_assoc())) {
                break;
            }
            cur = self.result[top][usize::from(l)][usize::from(cur)]?;
            len -= 1;
        }
        if !self.accepts[op][usize::from(cur)] || len == MAX_PACKED {
            return None;
        }
        out[len] = (cur, op);
        Some((out, len + 1))
    }
}

/// States numbered when first met (breadth first); each one's successors kept as
/// numbers in one flat list, so every successor costs one hash look-up.
#[derive(Default)]
struct StateGraph {
    index: FxHashMap<u64, u32>,
    states: Vec<u64>,
    succ: Vec<u32>,
    /// Where each state's successors end in `succ`.
    succ_end: Vec<usize>,
}

impl StateGraph {
    fn number(&mut self, key: u64) -> u32 {
        let states = &mut self.states;
        *self.index.entry(key).or_insert_with(|| {
            states.push(key);
            states.len() as u32 - 1
        })
    }

    /// Each state's mask joined with its successors' until nothing changes.
    fn close(&self, mask: &mut [u8]) {
        loop {
            let mut changed = false;
            for i in (0..self.states.len()).rev() {
                let from = if i == 0 { 0 } else { self.succ_end[i - 1] };
                let m = self.succ[from..self.succ_end[i]]
                    .iter()
                    .fold(mask[i], |m, &k| m | mask[k as usize]);
                if m != mask[i] {
                    mask[i] = m;
                    changed = true;
                }
            }
            if !changed {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_viability_agrees_with_the_vector_search() {
        // Every stack of up to three pending operators over base types, every
        // operand and every wanted set of base types.
        let v = Viability::default();
        let mut stacks: Vec<Vec<(Type, BinOp)>> = vec![vec![]];
        for _ in 0..3 {
            let mut next = Vec::new();
            for st in &stacks {
                for b in &BASES {
                    for op in BIN_OPS {
                        if let Some(st2) = push_op(st, b, op) {
                            next.push(st2);
                        }
                    }
                }
            }
            next.sort_by_key(|s| format!("{s:?}"));
            next.dedup();
            stacks.extend(next);
        }
        let mut checked = 0;
        for st in &stacks {
            for cur in &BASES {
                assert!(
                    pack(st, cur).is_some_and(|k| v.table().contains_key(&k)),
                    "{st:?} {cur:?} is not in the table"
                );
                for bases in 1..8u8 {
                    let want = TypeSet { bases, other: None };
                    assert_eq!(
                        v.can_finish(&want, st, cur),
                        search(&want, st, cur),
                        "{st:?} {cur:?} {bases}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
        assert!(v.states() > 1000, "{}", v.states());
    }

    #[test]
    fn viability_sees_through_comparisons() {
        let v = Viability::default();
        let boolean = TypeSet::one(&Type::Boolean);
        assert!(v.can_finish(&boolean, &[], &Type::Number));
        assert!(v.can_finish(&boolean, &[], &Type::String));
        let number = TypeSet::one(&Type::Number);
        assert!(!v.can_finish(&number, &[], &Type::Boolean));
        assert!(!v.can_finish(&number, &[], &Type::String));
        let st = push_op(&[], &Type::Number, BinOp::Add).unwrap();
        assert!(!v.can_finish(&TypeSet::one(&Type::String), &st, &Type::Number));
    }

    #[test]
    fn stacks_outside_the_table_are_searched_and_memoised() {
        // Ten pending `..`: too long to pack.
        let v = Viability::default();
        let mut st = Vec::new();
        for _ in 0..10 {
            st = push_op(&st, &Type::String, BinOp::Concat).unwrap();
        }
        assert!(pack(&st, &Type::String).is_none());
        assert!(v.can_finish(&TypeSet::one(&Type::String), &st, &Type::String));
        // No operator is pushed onto six pending ones: `== ...` is out of reach.
        assert!(!v.can_finish(&TypeSet::one(&Type::Boolean), &st, &Type::String));
        assert!(!v.can_finish(&TypeSet::one(&Type::Number), &st, &Type::String));
        assert_eq!(v.searched.borrow().len(), 3);
    }
}
