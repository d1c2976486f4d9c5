//! The integration tests of espalier-lab, linked as one test binary: one build and one
//! link instead of one per suite. Each module is a suite, named after its file, and
//! nextest names each test by its module (`wrap_up_deep::...`, each test in its own
//! process); one suite: `cargo nextest run --release -p espalier-lab -E
//! 'test(/^wrap_up_deep::/)'`.

// The generation loop's fixtures (a deterministic hash model), shared with decode's tests.
#[path = "../../../decode/tests/it/common/mod.rs"]
mod common;
mod wrap_up_deep;
mod wrap_up_grammar;
mod wrap_up_slua;
