//! The integration tests of espalier-model, linked as one test binary: one build and one
//! link instead of one per suite. Each module is a suite, named after its file, and
//! nextest names each test by its module (`backend_agreement::...`, each test in its own
//! process); one suite: `cargo nextest run --release -p espalier-model -E
//! 'test(/^backend_agreement::/)'`.

mod backend_agreement;
mod common;
mod gguf_fuzz;
mod model_fuzz;
mod model_golden;
mod quant_reference;
mod synthetic_golden;
mod synthetic_quantized;
mod tokenizer_golden;
mod vocab_golden;
mod weight_formats;
