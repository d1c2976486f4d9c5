//! Helpers shared by the test suites of Espalier's crates (a dev-dependency only).
//!
//! - [`slow`]: the one gate of the slow suites, `ESPALIER_SLOW=1` on, unset or `0` off,
//!   anything else a test failure that names the variable.
//! - [`require`]: a test input or oracle that must exist; a missing one fails the test
//!   with the command that installs it (`bash scripts/setup.sh`), never a silent pass.
//!
//! ```
//! if espalier_testkit::slow() {
//!     // the full corpus
//! }
//! ```

mod require;
mod slow;

pub use require::{require, SETUP};
pub use slow::{slow, slow_from};
