//! The integration tests of espalier-grammar, linked as one test binary: one build and one
//! link instead of one per suite. Each module is a suite, named after its file, and
//! nextest names each test by its module (`earley_agreement::...`, each test in its own
//! process); one suite: `cargo nextest run --release -p espalier-grammar -E
//! 'test(/^earley_agreement::/)'`.

mod common;
mod earley_agreement;
mod fim_corpus;
mod fstring_fuzz;
mod go_cases;
mod go_corpus;
mod go_mutants;
mod gofmt;
mod grammar_errors;
mod mutants;
mod python_cases;
mod python_corpus;
mod stack_cost_memo;
