//! The integration tests of espalier-decode, linked as one test binary: one build and one
//! link instead of one per suite. Each module is a suite, named after its file, and
//! nextest names each test by its module (`chat_templates::...`, each test in its own
//! process); one suite: `cargo nextest run --release -p espalier-decode -E
//! 'test(/^chat_templates::/)'`.

mod chat_templates;
mod common;
mod generation_loop;
mod hostile_use;
mod late_logits;
mod names_masks;
mod names_wrap_up;
mod real_model;
