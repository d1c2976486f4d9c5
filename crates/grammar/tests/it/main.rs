//! The integration tests of espalier-grammar, linked as one test binary: one build and one
//! link instead of one per suite. Each module is a suite, named after its file, and
//! nextest names each test by its module (`corpus::...`, each test in its own
//! process); one suite: `cargo nextest run --release -p espalier-grammar -E
//! 'test(/^corpus::/)'`.

mod common;
mod corpus;
mod fim_corpus;
mod fstring_fuzz;
mod go_cases;
mod gofmt;
mod grammar_errors;
mod mutants;
mod python_cases;
mod stack_cost_memo;
mod tree_sitter;
