//! Helpers shared by the test suites of Espalier's crates (a dev-dependency only).
//!
//! - [`slow`]: the one gate of the slow suites, `ESPALIER_SLOW=1` on, unset or `0` off,
//!   anything else a test failure that names the variable.
//! - [`require`]: a test input or oracle that must exist; a missing one fails the test
//!   with the command that installs it (`bash scripts/setup.sh`), never a silent pass.
//! - [`run_bounded`]: a child process under a timeout, with its peak memory measured
//!   (the hostile-input suites).
//! - [`ScratchDir`]: a folder of small files for a test that reads files from disk,
//!   removed when dropped.
//! - [`files_under`]: a corpus's files with one extension, sorted.
//! - [`python_batch`]: one Python process answering for many texts (the oracles).
//! - [`assert_none`]: a suite's gathered failures judged at its end, the first few
//!   listed.
//! - [`each_language`]: a suite's check run on each case of its per-language table (one
//!   suite for every language instead of a copy per language).
//! - [`assert_names_round_trip`]: an enum named on the command line parses back from
//!   each of its names and refuses an unknown one, quoting it.
//! - [`ready`]: the value of a future that must not wait (a CPU device's read-back).
//!
//! ```
//! if espalier_testkit::slow() {
//!     // the full corpus
//! }
//! ```

mod assert_none;
mod bounded;
mod files_under;
mod names;
mod per_language;
mod python_batch;
mod ready;
mod require;
mod scratch;
mod slow;

pub use assert_none::assert_none;
pub use bounded::{run_bounded, Bounded};
pub use files_under::files_under;
pub use names::assert_names_round_trip;
pub use per_language::each_language;
pub use python_batch::python_batch;
pub use ready::ready;
pub use require::{require, SETUP};
pub use scratch::ScratchDir;
pub use slow::{slow, slow_from};
