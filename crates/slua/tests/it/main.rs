//! The integration tests of espalier-slua, linked as one test binary: one build and one
//! link instead of one per suite. Each module is a suite, named after its file, and
//! nextest names each test by its module (`constraint::...`, each test in its own
//! process); one suite: `cargo nextest run --release -p espalier-slua -E
//! 'test(/^constraint::/)'`.

mod common;
mod constraint;
mod finishing;
mod scripts;
