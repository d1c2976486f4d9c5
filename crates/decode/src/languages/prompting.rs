//! [`Prompting`]: the facet of a language that turns a request into the model's prompt
//! ([`Framing`], system message, code fence, instruction) and says where generation
//! stops (stop strings).

use super::LangSpec;

/// How a request becomes the model's prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// The request is fed as it is (plain completion, no template).
    Raw,
    /// The request is code left of the cursor: it is the prompt, the constraint is
    /// primed with it, and the prompt's last token is healed.
    Completion,
    /// The request is the code left of a cursor and [`crate::Task::suffix`] the code
    /// right of it; the model writes the middle (fill in the middle). The chat turn
    /// shows the suffix, the answer starts with the prefix (its last token healed).
    Fim,
    /// The request is a task asked in a chat (the model's template): the language's
    /// instruction ([`Prompting::instruction`]) as the user turn, after the language's
    /// system message when `system`, and the answer opens with the language's code
    /// fence when `fence`. `full` asks for the language's longest instruction (sLua:
    /// the whole language document and API).
    Chat {
        /// Start with [`Prompting::system`] (else the template's default).
        system: bool,
        /// End the prompt inside the answer's code fence ([`Prompting::fence`]).
        fence: bool,
        /// The full instruction rather than the compact one.
        full: bool,
    },
}

/// How a language is prompted: the framing of CLI requests, the chat's system message,
/// the code fence, the user turn and the stop strings.
pub trait Prompting: LangSpec {
    /// The framing `espalier generate --lang NAME` and `bench decode` give a request.
    fn cli_framing(&self) -> Framing {
        Framing::Completion
    }

    /// A request in [`Prompting::cli_framing`] for benchmarks run without one.
    fn sample_request(&self) -> &'static str;

    /// The chat's system message ([`Framing::Chat`] with `system`).
    fn system(&self) -> String {
        format!("You are a helpful coding assistant. Answer with {} code only.", self.label())
    }

    /// The code fence an answer opens with (` ```python\n `).
    fn fence(&self) -> &'static str;

    /// What a fenced chat answer starts with after the fence, written into the prompt
    /// and primed into the constraint (Go: the package clause every file needs, so the
    /// model's first line is the function asked for).
    fn answer_start(&self) -> &'static str {
        ""
    }

    /// The user turn of a chat for `request` (trimmed), a program of `kind`.
    fn instruction(&self, request: &str, _kind: &str, _full: bool) -> String {
        request.to_string()
    }

    /// The kind of program a request asks for, when the caller does not say (sLua:
    /// `effect` or `talent`); empty for languages without kinds.
    fn kind_of(&self, _request: &str) -> &'static str {
        ""
    }

    /// Whether a full instruction differs from the compact one (the web app shows the
    /// choice only then).
    fn has_full_instruction(&self) -> bool {
        false
    }

    /// Stop strings for a generation under `framing`.
    fn stop_strings(&self, framing: Framing) -> Vec<String>;
}
