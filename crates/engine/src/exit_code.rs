//! How the command-line front ends (`espalier`, `espalier-lab`) end: the command's own
//! exit code, or the error on stderr and exit code 2.

use std::process::ExitCode;

/// `result`'s exit code; an error is printed as `error: ...` and exits with 2.
pub fn exit_code(result: Result<ExitCode, Box<dyn std::error::Error>>) -> ExitCode {
    result.unwrap_or_else(|err| {
        eprintln!("error: {err}");
        ExitCode::from(2)
    })
}
