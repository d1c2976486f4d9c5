//! [`Evaluation`]: the facet of a language that judges programs: `espalier check`
//! ([`CheckOptions`], [`Checked`]), the translation into what runs them, and the
//! benchmarks of `espalier eval` (their oracles live in the lab).

use std::io::Write;
use std::path::PathBuf;

use super::LangSpec;
use crate::LangError;

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

/// What `espalier check` found ([`Evaluation::check_files`]): how many files were
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

/// How a language's programs are checked, translated and benchmarked.
pub trait Evaluation: LangSpec {
    /// Terminal names to rename in `espalier check`'s messages (grammar languages).
    fn check_renames(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// The title of the translation panel ([`Evaluation::translation`]), for a language
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
