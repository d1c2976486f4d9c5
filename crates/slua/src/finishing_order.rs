//! The finishing order: how far taking a choice moves towards the end of the script.
//! The random walker's finishing phase ([`crate::walker`]), the finishing plan's
//! length ([`crate::tree::Tree::finish_len`]) and the finishing mask
//! ([`crate::finishing`]) all rank choices by it.

use crate::lexeme::Lex;
use crate::node::{Act, Choice};
use crate::types::Type;

/// How far taking `choice`, offered by the node at `depth`, moves towards the end of
/// the script (lower is closer): closing outer nodes first, then returns and
/// literals, calls and nested constructs last.
pub(crate) fn choice_cost(depth: usize, choice: &Choice) -> usize {
    let kind = match (&choice.lex, &choice.act) {
        // A name in scope: as a plain variable unless every accepted kind is a
        // function (its shortest text prefers the others).
        (Lex::Scoped(names), _) if names.kinds.iter().all(|k| k.is_func) => 8,
        (Lex::Scoped(_), _) => 3,
        (Lex::Lit(s), _) if s == "return" || s == "GetDescription" => 0,
        (Lex::Number | Lex::Str, _) | (_, Act::Literal(_)) => 1,
        (Lex::Lit(s), _) if s == "(" || s == "function" || s == "not" || s == "-" => 9,
        // At the top level a hook moves towards the required ones; another local
        // would not (a plan that always took `local` would never end).
        (Lex::Lit(s), Act::Kw) if s == "hook" => 5,
        (Lex::Lit(s), Act::Kw)
            if matches!(
                s.as_str(),
                "if" | "while" | "for" | "do" | "local" | "hook" | "elseif"
            ) =>
        {
            9
        }
        // A plain variable ends an operand at once; a function needs a call whose
        // arguments may nest (a `(T) -> T` local would nest forever), so constructors
        // (7) come before calls (8).
        (_, Act::Var(Type::Func(_), _)) => 8,
        (_, Act::Var(..)) => 3,
        (Lex::Lit(s), _) if s == "{" => 7,
        (_, Act::Method(_)) => 7,
        _ => 2,
    };
    depth * 10 + kind
}
