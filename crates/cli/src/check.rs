//! `espalier check --lang LANG FILE...`: validates source files against a language of
//! the registry ([`espalier_decode::Evaluation::check_files`]).
//!
//! Contract (used by checks outside the test suite; keep it stable): exit status 0
//! when every file is valid, 1 when one is invalid, 2 when one cannot be read; for each invalid file exactly one line on
//! stdout for its first error: `FILE:LINE:COL: expected one of ...` for a grammar
//! language (LINE and COL 1-based, COL in characters), `FILE:OFFSET: expected /REGEX/`
//! for sLua (scripts checked in order: an effect registers itself for the scripts
//! after it). A file that cannot be read (missing, a directory, an I/O error, over
//! 128 MiB: [`espalier_decode::source_file::MAX_SOURCE_BYTES`]) is an input error: one
//! line `espalier check: cannot read FILE: why` on stderr, the other files are still
//! checked, and the exit status is 2.
//!
//! `--names` (Python only): the names check of `espalier-names` instead, one line per
//! refused name, `FILE:LINE:COL: undefined name 'x'` (or `... referenced before
//! assignment`; a file it cannot parse gets `FILE:LINE:COL: syntax error: ...`), exit
//! status 0 when no name is refused in any file, 1 otherwise, 2 when a file cannot be
//! read (as above).

use std::path::PathBuf;
use std::process::ExitCode;

use espalier_decode::{CheckOptions, Checked, Lang};

/// Arguments of `espalier check`.
#[derive(clap::Args)]
pub struct Args {
    /// The language of the files.
    #[arg(long, value_parser = crate::lang_parser())]
    pub lang: Lang,
    /// Files to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// sLua only: the API file (JSON); the bundled dungeon API when left out.
    #[arg(long)]
    pub api: Option<PathBuf>,
    /// Python only: check that every name read resolves (Python's scoping rules, as
    /// pyflakes applies them) instead of the grammar.
    #[arg(long)]
    pub names: bool,
}

/// Runs `espalier check`.
pub fn run(args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    if args.names {
        if args.lang.name() != "python" {
            return Err(format!("--names checks Python only, not {}", args.lang.name()).into());
        }
        // Files it cannot read are input errors here too (exit 2, one line on stderr);
        // the size limit of `read_source` holds before the names check reads them.
        let mut readable = Vec::new();
        let mut unreadable = 0;
        for path in &args.files {
            match espalier_decode::source_file::read_source(path) {
                Ok(_) => readable.push(path.clone()),
                Err(e) => {
                    unreadable += 1;
                    eprintln!(
                        "espalier check: {}",
                        espalier_decode::source_file::cannot_read(path, &e)
                    );
                }
            }
        }
        let all_ok = espalier_names::check_files(&readable, &mut std::io::stdout().lock())?;
        let found = Checked { invalid: usize::from(!all_ok), unreadable };
        return Ok(ExitCode::from(found.exit_code()));
    }
    let options = CheckOptions { api: args.api };
    let mut errors = Vec::new();
    let found = args.lang.evaluation().check_files(
        &args.files,
        &options,
        &mut std::io::stdout().lock(),
        &mut errors,
    )?;
    for line in String::from_utf8_lossy(&errors).lines() {
        eprintln!("espalier check: {line}");
    }
    Ok(ExitCode::from(found.exit_code()))
}
