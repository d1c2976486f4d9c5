//! The whole-program checker: runs a script through the tree of parsers and either
//! returns its syntax tree or the byte offset where it went wrong with the regex that
//! was expected there.

use std::fmt;
use std::rc::Rc;

use crate::ast::{self, Script};
use crate::scope::Env;
use crate::tree::Tree;

/// Why a script was rejected: where, and what the tree expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError {
    /// Byte offset of the first byte no valid continuation has (the script's length
    /// when it ends too early).
    pub offset: usize,
    /// The regex of the segment expected there.
    pub expected: String,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: expected /{}/", self.offset, self.expected)
    }
}

impl std::error::Error for CheckError {}

/// Checks `source` (trailing whitespace allowed) against the language, the types and
/// the API of `env`; returns the syntax tree.
pub fn check(env: Rc<Env>, source: &str) -> Result<Script, CheckError> {
    let body = source.trim_end();
    let mut tree = Tree::new(env);
    tree.feed_text(body).map_err(|e| CheckError { offset: e.offset, expected: e.expected })?;
    if !tree.has_finished() {
        let expected = tree.next_regex().unwrap_or_default();
        return Err(CheckError { offset: body.len(), expected });
    }
    ast::build(&tree.tokens()).map_err(|e| CheckError { offset: e.offset.min(body.len()), expected: e.expected })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Api;

    #[test]
    fn unknown_functions_are_rejected_at_their_first_byte() {
        let env = Rc::new(Env::new(Api::dungeon(), vec![]));
        let src = "talent T;\nhook Do = function(user, target)\n  Explode(target);\nend;\n";
        let err = check(env, src).unwrap_err();
        assert_eq!(err.offset, src.find("Explode").unwrap() + 1, "{err}");
    }
}
