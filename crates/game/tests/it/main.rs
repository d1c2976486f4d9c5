//! The integration tests of espalier-game, linked as one test binary: one build and one
//! link instead of one per suite. Each module is a suite, named after its file, and
//! nextest names each test by its module (`differential::...`, each test in its own
//! process); one suite: `cargo nextest run --release -p espalier-game -E
//! 'test(/^differential::/)'`.

mod common;
mod differential;
mod fuzz;
mod hostile;
