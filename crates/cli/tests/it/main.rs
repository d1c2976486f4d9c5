//! The integration tests of espalier-cli, linked as one test binary: one build and one
//! link instead of one per suite. Each module is a suite, named after its file, and
//! nextest names each test by its module (`backend_fallback::...`, each test in its own
//! process); one suite: `cargo nextest run --release -p espalier-cli -E
//! 'test(/^backend_fallback::/)'`.

mod backend_fallback;
mod byo_model;
mod check_names;
mod common;
mod hostile_check;
mod readme;
mod warm_up;
