//! Python names that resolve: a checker of complete Python 3.11 source that refuses
//! every name read where Python's scoping rules find no binding (a NameError or
//! UnboundLocalError at run time), worded and ordered as pyflakes 3.2 reports its
//! `undefined name` and `referenced before assignment` messages (issue 34).
//!
//! Main entry points: [`check_source`] (one text to its [`Refusal`]s) and
//! [`check_files`] (what `espalier check --lang python --names FILE...` prints). The
//! source is parsed by `rustpython-parser` to an AST; [`checker`] holds the scopes and
//! the rules, `statements.rs` and `expressions.rs` the traversal.
//!
//! What is resolved: bindings of the current scope (parameters, assignment targets
//! including augmented and annotated ones, `for` / `with` / `except ... as` targets,
//! imports, `def` / `class` names, walrus targets (in the nearest scope that is not a
//! comprehension), comprehension variables in their own scope, `match` captures,
//! `global` / `nonlocal`), enclosing function scopes (class scopes only from the class
//! body itself and comprehensions directly in it), the module scope and CPython
//! 3.11's builtins (`data/builtins-3.11.txt`).
//!
//! Decisions (pyflakes' where it has one):
//! - forward references: function and lambda bodies are checked at the end of the
//!   module, so a function may read a module name bound later anywhere in the file
//!   (legal when the function runs after the binding); the module and class bodies
//!   are checked in order;
//! - a function's read of a name that it binds later, while an enclosing function or
//!   the module binds it, is an UnboundLocalError (refused at the read);
//! - permissive (nothing refused): any read in a module with `from m import *`; reads
//!   inside a `try` body whose handlers catch `NameError`; names in strings, string
//!   annotations and, under `from __future__ import annotations`, all annotations
//!   (pyflakes parses the strings and checks postponed annotations at the end; this
//!   checker does not read them); `globals()`, `exec`, `setattr` on modules (unseen);
//!   `del` under `if` / `while` / a conditional expression (may not run: the name
//!   stays bound);
//! - attributes after a dot are not names: only the value before the dot is read.
//!
//! ```
//! let refusals = espalier_names::check_source("def f():\n    return y\n", "m.py").unwrap();
//! assert_eq!(refusals[0].to_string(), "2:12: undefined name 'y'");
//! ```

mod builtins;
#[cfg(feature = "check")]
mod checker;
#[cfg(feature = "check")]
mod expressions;
pub mod layer;
mod refusal;
#[cfg(feature = "check")]
mod scope;
#[cfg(feature = "check")]
mod statements;

#[cfg(feature = "check")]
use std::io::Write;
#[cfg(feature = "check")]
use std::path::Path;

#[cfg(feature = "check")]
use rustpython_parser::{ast, Parse};

pub use builtins::builtins;
pub use refusal::{Outer, Refusal, Why};

#[cfg(feature = "check")]
use checker::Checker;
#[cfg(feature = "check")]
use refusal::LineIndex;

/// Source the parser refused: the names cannot be checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub col: usize,
    /// The parser's message.
    pub message: String,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: syntax error: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for SyntaxError {}

#[cfg(feature = "check")]
/// The names `source` reads without a binding, in source order (empty when every
/// name resolves). `path` names the file: a package's `__init__.py` may read
/// `__path__`.
pub fn check_source(source: &str, path: &str) -> Result<Vec<Refusal>, SyntaxError> {
    let lines = LineIndex::new(source);
    let suite = ast::Suite::parse(source, path).map_err(|e| {
        let (line, col) = lines.locate(e.offset.to_usize().min(source.len()));
        SyntaxError { line, col, message: e.error.to_string() }
    })?;
    let package_init = Path::new(path).file_name().is_some_and(|n| n == "__init__.py");
    let builtins = builtins();
    let mut checker = Checker::new(&builtins, package_init);
    checker.stmts(&suite);
    Ok(checker.finish(&lines))
}

#[cfg(feature = "check")]
/// Checks `files` and writes one line per refusal, `FILE:LINE:COL: undefined name
/// 'x'` (or `... referenced before assignment`), and one line for a file that cannot
/// be read or parsed (`FILE:LINE:COL: syntax error: ...`, `FILE: cannot read: ...`).
/// Returns whether every file passed.
pub fn check_files(files: &[impl AsRef<Path>], out: &mut impl Write) -> std::io::Result<bool> {
    let mut all_ok = true;
    for file in files {
        let file = file.as_ref();
        let shown = file.display();
        let source = match std::fs::read(file).map(String::from_utf8) {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => {
                writeln!(out, "{shown}: cannot read: not UTF-8 ({e})")?;
                all_ok = false;
                continue;
            }
            Err(e) => {
                writeln!(out, "{shown}: cannot read: {e}")?;
                all_ok = false;
                continue;
            }
        };
        match check_source(&source, &file.to_string_lossy()) {
            Ok(refusals) => {
                all_ok &= refusals.is_empty();
                for r in refusals {
                    writeln!(out, "{shown}:{r}")?;
                }
            }
            Err(e) => {
                all_ok = false;
                writeln!(out, "{shown}:{e}")?;
            }
        }
    }
    Ok(all_ok)
}

#[cfg(all(test, feature = "check"))]
mod tests {
    use super::*;

    /// The refusals of `source` as `LINE:COL: message` lines.
    fn refused(source: &str) -> Vec<String> {
        check_source(source, "t.py").unwrap().iter().map(|r| r.to_string()).collect()
    }

    fn names(source: &str) -> Vec<String> {
        check_source(source, "t.py").unwrap().into_iter().map(|r| r.name).collect()
    }

    #[test]
    fn bindings_of_every_kind_resolve() {
        let ok = "\
import os.path, sys as system
from json import dumps as d, loads
def f(a, /, b=1, *args, c, d=2, **kw):
    x = y = 1
    x += 1
    z: int = 3
    for i, (j, k) in enumerate([]):
        pass
    with open(a) as (fh, other):
        pass
    try:
        pass
    except ValueError as e:
        print(e)
    if (w := 3):
        pass
    class C:
        pass
    def g():
        nonlocal x
        return x, a, C, w
    global G
    G = 1
    return [n for n in args if n], {m: v for m, v in kw.items()}, lambda q: q + b
match sys_arg := 1:
    case [first, *rest]: print(first, rest)
    case {'k': val, **others}: print(val, others)
    case int(real=px) as p: print(px, p)
    case other: print(other)
print(os, system, d, loads, f, sys_arg, G)
";
        assert_eq!(refused(ok), Vec::<String>::new());
    }

    #[test]
    fn undefined_names_are_refused_where_read() {
        assert_eq!(refused("x = 1\nprint(y + x)\n"), ["2:7: undefined name 'y'"]);
        // Module and class bodies are read in order.
        assert_eq!(names("print(a)\na = 1\n"), ["a"]);
        assert_eq!(names("class C:\n    b = a\n    a = 1\n"), ["a"]);
        // Attributes after a dot are not checked, the value before it is.
        assert_eq!(names("import os\nos.nope\nnope.path\n"), ["nope"]);
        // `except ... as e` ends with the handler.
        assert_eq!(names("try:\n    pass\nexcept E as e:\n    pass\nprint(e)\n"), ["E", "e"]);
    }

    #[test]
    fn functions_see_the_whole_module_but_not_class_bodies() {
        // A forward reference from a function body is allowed.
        assert!(names("def f():\n    return g()\ndef g():\n    return 1\n").is_empty());
        // Class scopes are not visible from methods.
        assert_eq!(names("class C:\n    k = 1\n    def m(self):\n        return k\n"), ["k"]);
        // ... but are from comprehensions directly in the class.
        assert!(names("class C:\n    k = 1\n    l = [k for _ in range(3)]\n").is_empty());
        // Comprehension variables stay in the comprehension.
        assert_eq!(names("[i for i in range(3)]\nprint(i)\n"), ["i"]);
        // A walrus in a comprehension binds in the enclosing scope.
        assert!(names("[y := i for i in range(3)]\nprint(y)\n").is_empty());
    }

    #[test]
    fn locals_read_before_assignment_are_refused_as_pyflakes_words_them() {
        let src = "x = 1\ndef f():\n    print(x)\n    x = 2\n";
        assert_eq!(
            refused(src),
            ["3:11: local variable 'x' defined in enclosing scope on line 1 referenced before \
              assignment"]
        );
        assert_eq!(
            refused("def f():\n    print(len)\n    len = 2\n"),
            ["2:11: local variable 'len' defined as a builtin referenced before assignment"]
        );
        // `x += 1` on a global in a function reads the unbound local.
        assert_eq!(names("x = 1\ndef f():\n    x += 1\n"), ["x"]);
        // Unless declared global.
        assert!(names("x = 1\ndef f():\n    global x\n    x += 1\n").is_empty());
        // A local never bound in the function, nowhere else either: undefined.
        assert_eq!(refused("def f():\n    print(q)\n    q = 1\n"), ["2:11: undefined name 'q'"]);
    }

    #[test]
    fn the_permissive_cases_refuse_nothing() {
        assert!(names("from os import *\nprint(anything)\n").is_empty());
        assert!(names("try:\n    unicode\nexcept NameError:\n    unicode = str\n").is_empty());
        assert!(names("def f(x: 'Undefined') -> 'Nope':\n    return x\n").is_empty());
        assert!(names(
            "from __future__ import annotations\ndef f(x: Undefined) -> Nope:\n    return x\n"
        )
        .is_empty());
        assert!(names("x = 1\nif x:\n    del x\nprint(x)\n").is_empty());
        // An unconditional `del` unbinds.
        assert_eq!(names("x = 1\ndel x\nprint(x)\n"), ["x"]);
        assert_eq!(names("del never\n"), ["never"]);
        // An annotation without a value binds nothing.
        assert_eq!(names("a: int\nprint(a)\n"), ["a"]);
        // `__path__` only in a package's `__init__.py`; class magic only in a class.
        assert!(check_source("print(__path__)\n", "pkg/__init__.py").unwrap().is_empty());
        assert_eq!(names("print(__path__)\n"), ["__path__"]);
        assert!(names("class C:\n    q = __qualname__\n").is_empty());
    }

    #[test]
    fn names_are_read_under_nfkc_as_python_reads_them() {
        assert!(names("width = 1\nprint(\u{ff57}\u{ff49}\u{ff44}\u{ff54}\u{ff48})\n").is_empty());
        assert_eq!(names("print(\u{ff57}idth)\n"), ["width"]);
    }

    #[test]
    fn a_global_statement_withdraws_earlier_refusals_of_the_name() {
        assert!(names("def f():\n    global late\n    late = 1\nprint(late)\n").is_empty());
    }

    #[test]
    fn syntax_errors_are_reported_with_their_position() {
        let err = check_source("x = 1\ny = )\n", "t.py").unwrap_err();
        assert_eq!(err.line, 2, "{err}");
        assert!(err.to_string().contains("syntax error"), "{err}");
    }

    #[test]
    fn check_files_prints_one_line_per_refusal_and_says_whether_all_passed() {
        let dir = std::env::temp_dir().join(format!("espalier-names-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (good, bad) = (dir.join("good.py"), dir.join("bad.py"));
        std::fs::write(&good, "print(len([]))\n").unwrap();
        std::fs::write(&bad, "print(a)\nprint(b)\n").unwrap();
        let mut out = Vec::new();
        assert!(check_files(&[&good], &mut out).unwrap());
        assert!(out.is_empty());
        assert!(!check_files(&[&good, &bad], &mut out).unwrap());
        let text = String::from_utf8(out).unwrap();
        let b = bad.display();
        assert_eq!(text, format!("{b}:1:7: undefined name 'a'\n{b}:2:7: undefined name 'b'\n"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
