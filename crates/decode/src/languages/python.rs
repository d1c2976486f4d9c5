//! Python 3.11: the grammar of espalier-grammar (`grammars/python.lark` with the
//! indentation layer), HumanEval and MBPP, judged by CPython (`ast.parse`, tests).

use std::sync::Arc;

use super::{Benchmark, BenchmarkFormat, Evaluation, Framing, LangSpec, Prompting};
use crate::{LangError, Mode};

/// The registry's entry.
pub static LANGUAGE: Python = Python;

/// Python 3.11.
pub struct Python;

/// A HumanEval-style header: the request `bench decode` continues by default.
const SAMPLE: &str = "from typing import List\n\n\ndef running_max(numbers: List[int]) -> List[int]:\n    \"\"\"Return the list of the largest element seen so far at each position.\n    >>> running_max([1, 3, 2, 5])\n    [1, 3, 3, 5]\n    \"\"\"\n";

/// Stop strings for completing one Python function body: a new top-level statement
/// means the function has ended (the usual HumanEval set).
pub fn python_stop_strings() -> Vec<String> {
    ["\ndef ", "\nclass ", "\nif __name__", "\nprint(", "\n#", "\nassert ", "\n```"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// A chat's Python answer is one function (or class): [`python_stop_strings`] plus a
/// newline followed by any identifier start or decorator at column 0, i.e. the first
/// top-level statement after the function. Without them the model, once the function
/// is written, goes on with top-level calls (`result = add(1, 2)`) until the budget
/// cuts a line in half; with them the text ends after the function's last line, which
/// is valid Python. A top-level line inside a multi-line string is the one case they
/// cut wrongly.
pub fn python_top_level_stops() -> Vec<String> {
    let mut stops = python_stop_strings();
    let starts = ('a'..='z').chain('A'..='Z').chain(['_', '@']);
    let extra: Vec<String> = starts.map(|c| format!("\n{c}")).filter(|s| !stops.contains(s)).collect();
    stops.extend(extra);
    stops
}

const BENCHMARKS: &[Benchmark] = &[
    Benchmark { name: "humaneval", data_file: "HumanEval.jsonl.gz", format: BenchmarkFormat::Problems },
    Benchmark { name: "mbpp", data_file: "mxeval-mbpp_release_v1.jsonl", format: BenchmarkFormat::Problems },
];

impl LangSpec for Python {
    fn name(&self) -> &'static str {
        "python"
    }

    fn label(&self) -> &'static str {
        "Python"
    }

    fn modes(&self) -> &'static [Mode] {
        &Mode::ALL
    }

    fn grammar(&self) -> Option<Result<Arc<espalier_grammar::Language>, LangError>> {
        Some(espalier_grammar::python().map_err(|e| LangError::Grammar { lang: "python", message: e.to_string() }))
    }

    fn has_finishing_mask(&self) -> bool {
        true
    }

    fn fills_in_the_middle(&self) -> bool {
        true
    }
}

impl Prompting for Python {
    fn sample_request(&self) -> &'static str {
        SAMPLE
    }

    fn fence(&self) -> &'static str {
        "```python\n"
    }

    fn stop_strings(&self, framing: Framing) -> Vec<String> {
        match framing {
            Framing::Chat { fence: true, .. } => python_top_level_stops(),
            _ => python_stop_strings(),
        }
    }
}

impl Evaluation for Python {
    fn check_renames(&self) -> &'static [(&'static str, &'static str)] {
        &[("NL", "NEWLINE"), ("$END", "EOF"), ("MATCH", "\"match\""), ("CASE", "\"case\"")]
    }

    fn benchmarks(&self) -> &'static [Benchmark] {
        BENCHMARKS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fenced_chat_stops_at_the_first_top_level_line() {
        let stops = LANGUAGE.stop_strings(Framing::Chat { system: true, fence: true, full: false });
        let text = "def add(a, b):\n    return a + b\n\nresult = add(1, 2)\n";
        let cut = stops.iter().filter_map(|s| text.find(s.as_str())).min().unwrap();
        assert_eq!(&text[..cut], "def add(a, b):\n    return a + b\n");
        // Indented lines and closing brackets at column 0 do not stop.
        let body = "def f(\n    a,\n):\n    if a:\n        return 1\n    return 2";
        assert!(stops.iter().all(|s| !body.contains(s.as_str())));
        let mut sorted = stops.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), stops.len(), "no duplicate stop strings");
        // A completion stops only at the usual HumanEval set.
        assert_eq!(LANGUAGE.stop_strings(Framing::Completion), python_stop_strings());
        assert!(!python_stop_strings().iter().any(|s| text.contains(s.as_str())));
    }

    #[test]
    fn the_check_reports_python_names() {
        let mut out = Vec::new();
        let dir = std::env::temp_dir().join(format!("espalier-pycheck-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (good, bad) = (dir.join("good.py"), dir.join("bad.py"));
        std::fs::write(&good, "match = 1\nif match:\n    pass\n").unwrap();
        std::fs::write(&bad, "x = 1\n)\n").unwrap();
        let ok = LANGUAGE.check_files(std::slice::from_ref(&good), &Default::default(), &mut out, &mut Vec::new()).unwrap().all_valid();
        assert!(ok && out.is_empty(), "{}", String::from_utf8_lossy(&out));
        let ok = LANGUAGE.check_files(&[good, bad.clone()], &Default::default(), &mut out, &mut Vec::new()).unwrap().all_valid();
        let text = String::from_utf8(out).unwrap();
        assert!(!ok);
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.starts_with(&format!("{}:2:1: expected one of ", bad.display())), "{text}");
        assert!(text.contains(" EOF") && !text.contains("$END"), "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
