//! sLua's static types: the base types, the API's named table types and function
//! types. Types are small values compared structurally; function types are shared
//! through `Rc` so cloning a scope entry stays cheap.

use std::fmt;
use std::rc::Rc;

/// A static sLua type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// A double-precision number (all numbers are floats after translation).
    Number,
    /// An immutable string.
    String,
    /// `true` or `false`.
    Boolean,
    /// No value: only as a function's return type.
    Void,
    /// A named fixed-shape table type from the API, by index into the API's types.
    Table(usize),
    /// A function type.
    Func(Rc<FuncType>),
}

/// The type of a function: argument types and the return type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FuncType {
    /// Argument types, in order.
    pub params: Vec<Type>,
    /// The return type ([`Type::Void`] for none).
    pub ret: Type,
}

impl Type {
    /// A function type from parts.
    pub fn func(params: Vec<Type>, ret: Type) -> Type {
        Type::Func(Rc::new(FuncType { params, ret }))
    }

    /// Whether this is number, string or boolean.
    pub fn is_base(&self) -> bool {
        matches!(self, Type::Number | Type::String | Type::Boolean)
    }

    /// The function type, if this is one.
    pub fn as_func(&self) -> Option<&FuncType> {
        match self {
            Type::Func(f) => Some(f),
            _ => None,
        }
    }

    /// Renders the type in sLua syntax, naming tables through `names`.
    pub fn display<'a>(&'a self, names: &'a [String]) -> TypeDisplay<'a> {
        TypeDisplay { ty: self, names }
    }
}

/// [`Type`] rendered in sLua syntax (see [`Type::display`]).
pub struct TypeDisplay<'a> {
    ty: &'a Type,
    names: &'a [String],
}

impl fmt::Display for TypeDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ty {
            Type::Number => f.write_str("number"),
            Type::String => f.write_str("string"),
            Type::Boolean => f.write_str("boolean"),
            Type::Void => f.write_str("void"),
            Type::Table(i) => f.write_str(self.names.get(*i).map_or("?", |s| s.as_str())),
            Type::Func(ft) => {
                f.write_str("(")?;
                for (i, p) in ft.params.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", p.display(self.names))?;
                }
                write!(f, ") -> {}", ft.ret.display(self.names))
            }
        }
    }
}
