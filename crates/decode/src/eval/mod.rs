//! The evaluation harness behind `espalier eval` (native only): the HumanEval and
//! MBPP problem sets, checking completions with CPython (`ast.parse` for syntax, the
//! problem's tests in a time-limited subprocess for pass@1), and the report types.

pub mod dataset;
pub mod oracle;
pub mod python;
pub mod report;
pub mod slua;

pub use dataset::{load_humaneval, load_mbpp, load_problems, DatasetError, Problem};
pub use oracle::Oracle;
pub use python::{PythonChecker, TestOutcome};
pub use report::{ProblemRecord, Summary};
