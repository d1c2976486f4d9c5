//! The evaluation harness behind `espalier-lab eval`: problem sets, the
//! [`Oracle`] a language judges completions with ([`oracle_of`]) (Python: CPython, `ast.parse` for
//! syntax, the problem's tests in a time-limited subprocess for pass@1; Go: `gofmt -e`
//! and `go test` in a temporary module), the sLua
//! game evaluation, and the report types.

pub mod dataset;
pub mod go;
pub mod oracle;
pub mod python;
pub mod report;
pub mod slua;
pub mod subprocess;

pub use dataset::{load_problems, DatasetError, Problem};
pub use go::GoChecker;
pub use oracle::{oracle_of, Oracle};
pub use python::{PythonChecker, TestOutcome};
pub use report::{Generation, ProblemRecord, Summary};
