//! [`LoopTail`]: `do b end;`, the end that `while` and `for` statements share.

use super::protocol::{kw, Choice};

/// Where a loop's `do b end;` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopTail {
    /// Before `do`.
    Do,
    /// The block is running.
    Body,
    /// Before `end`.
    End,
    /// Before `;`.
    Semi,
    /// Complete.
    Done,
}

impl LoopTail {
    /// The lexemes accepted next.
    pub fn choices(self) -> Vec<Choice> {
        match self {
            LoopTail::Do => vec![kw("do")],
            LoopTail::End => vec![kw("end")],
            LoopTail::Semi => vec![kw(";")],
            LoopTail::Body | LoopTail::Done => vec![],
        }
    }

    /// Takes `do`, `end` or `;`; whether the block starts now (the loop pushes it).
    pub fn step(&mut self) -> bool {
        *self = match *self {
            LoopTail::Do => LoopTail::Body,
            LoopTail::End => LoopTail::Semi,
            LoopTail::Semi => LoopTail::Done,
            s => s,
        };
        *self == LoopTail::Body
    }

    /// Takes the block.
    pub fn child_done(&mut self) {
        if *self == LoopTail::Body {
            *self = LoopTail::End;
        }
    }
}
