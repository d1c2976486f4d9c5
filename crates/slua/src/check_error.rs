//! [`CheckError`]: why text was refused, as every step of checking reports it (the
//! tree fed a segment or a text, the syntax tree built from the tokens, the checker
//! over a whole script).

use std::fmt;

/// Why text was refused: where, and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError {
    /// Byte offset of the first byte no valid continuation has (the text's length
    /// when it ends too early), from the start of the text given.
    pub offset: usize,
    /// What was expected there: the regex of the next segment, or a description in
    /// parentheses (`(end of script)`).
    pub expected: String,
}

impl CheckError {
    /// The same refusal in a text that starts `by` bytes earlier.
    pub fn shifted(self, by: usize) -> CheckError {
        CheckError { offset: self.offset + by, ..self }
    }
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: expected /{}/", self.offset, self.expected)
    }
}

impl std::error::Error for CheckError {}
