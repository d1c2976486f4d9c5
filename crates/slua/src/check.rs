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

/// Length of the segment at the start of `text`, found with the segment automaton.
fn segment_len(tree: &mut Tree, text: &str) -> Result<usize, crate::tree::FeedError> {
    use crate::tree::FeedError;
    if tree.has_finished() {
        return Err(FeedError { offset: 0, expected: "(end of script)".into() });
    }
    let seg = tree.segment();
    let auto = seg.auto_at(0)?;
    let mut s = auto.start();
    for (i, &b) in text.as_bytes().iter().enumerate() {
        s = auto.next(&s, b);
        if auto.is_dead(&s) {
            return Err(FeedError { offset: i, expected: seg.regex().to_string() });
        }
        if auto.accepts(&s) && text.is_char_boundary(i + 1) {
            return Ok(i + 1);
        }
    }
    Err(FeedError { offset: text.len(), expected: seg.regex().to_string() })
}

/// Checks `source` (trailing whitespace allowed) against the language, the types and
/// the API of `env`; returns the syntax tree.
pub fn check(env: Rc<Env>, source: &str) -> Result<Script, CheckError> {
    check_inner(env, source, None)
}

/// [`check`], calling `on_regex` with every segment regex met (tests check A1 on them).
pub fn check_with(env: Rc<Env>, source: &str, on_regex: &mut dyn FnMut(&str)) -> Result<Script, CheckError> {
    check_inner(env, source, Some(on_regex))
}

/// The checker; segment regexes are written out only for `on_regex` and errors (a
/// regex lists every name in scope, so writing each would cost the scope's size per
/// segment).
fn check_inner(env: Rc<Env>, source: &str, mut on_regex: Option<&mut dyn FnMut(&str)>) -> Result<Script, CheckError> {
    let body = source.trim_end();
    let mut tree = Tree::new(env);
    let mut pos = 0;
    while pos < body.len() {
        if tree.has_finished() {
            let extra = body[pos..].len() - body[pos..].trim_start().len();
            return Err(CheckError { offset: pos + extra, expected: "(end of script)".into() });
        }
        if let Some(f) = on_regex.as_mut() {
            if let Some(r) = tree.next_regex() {
                f(&r);
            }
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
