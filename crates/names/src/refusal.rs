//! [`Refusal`]: a name a program reads where Python's scoping rules find no binding,
//! with where and why, worded as pyflakes words it.

use std::fmt;

/// Why a name was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// No scope the read can see binds the name, and it is no builtin (a NameError
    /// at run time, pyflakes' `undefined name`); also `del` of a name the current
    /// scope does not bind.
    Undefined,
    /// A function reads the name from an enclosing scope (or the builtins), then
    /// binds it itself: the read finds the function's own, still unbound, local (an
    /// UnboundLocalError at run time, pyflakes' `referenced before assignment`).
    UnboundLocal {
        /// Where the binding the read meant is.
        outer: Outer,
    },
}

/// The outer binding a function's read of a later local meant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outer {
    /// A binding of an enclosing scope, on this line (1-based).
    Line(usize),
    /// A builtin.
    Builtin,
}

/// One refused name read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// Byte offset of the read in the source.
    pub offset: usize,
    /// 1-based line of the read.
    pub line: usize,
    /// 1-based column of the read, in characters.
    pub col: usize,
    /// The name read.
    pub name: String,
    /// Why it was refused.
    pub why: Why,
}

impl fmt::Display for Refusal {
    /// `LINE:COL: undefined name 'x'` or `LINE:COL: local variable 'x' defined in
    /// enclosing scope on line N referenced before assignment`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: ", self.line, self.col)?;
        match &self.why {
            Why::Undefined => write!(f, "undefined name '{}'", self.name),
            Why::UnboundLocal { outer: Outer::Line(l) } => write!(
                f,
                "local variable '{}' defined in enclosing scope on line {l} referenced before \
                 assignment",
                self.name
            ),
            Why::UnboundLocal { outer: Outer::Builtin } => write!(
                f,
                "local variable '{}' defined as a builtin referenced before assignment",
                self.name
            ),
        }
    }
}

/// Byte offsets to 1-based lines and character columns.
#[cfg_attr(not(feature = "check"), allow(dead_code))]
pub(crate) struct LineIndex<'s> {
    source: &'s str,
    starts: Vec<usize>,
}

#[cfg_attr(not(feature = "check"), allow(dead_code))]
impl<'s> LineIndex<'s> {
    pub(crate) fn new(source: &'s str) -> Self {
        let mut starts = vec![0];
        starts.extend(source.match_indices('\n').map(|(i, _)| i + 1));
        Self { source, starts }
    }

    /// The 1-based line and character column of `offset`.
    pub(crate) fn locate(&self, offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1];
        let col = self.source.get(start..offset).map_or(offset - start, |s| s.chars().count());
        (line, col + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_lines_and_character_columns() {
        let idx = LineIndex::new("ab\nçd x\n\ny");
        assert_eq!(idx.locate(0), (1, 1));
        assert_eq!(idx.locate(3), (2, 1));
        assert_eq!(idx.locate(7), (2, 4), "ç is two bytes, one character");
        assert_eq!(idx.locate(10), (4, 1));
    }
}
