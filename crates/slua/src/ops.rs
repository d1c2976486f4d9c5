//! Operators, their precedence and typing, and the *viability* search the expression
//! node uses to offer only operands and operators that can still end in the wanted
//! type (so generation never paints itself into a corner).

use std::cell::RefCell;
use std::collections::HashMap;

use crate::types::Type;

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `or` (boolean)
    Or,
    /// `and` (boolean)
    And,
    /// `==`
    Eq,
    /// `~=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `..` (strings)
    Concat,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
}

/// Every binary operator.
pub const BIN_OPS: [BinOp; 14] = [
    BinOp::Or, BinOp::And, BinOp::Eq, BinOp::Ne, BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge,
    BinOp::Concat, BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Mod,
];

impl BinOp {
    /// Source text.
    pub fn text(self) -> &'static str {
        match self {
            BinOp::Or => "or",
            BinOp::And => "and",
            BinOp::Eq => "==",
            BinOp::Ne => "~=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Concat => "..",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
        }
    }

    /// The operator written `s`.
    pub fn from_text(s: &str) -> Option<BinOp> {
        BIN_OPS.iter().copied().find(|o| o.text() == s)
    }

    /// Lua's precedence (higher binds tighter).
    pub fn prec(self) -> u8 {
        match self {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
            BinOp::Concat => 4,
            BinOp::Add | BinOp::Sub => 5,
            BinOp::Mul | BinOp::Div | BinOp::Mod => 6,
        }
    }

    /// Whether the operator groups to the right (`..`).
    pub fn right_assoc(self) -> bool {
        self == BinOp::Concat
    }

    /// Whether the left operand may have type `t`.
    pub fn accepts_left(self, t: &Type) -> bool {
        match self {
            BinOp::Or | BinOp::And => *t == Type::Boolean,
            BinOp::Eq | BinOp::Ne => t.is_base(),
            BinOp::Concat => *t == Type::String,
            _ => *t == Type::Number,
        }
    }

    /// The result type for operand types `l` and `r`, if well typed.
    pub fn result(self, l: &Type, r: &Type) -> Option<Type> {
        if !self.accepts_left(l) {
            return None;
        }
        match self {
            BinOp::Eq | BinOp::Ne => (l == r).then_some(Type::Boolean),
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => (*r == Type::Number).then_some(Type::Boolean),
            _ => (l == r).then(|| l.clone()),
        }
    }
}

/// A set of types an expression may end in: any of the base types in `bases`, or
/// exactly `other`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TypeSet {
    /// Bit 0 number, bit 1 string, bit 2 boolean.
    pub bases: u8,
    /// A table or function type.
    pub other: Option<Type>,
}

/// The three base types in [`TypeSet::bases`] bit order.
pub const BASES: [Type; 3] = [Type::Number, Type::String, Type::Boolean];

impl TypeSet {
    /// The set holding only `t`.
    pub fn one(t: &Type) -> TypeSet {
        match t {
            Type::Number => TypeSet { bases: 1, other: None },
            Type::String => TypeSet { bases: 2, other: None },
            Type::Boolean => TypeSet { bases: 4, other: None },
            other => TypeSet { bases: 0, other: Some(other.clone()) },
        }
    }

    /// Whether `t` is in the set.
    pub fn contains(&self, t: &Type) -> bool {
        match t {
            Type::Number => self.bases & 1 != 0,
            Type::String => self.bases & 2 != 0,
            Type::Boolean => self.bases & 4 != 0,
            other => self.other.as_ref() == Some(other),
        }
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.bases == 0 && self.other.is_none()
    }
}

type Stack = Vec<(Type, BinOp)>;

thread_local! {
    static VIABLE: RefCell<HashMap<(TypeSet, Stack, Type), bool>> = RefCell::new(HashMap::new());
}

/// Pushes `op` after an operand of type `cur`: reduces what binds at least as tightly,
/// then checks the left operand. `None` when a reduction or the operand is ill typed.
pub fn push_op(stack: &[(Type, BinOp)], cur: &Type, op: BinOp) -> Option<Stack> {
    let mut st = stack.to_vec();
    let mut cur = cur.clone();
    while let Some((l, top)) = st.last() {
        let reduce = top.prec() > op.prec() || (top.prec() == op.prec() && !op.right_assoc());
        if !reduce {
            break;
        }
        cur = top.result(l, &cur)?;
        st.pop();
    }
    if !op.accepts_left(&cur) {
        return None;
    }
    st.push((cur, op));
    Some(st)
}

/// Reduces the whole stack with a last operand `cur`: the expression's type.
pub fn reduce_all(stack: &[(Type, BinOp)], cur: &Type) -> Option<Type> {
    let mut cur = cur.clone();
    for (l, op) in stack.iter().rev() {
        cur = op.result(l, &cur)?;
    }
    Some(cur)
}

/// Whether, after an operand of type `cur` with operators `stack` pending, the
/// expression can still end in a type of `want` (searching operator continuations;
/// operands of every base type can always be written).
///
/// Asked for every operator and operand offered, so it must be cheap. Operator
/// stacks of base types are packed into a `u64`; once per thread, every packed
/// state reachable from an empty stack is enumerated (about ten thousand) and the
/// base types each can end in are computed by a fixpoint over the same transitions
/// and the same six-operator bound as [`can_finish_search`], which answers for the
/// states outside that table (long `..` chains).
pub fn can_finish(want: &TypeSet, stack: &[(Type, BinOp)], cur: &Type) -> bool {
    let Some(key) = pack(stack, cur) else { return can_finish_search(want, stack, cur) };
    let hit = REACH.with(|r| {
        let mut r = r.borrow_mut();
        if r.is_empty() {
            *r = reach_table();
        }
        r.get(&key).copied()
    });
    match hit {
        Some(mask) => mask & want.bases != 0,
        None => can_finish_search(want, stack, cur),
    }
}

thread_local! {
    static REACH: RefCell<rustc_hash::FxHashMap<u64, u8>> = RefCell::new(rustc_hash::FxHashMap::default());
}

/// Stack entries above which a packed state does not fit (6 bits each, 4 bits of
/// length, 2 bits for the operand).
const MAX_PACKED: usize = 9;

/// The bound of the search: no operator is pushed onto six pending ones.
const MAX_PENDING: usize = 6;

fn base_index(t: &Type) -> Option<u64> {
    BASES.iter().position(|b| b == t).map(|i| i as u64)
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
/// [`push_op`] on vectors cost 3 ms, paid by the first expression of a process.
fn reach_table() -> rustc_hash::FxHashMap<u64, u8> {
    let base = |t: Option<Type>| t.as_ref().and_then(base_index).map(|i| i as u8);
    let result: Vec<[[Option<u8>; 3]; 3]> =
        BIN_OPS.iter().map(|op| std::array::from_fn(|l| std::array::from_fn(|r| base(op.result(&BASES[l], &BASES[r]))))).collect();
    let accepts: Vec<[bool; 3]> = BIN_OPS.iter().map(|op| std::array::from_fn(|t| op.accepts_left(&BASES[t]))).collect();
    // A state: pending (left type, operator index) pairs and the operand's type.
    let unpack = |key: u64| -> (usize, u8, [(u8, usize); MAX_PACKED]) {
        let mut st = [(0u8, 0usize); MAX_PACKED];
        let len = (key & 15) as usize;
        for (k, e) in st.iter_mut().enumerate().take(len) {
            let bits = key >> (6 + 6 * k);
            *e = ((bits & 3) as u8, ((bits >> 2) & 15) as usize);
        }
        (len, ((key >> 4) & 3) as u8, st)
    };
    let pack = |st: &[(u8, usize)], cur: u8| -> u64 {
        st.iter().enumerate().fold(st.len() as u64 | (u64::from(cur) << 4), |key, (k, &(t, op))| key | ((u64::from(t) | ((op as u64) << 2)) << (6 + 6 * k)))
    };
    let reduce_all = |st: &[(u8, usize)], cur: u8| st.iter().rev().try_fold(cur, |cur, &(l, op)| result[op][usize::from(l)][usize::from(cur)]);
    // `push_op` on a packed state: the stack after the operator, if well typed.
    let push = |st: &[(u8, usize)], cur: u8, op: usize| -> Option<([(u8, usize); MAX_PACKED], usize)> {
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
            cur = result[top][usize::from(l)][usize::from(cur)]?;
            len -= 1;
        }
        if !accepts[op][usize::from(cur)] || len == MAX_PACKED {
            return None;
        }
        out[len] = (cur, op);
        Some((out, len + 1))
    };
    let mut index: rustc_hash::FxHashMap<u64, usize> = rustc_hash::FxHashMap::default();
    let mut states: Vec<u64> = Vec::new();
    let mut succ: Vec<Vec<u64>> = Vec::new();
    let mut mask: Vec<u8> = Vec::new();
    let mut todo: Vec<u64> = (0..3).map(|b| pack(&[], b)).collect();
    while let Some(key) = todo.pop() {
        if index.contains_key(&key) {
            continue;
        }
        index.insert(key, states.len());
        states.push(key);
        let (len, cur, st) = unpack(key);
        let st = &st[..len];
        mask.push(reduce_all(st, cur).map_or(0, |i| 1 << i));
        let mut next = Vec::new();
        if len < MAX_PENDING {
            for op in 0..BIN_OPS.len() {
                if let Some((st2, len2)) = push(st, cur, op) {
                    next.extend((0..3).map(|b| pack(&st2[..len2], b)));
                }
            }
        }
        todo.extend(next.iter().copied());
        succ.push(next);
    }
    let succ: Vec<Vec<usize>> = succ.iter().map(|next| next.iter().map(|k| index[k]).collect()).collect();
    loop {
        let mut changed = false;
        for i in (0..states.len()).rev() {
            let m = succ[i].iter().fold(mask[i], |m, &k| m | mask[k]);
            if m != mask[i] {
                mask[i] = m;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    states.into_iter().zip(mask).collect()
}

/// The viability search over vectors: for stacks too long to pack, and as the
/// reference for the packed search. Memoised per thread.
pub fn can_finish_search(want: &TypeSet, stack: &[(Type, BinOp)], cur: &Type) -> bool {
    let key = (want.clone(), stack.to_vec(), cur.clone());
    if let Some(v) = VIABLE.with(|m| m.borrow().get(&key).copied()) {
        return v;
    }
    let mut seen = std::collections::HashSet::new();
    let mut todo = vec![(stack.to_vec(), cur.clone())];
    let mut found = false;
    while let Some((st, t)) = todo.pop() {
        if !seen.insert((st.clone(), t.clone())) {
            continue;
        }
        if reduce_all(&st, &t).is_some_and(|r| want.contains(&r)) {
            found = true;
            break;
        }
        if st.len() >= 6 || !t.is_base() {
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
    VIABLE.with(|m| m.borrow_mut().insert(key, found));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_viability_agrees_with_the_vector_search() {
        // Every stack of up to three pending operators over base types, every
        // operand and every wanted set of base types.
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
                for bases in 1..8u8 {
                    let want = TypeSet { bases, other: None };
                    assert_eq!(can_finish(&want, st, cur), can_finish_search(&want, st, cur), "{st:?} {cur:?} {bases}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
        assert!(REACH.with(|r| r.borrow().len()) > 1000);
    }

    #[test]
    fn precedence_types_mixed_expressions() {
        // a + b < c and d   ->   ((a + b) < c) and d
        let st = push_op(&[], &Type::Number, BinOp::Add).unwrap();
        let st = push_op(&st, &Type::Number, BinOp::Lt).unwrap();
        let st = push_op(&st, &Type::Number, BinOp::And).unwrap();
        assert_eq!(reduce_all(&st, &Type::Boolean), Some(Type::Boolean));
        assert!(push_op(&[], &Type::String, BinOp::Add).is_none());
    }

    #[test]
    fn viability_sees_through_comparisons() {
        let boolean = TypeSet::one(&Type::Boolean);
        assert!(can_finish(&boolean, &[], &Type::Number));
        assert!(can_finish(&boolean, &[], &Type::String));
        let number = TypeSet::one(&Type::Number);
        assert!(!can_finish(&number, &[], &Type::Boolean));
        assert!(!can_finish(&number, &[], &Type::String));
        let st = push_op(&[], &Type::Number, BinOp::Add).unwrap();
        assert!(!can_finish(&TypeSet::one(&Type::String), &st, &Type::Number));
    }
}


