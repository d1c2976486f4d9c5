//! The Python exception classes of the module: one base class, `EspalierError`, and
//! one subclass per kind of error the Rust side reports, so callers can catch exactly
//! what they expect (a refused prompt, a token the grammar does not allow...).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    espalier,
    EspalierError,
    PyException,
    "Base class of every error raised by espalier."
);
create_exception!(
    espalier,
    GrammarError,
    EspalierError,
    "A grammar (or an sLua API file) that does not compile."
);
create_exception!(
    espalier,
    VocabularyError,
    EspalierError,
    "A vocabulary that cannot be built (bad tokenizer.json, GGUF, ids)."
);
create_exception!(
    espalier,
    VocabMismatchError,
    EspalierError,
    "A buffer or logits row whose width is not the vocabulary's size."
);
create_exception!(
    espalier,
    PromptRejectedError,
    EspalierError,
    "A prompt that is not a valid prefix of the language."
);
create_exception!(
    espalier,
    TokenRejectedError,
    EspalierError,
    "A token the constraint does not allow at this point (the mask had it off)."
);
create_exception!(espalier, TokenIdError, EspalierError, "A token id outside the vocabulary.");
create_exception!(
    espalier,
    FinishedError,
    EspalierError,
    "Use of a constraint after it committed the end-of-sequence token."
);
create_exception!(
    espalier,
    BufferError,
    EspalierError,
    "A mask or logits buffer of the wrong type, layout or mutability."
);
create_exception!(
    espalier,
    ThreadError,
    EspalierError,
    "Use of an sLua constraint from a thread other than the one that built it."
);

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("EspalierError", py.get_type::<EspalierError>())?;
    m.add("GrammarError", py.get_type::<GrammarError>())?;
    m.add("VocabularyError", py.get_type::<VocabularyError>())?;
    m.add("VocabMismatchError", py.get_type::<VocabMismatchError>())?;
    m.add("PromptRejectedError", py.get_type::<PromptRejectedError>())?;
    m.add("TokenRejectedError", py.get_type::<TokenRejectedError>())?;
    m.add("TokenIdError", py.get_type::<TokenIdError>())?;
    m.add("FinishedError", py.get_type::<FinishedError>())?;
    m.add("BufferError", py.get_type::<BufferError>())?;
    m.add("ThreadError", py.get_type::<ThreadError>())?;
    Ok(())
}
