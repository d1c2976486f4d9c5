//! espalier-python: the `espalier._espalier` extension module (PyO3, one abi3 wheel for
//! every CPython >= 3.9), wrapped by the pure-Python package in `python/espalier`
//! (maturin's mixed layout) that adds the logits processors for transformers
//! (`espalier.hf`) and llama-cpp-python (`espalier.llama_cpp`).
//!
//! - [`vocabulary`]: `Vocabulary` from a GGUF file, a Hugging Face `tokenizer.json`, or
//!   token byte strings;
//! - [`constraint`]: `Constraint` (Python / Go exact or SynCode, fill-in-the-middle, a
//!   Lark grammar, sLua over an API file) with `commit`, `fill_mask`, `fill_bitmask`,
//!   `mask_logits`, `is_complete`, `inspect`, `clone`;
//! - [`inner`]: the Rust constraint inside (the decoder's, or fill-in-the-middle);
//! - [`buffer`]: masks written into caller-owned memory (the buffer protocol);
//! - `owner`: which threads may use a constraint (any; sLua: the one that built it);
//! - [`errors`]: the exception classes, all subclasses of `EspalierError`.
//!
//! Built and tested by `scripts/test-python.sh`; not in the workspace's default members
//! (the native test run needs no Python).

pub mod buffer;
pub mod constraint;
pub mod errors;
mod owner;
pub mod vocabulary;

use pyo3::prelude::*;

#[pymodule]
fn _espalier(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<vocabulary::Vocabulary>()?;
    m.add_class::<constraint::Constraint>()?;
    errors::register(m)?;
    m.add("WRAP_UP_MARGIN", espalier_decode::generator::WRAP_UP_MARGIN)?;
    Ok(())
}
