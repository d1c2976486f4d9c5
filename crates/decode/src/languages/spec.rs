//! [`LangSpec`]: what a language declares to the registry, with the small types its
//! methods speak in ([`Framing`] of a prompt, [`Benchmark`], [`CheckOptions`]).

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use espalier_constraint::Vocab;

use crate::{ConstraintInput, GrammarKit, Kit, LangConstraint, LangError, Mode};

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
    /// instruction ([`LangSpec::instruction`]) as the user turn, after the language's
    /// system message when `system`, and the answer opens with the language's code
    /// fence when `fence`. `full` asks for the language's longest instruction (sLua:
    /// the whole language document and API).
    Chat {
        /// Start with [`LangSpec::system`] (else the template's default).
        system: bool,
        /// End the prompt inside the answer's code fence ([`LangSpec::fence`]).
        fence: bool,
        /// The full instruction rather than the compact one.
        full: bool,
    },
}

/// What a benchmark is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchmarkFormat {
    /// Problems to complete and test, from a data file of JSON lines, gzipped or not
    /// (HumanEval, MXEval's MBPP and multilingual HumanEval, HumanEval-X; see
    /// `espalier_lab::harness::load_problems`), judged by the language's oracle (the
    /// lab's `espalier_lab::harness::oracle_of`).
    Problems,
    /// The sLua game's categories (`espalier_lab::harness::slua::CATEGORIES`), built in.
    SluaCategories,
}

/// A benchmark `espalier eval NAME` runs for a language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Benchmark {
    /// The name on the command line.
    pub name: &'static str,
    /// The default data file, in `../shared/data` (empty when built in).
    pub data_file: &'static str,
    /// Its layout.
    pub format: BenchmarkFormat,
}

/// Settings of `espalier check` that some languages read.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// sLua: the game API file (JSON); the bundled one when `None`.
    pub api: Option<PathBuf>,
}

/// What `espalier check` found ([`LangSpec::check_files`]): how many files were
/// invalid and how many could not be read at all (missing, a directory, an I/O error,
/// over [`crate::source_file::MAX_SOURCE_BYTES`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    pub invalid: usize,
    pub unreadable: usize,
}

impl Checked {
    /// Every file was read and is valid.
    pub fn all_valid(&self) -> bool {
        self.invalid == 0 && self.unreadable == 0
    }

    /// The exit status of `espalier check`: 2 when a file could not be read (an input
    /// error), else 1 when one is invalid, else 0.
    pub fn exit_code(&self) -> u8 {
        if self.unreadable > 0 {
            2
        } else if self.invalid > 0 {
            1
        } else {
            0
        }
    }
}

/// One language of the registry. Grammar languages implement [`LangSpec::grammar`]
/// and inherit the kit, the constraint and the file check.
pub trait LangSpec: Sync + 'static {
    /// The name on the command line (`--lang`), in the web app's menu and in reports.
    fn name(&self) -> &'static str;

    /// The name shown to people.
    fn label(&self) -> &'static str;

    /// The modes it supports, `none` included.
    fn modes(&self) -> &'static [Mode] {
        &Mode::GRAMMAR
    }

    /// Why the modes it lacks are missing (for the error that refuses one).
    fn missing_modes_note(&self) -> &'static str {
        "not supported"
    }

    /// Refuses a mode the language does not support.
    fn check_mode(&self, mode: Mode) -> Result<(), LangError> {
        if self.modes().contains(&mode) {
            Ok(())
        } else {
            Err(LangError::Mode { mode, lang: self.name(), why: self.missing_modes_note() })
        }
    }

    /// The compiled grammar, for a grammar language (compiled once, shared).
    fn grammar(&self) -> Option<Result<Arc<espalier_grammar::Language>, LangError>> {
        None
    }

    /// Terminal names to rename in `espalier check`'s messages (grammar languages).
    fn check_renames(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// What the language builds once per vocabulary (a grammar's kit).
    fn kit(&self, vocab: &Arc<Vocab>) -> Result<Kit, LangError> {
        let Some(grammar) = self.grammar() else { return Ok(Kit::Plain) };
        let kit = GrammarKit::new(self.name(), grammar?, vocab);
        Ok(Kit::Grammar(match self.modes().contains(&Mode::Names) {
            true => kit.with_names(vocab.clone()),
            false => kit,
        }))
    }

    /// A fresh constraint for a constraining `mode` from the language's `kit`.
    fn constraint(
        &self,
        kit: &Kit,
        mode: Mode,
        input: &ConstraintInput,
    ) -> Result<LangConstraint, LangError> {
        match kit {
            Kit::Grammar(kit) => kit.constraint(mode, input.prefix),
            Kit::Plain | Kit::TreeOfParsers { .. } => Err(LangError::Setup(format!(
                "{} has no grammar to build a constraint from",
                self.name()
            ))),
        }
    }

    /// The framing `espalier generate --lang NAME` and `bench decode` give a request.
    fn cli_framing(&self) -> Framing {
        Framing::Completion
    }

    /// A request in [`LangSpec::cli_framing`] for benchmarks run without one.
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

    /// Whether it can fill in the middle between a prefix and a suffix
    /// ([`crate::Task::fim`]; the web app offers the mode only then).
    fn fills_in_the_middle(&self) -> bool {
        false
    }

    /// Whether its constraint has a finishing mask, so the wrap-up does something
    /// (the web app shows the wrap-up control only then).
    fn has_finishing_mask(&self) -> bool {
        false
    }

    /// Stop strings for a generation under `framing`.
    fn stop_strings(&self, framing: Framing) -> Vec<String>;

    /// The title of the translation panel ([`LangSpec::translation`]), for a language
    /// that is translated before it runs (sLua: `Translated Lua`).
    fn translation_label(&self) -> Option<&'static str> {
        None
    }

    /// The program translated into what runs it, for display (sLua: Lua 5.4), or
    /// `None` for a language that runs as it is. `Err` says why not (yet).
    fn translation(&self, _code: &str) -> Option<Result<String, String>> {
        None
    }

    /// `espalier check`: checks `files`, writing one line per invalid file to `out` and
    /// one line per file it cannot read to `errors` (`cannot read FILE: why`). The
    /// default serves grammar languages: the recognizer over each file, `FILE:LINE:COL:
    /// expected one of ...`.
    fn check_files(
        &self,
        files: &[PathBuf],
        _options: &CheckOptions,
        out: &mut dyn Write,
        errors: &mut dyn Write,
    ) -> Result<Checked, LangError> {
        let grammar = self.grammar().ok_or_else(|| {
            LangError::Setup(format!("{} has no grammar to check files with", self.name()))
        })??;
        Ok(crate::grammar_check::check_files(&grammar, self.check_renames(), files, out, errors))
    }

    /// The benchmarks of `espalier eval` in this language.
    fn benchmarks(&self) -> &'static [Benchmark] {
        &[]
    }
}
