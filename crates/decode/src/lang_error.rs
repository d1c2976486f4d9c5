//! [`LangError`]: why a language's constraint, prompt or check could not be made.

use espalier_constraint::Rejected;

use crate::Mode;

/// Why a constraint could not be built or primed, or a prompt not rendered.
#[derive(Debug, thiserror::Error)]
pub enum LangError {
    /// The grammar failed to compile.
    #[error("the {lang} grammar does not compile: {message}")]
    Grammar {
        /// Which language.
        lang: &'static str,
        /// The grammar's error.
        message: String,
    },
    /// The text before the cursor is not a valid prefix of the language.
    #[error("the prompt is not a valid {lang} prefix: {rejected} (prompt byte {offset})")]
    Prefix {
        /// Which language.
        lang: &'static str,
        /// Offset of the refused byte in the prompt.
        offset: usize,
        /// What the constraint said.
        rejected: Rejected,
    },
    /// A mode this language cannot run.
    #[error("mode {mode} is not available for {lang}: {why}")]
    Mode {
        /// The mode asked for.
        mode: Mode,
        /// Which language.
        lang: &'static str,
        /// Why.
        why: &'static str,
    },
    /// A fill-in-the-middle request no middle can complete (a prefix that is not the
    /// start of a program, a suffix no middle joins, text that is not UTF-8).
    #[error("fill in the middle ({lang}): {error}")]
    Fim {
        /// Which language.
        lang: &'static str,
        /// What the quotient found, with the offending byte.
        error: espalier_grammar::FimError,
    },
    /// The chat template did not render.
    #[error(transparent)]
    Template(#[from] crate::prompt::TemplateError),
    /// A file or setting a language needs (an API file, an interpreter) is unusable.
    #[error("{0}")]
    Setup(String),
}
