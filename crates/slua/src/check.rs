//! The whole-program checker: runs a script through the tree of parsers and either
//! returns its syntax tree or the byte offset where it went wrong with the regex that
//! was expected there.
//!
//! Checking is linear in the script's length (about 1.1-1.3 ms of CPU per kB here,
//! `examples/check_speed.rs`), and hostile input is refused early by [`Limits`]: a
//! script longer than 64 KiB before parsing, one nested deeper than 200 parser nodes
//! at the first segment past it.

use std::rc::Rc;

use crate::ast::{self, Script};
pub use crate::check_error::CheckError;
use crate::scope::Env;
use crate::tree::Tree;

/// What the checker refuses before or while parsing: scripts too long or nested too
/// deep for the game.
///
/// [`Limits::GAME`] (what [`check`] uses): 64 KiB, about 2,300 statements like
/// `local aK: number = K;` (the hand-written scripts are under 2 kB), checked in well
/// under a second; 200 live parser nodes, about 95 nested `if`s (each is an `if`
/// node and a block node). Lua 5.4's own parser refuses `if`s nested 199 deep
/// (`C stack overflow`, measured with lua5.4), so deeper sLua could not run once
/// translated, and the syntax tree, the translation and their drops recurse on the
/// nesting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The longest script, in bytes.
    pub max_bytes: usize,
    /// The most live parser nodes (the depth of the tree of parsers).
    pub max_depth: usize,
}

impl Limits {
    /// The limits of the game (see [`Limits`]).
    pub const GAME: Limits = Limits { max_bytes: 64 * 1024, max_depth: 200 };
    /// No limit (for benchmarks of the checker itself).
    pub const NONE: Limits = Limits { max_bytes: usize::MAX, max_depth: usize::MAX };
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::GAME
    }
}

/// Length of the segment at the start of `text`, found with the segment automaton.
fn segment_len(tree: &mut Tree, text: &str) -> Result<usize, CheckError> {
    if tree.has_finished() {
        return Err(CheckError { offset: 0, expected: "(end of script)".into() });
    }
    let seg = tree.segment();
    let auto = seg.auto_at(0)?;
    let mut s = auto.start();
    for (i, &b) in text.as_bytes().iter().enumerate() {
        s = auto.next(&s, b);
        if auto.is_dead(&s) {
            return Err(CheckError { offset: i, expected: seg.regex().to_string() });
        }
        if auto.accepts(&s) && text.is_char_boundary(i + 1) {
            return Ok(i + 1);
        }
    }
    Err(CheckError { offset: text.len(), expected: seg.regex().to_string() })
}

/// Checks `source` (trailing whitespace allowed) against the language, the types and
/// the API of `env`; returns the syntax tree.
pub fn check(env: Rc<Env>, source: &str) -> Result<Script, CheckError> {
    check_inner(env, source, None, Limits::GAME)
}

/// [`check`] under other [`Limits`].
pub fn check_limited(env: Rc<Env>, source: &str, limits: Limits) -> Result<Script, CheckError> {
    check_inner(env, source, None, limits)
}

/// [`check`], calling `on_regex` with every segment regex met (tests check A1 on them).
pub fn check_with(
    env: Rc<Env>,
    source: &str,
    on_regex: &mut dyn FnMut(&str),
) -> Result<Script, CheckError> {
    check_inner(env, source, Some(on_regex), Limits::GAME)
}

/// The checker; segment regexes are written out only for `on_regex` and errors (a
/// regex lists every name in scope, so writing each would cost the scope's size per
/// segment).
fn check_inner(
    env: Rc<Env>,
    source: &str,
    mut on_regex: Option<&mut dyn FnMut(&str)>,
    limits: Limits,
) -> Result<Script, CheckError> {
    if source.len() > limits.max_bytes {
        return Err(CheckError {
            offset: limits.max_bytes,
            expected: format!("(end of script: at most {} bytes)", limits.max_bytes),
        });
    }
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
        let seg_len = segment_len(&mut tree, rest).map_err(|e| e.shifted(pos))?;
        tree.feed_segment(&rest[..seg_len]).map_err(|e| e.shifted(pos))?;
        if tree.depth() > limits.max_depth {
            let lead = rest.len() - rest.trim_start().len();
            return Err(CheckError {
                offset: pos + lead,
                expected: format!("(less nesting: at most {} parser nodes)", limits.max_depth),
            });
        }
        pos += seg_len;
    }
    if !tree.has_finished() {
        let expected = tree.next_regex().unwrap_or_default();
        return Err(CheckError { offset: body.len(), expected });
    }
    ast::build(&tree.tokens()).map_err(|e| CheckError { offset: e.offset.min(body.len()), ..e })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Api;

    #[test]
    fn scripts_too_long_or_too_deep_are_refused_quickly_where_they_pass_the_limit() {
        let env = Rc::new(Env::new(Api::dungeon(), vec![]));
        let head = "talent T;\nhook Do = function(user, target)\n";
        let tail = "end;\nhook GetDescription = function(user)\n  return \"t\";\nend;\n";
        let nested = |n: usize| {
            format!(
                "{head}{}  Damage(user, 1);\n{}{tail}",
                "  if true then\n".repeat(n),
                "  end;\n".repeat(n)
            )
        };
        assert!(check(env.clone(), &nested(90)).is_ok());
        let deep = nested(2000);
        let t = std::time::Instant::now();
        let err = check(env.clone(), &deep).unwrap_err();
        assert!(t.elapsed().as_secs_f64() < 1.0, "refused in {:?}", t.elapsed());
        assert!(err.expected.contains("200 parser nodes"), "{err}");
        assert_eq!(&deep[err.offset..err.offset + 2], "if", "{err}");
        assert!(err.offset < head.len() + 100 * "  if true then\n".len(), "{err}");
        assert!(check_limited(env.clone(), &nested(150), Limits::NONE).is_ok());
        let long = format!("{head}{}{tail}", "  Damage(user, 1);\n".repeat(4000));
        let err = check(env.clone(), &long).unwrap_err();
        assert_eq!((err.offset, err.expected.contains("65536 bytes")), (65536, true), "{err}");
    }

    #[test]
    fn unknown_functions_are_rejected_at_their_first_byte() {
        let env = Rc::new(Env::new(Api::dungeon(), vec![]));
        let src = "talent T;\nhook Do = function(user, target)\n  Explode(target);\nend;\n";
        let err = check(env, src).unwrap_err();
        assert_eq!(err.offset, src.find("Explode").unwrap() + 1, "{err}");
    }
}
