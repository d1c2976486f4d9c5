//! The integration tests of espalier-constraint, linked as one test binary: one build and one
//! link instead of one per suite. Each module is a suite, named after its file, and
//! nextest names each test by its module (`exactness::...`, each test in its own
//! process); one suite: `cargo nextest run --release -p espalier-constraint -E
//! 'test(/^exactness::/)'`.

mod common;
mod exactness;
mod fim_exactness;
mod fim_finishing;
mod finishing;
mod finishing_walk;
mod fstring_masks;
mod hostile;
mod mask_memo;
mod nul_bytes;
mod random_walks;
mod root_summaries;
mod soundness;
mod vocab_trie;
