//! Operators, their precedence and typing, and the operator stack an expression
//! node keeps ([`push_op`], [`reduce_all`]). Which operands and operators can still
//! end in the wanted type is [`crate::viability`]'s.

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
    BinOp::Or,
    BinOp::And,
    BinOp::Eq,
    BinOp::Ne,
    BinOp::Lt,
    BinOp::Le,
    BinOp::Gt,
    BinOp::Ge,
    BinOp::Concat,
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::Mod,
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
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                (*r == Type::Number).then_some(Type::Boolean)
            }
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

/// Pending operators: each with its left operand's type.
pub type Stack = Vec<(Type, BinOp)>;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_types_mixed_expressions() {
        // a + b < c and d   ->   ((a + b) < c) and d
        let st = push_op(&[], &Type::Number, BinOp::Add).unwrap();
        let st = push_op(&st, &Type::Number, BinOp::Lt).unwrap();
        let st = push_op(&st, &Type::Number, BinOp::And).unwrap();
        assert_eq!(reduce_all(&st, &Type::Boolean), Some(Type::Boolean));
        assert!(push_op(&[], &Type::String, BinOp::Add).is_none());
    }
}
