//! The fixed words of the names machine: Python's keywords, those a read may start
//! with, the names never refused, the string prefixes.

pub(super) const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// The keywords a checked read may be the first bytes of: where a name is read (after
/// an operator, an opening bracket, `return`, ...) an expression starts, and only these
/// keywords start one (`in` and `from` for `not in` and `yield from`). Another keyword
/// there would be a dead end: the grammar takes its bytes only as the start of an
/// identifier (`n % else` is no Python, `n % elsewhere` is), and where no bound name
/// goes on with them, nothing follows (s41: HumanEval/59's `elif n %` then `else`).
/// `from` stays one where it cannot follow (no builtin starts with it; rare).
pub(crate) const READ_KEYWORDS: &[&str] =
    &["False", "None", "True", "await", "lambda", "not", "yield", "in", "from"];

/// Never refused: soft keywords and names Python provides in some scopes only. Not
/// `_`: outside the REPL it is no builtin (pyflakes reports it, CPython raises
/// NameError); `case _:` binds nothing and reads nothing (`Machine::name`).
pub(super) const EXEMPT: &[&str] =
    &["match", "case", "type", "__class__", "__module__", "__qualname__", "__path__"];

/// The soft keywords that start statements: exempt where a statement may start with
/// them (a name waiting for its role there), but a checked read of one is a name like
/// any other (`return 1 + match`: pyflakes reports it, CPython raises NameError).
pub(super) const SOFT_KEYWORDS: &[&str] = &["match", "case"];

/// The exempt names a checked read may be the first bytes of.
pub(super) fn read_exempt() -> impl Iterator<Item = &'static &'static str> {
    EXEMPT.iter().filter(|n| !SOFT_KEYWORDS.contains(n))
}

pub(super) const STRING_PREFIXES: &[&str] = &["r", "u", "b", "f", "rb", "br", "fr", "rf"];
