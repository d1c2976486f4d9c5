//! CPython 3.11's builtins (`data/builtins-3.11.txt`, written by the command in its
//! header) and the few module globals pyflakes adds to them.

use rustc_hash::FxHashSet;

/// The checked-in list: `dir(builtins)` of python3.11, one name a line.
const LIST: &str = include_str!("../data/builtins-3.11.txt");

/// Globals every module has without binding them, which pyflakes counts as builtins
/// too (its `_MAGIC_GLOBALS`; `WindowsError` exists on Windows only).
const MAGIC_GLOBALS: [&str; 4] = ["__file__", "__builtins__", "__annotations__", "WindowsError"];

/// Every name a module may read without binding it.
pub fn builtins() -> FxHashSet<&'static str> {
    LIST.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .chain(MAGIC_GLOBALS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_holds_the_usual_builtins_and_no_comment_lines() {
        let b = builtins();
        for name in
            ["print", "len", "range", "ValueError", "__name__", "__file__", "ExceptionGroup"]
        {
            assert!(b.contains(name), "{name}");
        }
        assert!(!b.iter().any(|n| n.starts_with('#') || n.contains(' ')));
        assert_eq!(b.len(), 157 + MAGIC_GLOBALS.len(), "dir(builtins) of 3.11 has 157 names");
    }
}
