//! Go 1.19: the grammar of espalier-grammar (`grammars/go.lark`, generics included,
//! automatic semicolons in the lexer layer), checked against `gofmt -e`.
//!
//! Benchmark: HumanEval-X Go (`espalier eval humaneval-go`), judged by `gofmt -e`
//! (syntax) and `go test` in an offline module (pass@1; see the lab's `espalier_lab::harness::go`).

use super::{Benchmark, BenchmarkFormat, Framing, GrammarLanguage};
use crate::Mode;

/// The registry's entry: Go 1.19.
pub static LANGUAGE: GrammarLanguage = GrammarLanguage {
    name: "go",
    label: "Go",
    modes: &Mode::GRAMMAR,
    grammar: espalier_grammar::go,
    has_finishing_mask: true,
    fills_in_the_middle: false,
    sample_request: SAMPLE,
    fence: "```go\n",
    answer_start: "package main\n\n",
    stop_strings,
    // DNAME is the parser's reading of an identifier as a declared name
    check_renames: &[("DNAME", "NAME"), ("IMPORT_PATH", "STRING"), ("$END", "EOF")],
    benchmarks: BENCHMARKS,
};

/// A HumanEval-X-style header (with the package clause a whole file needs): the
/// request `bench decode` continues by default.
const SAMPLE: &str = "package main\n\nimport (\n    \"strings\"\n)\n\n// Return the words of s in reverse order, separated by single spaces.\n// >>> ReverseWords(\"hello big world\")\n// \"world big hello\"\nfunc ReverseWords(s string) string {\n";

/// Stop strings for completing one Go function: a new top-level declaration (or
/// comment, or the end of a chat's code fence) means the function has ended.
pub fn go_stop_strings() -> Vec<String> {
    ["\nfunc ", "\ntype ", "\nvar ", "\nconst ", "\nimport ", "\npackage ", "\n//", "\n```"].iter().map(|s| s.to_string()).collect()
}

const BENCHMARKS: &[Benchmark] =
    &[Benchmark { name: "humaneval-go", data_file: "humanevalx_go.jsonl.gz", format: BenchmarkFormat::Problems }];

fn stop_strings(framing: Framing) -> Vec<String> {
    match framing {
        // A chat's answer is a whole file after `package main` (imports, types, more
        // than one function): it ends with the code fence, not at the first top-level
        // declaration as a completed function body does.
        Framing::Chat { fence: true, .. } => vec!["\n```".to_string()],
        Framing::Chat { .. } => Vec::new(),
        _ => go_stop_strings(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::languages::grammar_language::check_report;
    use crate::stop::cut_at_stop;
    use crate::Prompting;

    #[test]
    fn a_chat_answer_is_a_whole_file_and_a_completion_one_function() {
        let chat = LANGUAGE.stop_strings(Framing::Chat { system: true, fence: true, full: false });
        let file = "package main\n\nimport \"fmt\"\n\n// Sum adds.\nfunc Sum(xs []int) int {\n\treturn 0\n}\n\nfunc main() {\n\tfmt.Println(Sum(nil))\n}\n```";
        assert_eq!(cut_at_stop(file, &chat), file.trim_end_matches("\n```"), "only the fence ends a chat's file");
        let body = "\treturn 0\n}\n\nfunc main() {";
        let completion = LANGUAGE.stop_strings(Framing::Completion);
        assert_eq!(cut_at_stop(body, &completion), "\treturn 0\n}\n", "a completion ends with its function");
    }

    #[test]
    fn the_check_reports_go_names() {
        let good = "package p\n\nfunc f[T any](x T) T {\n\treturn x\n}\n";
        let text = check_report(&LANGUAGE, "go", good, "package p\n\nfunc f() {\n\tgo g\n}\n");
        assert!(text.starts_with(":4:6: expected one of "), "{text}");
        assert!(!text.contains("DNAME"), "{text}");
    }

    #[test]
    fn the_sample_is_a_viable_go_prefix_and_stops_end_a_function() {
        let go = espalier_grammar::go().unwrap();
        let mut r = go.recognizer();
        r.push_bytes(SAMPLE.as_bytes()).unwrap();
        r.push_bytes(b"\treturn s\n}\n").unwrap();
        assert!(r.is_complete());
        let text = "\treturn s\n}\n\nfunc main() {}\n";
        assert_eq!(cut_at_stop(text, &go_stop_strings()), "\treturn s\n}\n");
    }
}
