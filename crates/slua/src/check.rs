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

/// Length of the segment at the start of `text`, found with the segment DFA.
fn segment_len(tree: &mut Tree, text: &str) -> Result<usize, crate::tree::FeedError> {
    use crate::tree::FeedError;
    let Some(regex) = tree.next_regex() else {
        return Err(FeedError { offset: 0, expected: "(end of script)".into() });
    };
    let dfa = crate::dfa::SegDfa::cached(&regex).map_err(|e| FeedError { offset: 0, expected: e.to_string() })?;
    let mut s = dfa.start();
    for (i, &b) in text.as_bytes().iter().enumerate() {
        s = dfa.next(s, b);
        if dfa.is_dead(s) {
            return Err(FeedError { offset: i, expected: regex });
        }
        if dfa.accepts(s) && text.is_char_boundary(i + 1) {
            return Ok(i + 1);
        }
    }
    Err(FeedError { offset: text.len(), expected: regex })
}

/// Checks `source` (trailing whitespace allowed) against the language, the types and
/// the API of `env`; returns the syntax tree.
pub fn check(env: Rc<Env>, source: &str) -> Result<Script, CheckError> {
    check_with(env, source, &mut |_| {})
}

/// [`check`], calling `on_regex` with every segment regex met (tests check A1 on them).
pub fn check_with(env: Rc<Env>, source: &str, on_regex: &mut dyn FnMut(&str)) -> Result<Script, CheckError> {
    let body = source.trim_end();
    let mut tree = Tree::new(env);
    let mut pos = 0;
    while pos < body.len() {
        if tree.has_finished() {
            let extra = body[pos..].len() - body[pos..].trim_start().len();
            return Err(CheckError { offset: pos + extra, expected: "(end of script)".into() });
        }
        if let Some(r) = tree.next_regex() {
            on_regex(&r);
        }
        // Feed one segment at a time so every regex is seen.
        let rest = &body[pos..];
        let seg_len = segment_len(&mut tree, rest).map_err(|e| CheckError { offset: pos + e.offset, expected: e.expected })?;
        tree.feed_segment(&rest[..seg_len]).map_err(|e| CheckError { offset: pos + e.offset, expected: e.expected })?;
        pos += seg_len;
    }
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
