//! Which threads may use an `espalier.Constraint`.
//!
//! - Python (with or without the names layer), Go, a Lark grammar, fill-in-the-middle:
//!   any thread. Their Rust constraints are `Send + Sync` (asserted below at compile
//!   time) and share their caches through `Arc`s and locks; PyO3's borrow flag lets
//!   one call at a time reach a constraint (a second thread calling while the first
//!   computes a mask with the GIL released gets PyO3's `RuntimeError: Already
//!   borrowed`, never a data race).
//! - sLua: only the thread that built it (its tree of parsers shares `Rc`s with its
//!   clones); any other thread gets `ThreadError`, and a drop there leaks the tree
//!   rather than touch its reference counts (as PyO3 does for `unsendable` classes,
//!   which raise a panic instead of an error).

use std::thread::ThreadId;

use espalier_constraint::{FimConstraint, GrammarConstraint};
use espalier_decode::names_constraint::NamesConstraint;
use espalier_decode::Unconstrained;
use pyo3::PyResult;

use crate::errors::ThreadError;

const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<GrammarConstraint>();
    send_sync::<FimConstraint>();
    send_sync::<NamesConstraint>();
    send_sync::<Unconstrained>();
};

/// The thread that built a constraint, and whether only that thread may use it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Owner {
    thread: ThreadId,
    pinned: bool,
}

impl Owner {
    /// The current thread; `pinned`: only it may use the constraint.
    pub(crate) fn here(pinned: bool) -> Self {
        Self { thread: std::thread::current().id(), pinned }
    }

    /// Whether the current thread may use the constraint.
    pub(crate) fn allows_here(&self) -> bool {
        !self.pinned || std::thread::current().id() == self.thread
    }

    /// `Ok` when the current thread may use the constraint, `ThreadError` otherwise.
    pub(crate) fn check(&self, what: &str) -> PyResult<()> {
        if self.allows_here() {
            return Ok(());
        }
        Err(ThreadError::new_err(format!(
            "{what}: an sLua constraint is used only on the thread that built it ({:?}, this is {:?}); \
             build one per thread (Python, Go, grammar and fill-in-the-middle constraints go anywhere)",
            self.thread,
            std::thread::current().id()
        )))
    }
}
