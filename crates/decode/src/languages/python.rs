//! Python 3.11: the grammar of espalier-grammar (`grammars/python.lark` with the
//! indentation layer), HumanEval and MBPP, judged by CPython (`ast.parse`, tests).

use super::{Benchmark, BenchmarkFormat, Framing, GrammarLanguage};
use crate::Mode;

/// The registry's entry: Python 3.11.
pub static LANGUAGE: GrammarLanguage = GrammarLanguage {
    name: "python",
    label: "Python",
    modes: &Mode::ALL,
    grammar: espalier_grammar::python,
    has_finishing_mask: true,
    fills_in_the_middle: true,
    sample_request: SAMPLE,
    fence: "```python\n",
    answer_start: "",
    stop_strings,
    check_renames: &[("NL", "NEWLINE"), ("$END", "EOF"), ("MATCH", "\"match\""), ("CASE", "\"case\"")],
    benchmarks: BENCHMARKS,
};

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

/// A fenced chat's answer ends at its first top-level line after the function
/// ([`python_top_level_stops`]); anything else at the usual set ([`python_stop_strings`]).
fn stop_strings(framing: Framing) -> Vec<String> {
    match framing {
        Framing::Chat { fence: true, .. } => python_top_level_stops(),
        _ => python_stop_strings(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::languages::grammar_language::check_report;
    use crate::stop::cut_at_stop;
    use crate::Prompting;

    #[test]
    fn a_fenced_chat_stops_at_the_first_top_level_line() {
        let stops = LANGUAGE.stop_strings(Framing::Chat { system: true, fence: true, full: false });
        let text = "def add(a, b):\n    return a + b\n\nresult = add(1, 2)\n";
        assert_eq!(cut_at_stop(text, &stops), "def add(a, b):\n    return a + b\n");
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
        let text = check_report(&LANGUAGE, "py", "match = 1\nif match:\n    pass\n", "x = 1\n)\n");
        assert!(text.starts_with(":2:1: expected one of "), "{text}");
        assert!(text.contains(" EOF") && !text.contains("$END"), "{text}");
    }
}
