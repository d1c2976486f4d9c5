//! Go 1.19: the grammar of espalier-grammar (`grammars/go.lark`, generics included,
//! automatic semicolons in the lexer layer), checked against `gofmt -e`.
//!
//! Benchmark: HumanEval-X Go (`espalier eval humaneval-go`), judged by `gofmt -e`
//! (syntax) and `go test` in an offline module (pass@1; see the lab's `espalier_lab::harness::go`).

use std::sync::Arc;

use super::{Benchmark, BenchmarkFormat, Evaluation, Framing, LangSpec, Prompting};
use crate::LangError;

/// The registry's entry.
pub static LANGUAGE: Go = Go;

/// Go 1.19.
pub struct Go;

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

impl LangSpec for Go {
    fn name(&self) -> &'static str {
        "go"
    }

    fn label(&self) -> &'static str {
        "Go"
    }

    fn grammar(&self) -> Option<Result<Arc<espalier_grammar::Language>, LangError>> {
        Some(espalier_grammar::go().map_err(|e| LangError::Grammar { lang: "go", message: e.to_string() }))
    }

    fn has_finishing_mask(&self) -> bool {
        true
    }
}

impl Prompting for Go {
    fn sample_request(&self) -> &'static str {
        SAMPLE
    }

    fn fence(&self) -> &'static str {
        "```go\n"
    }

    fn answer_start(&self) -> &'static str {
        "package main\n\n"
    }

    fn stop_strings(&self, framing: Framing) -> Vec<String> {
        match framing {
            // A chat's answer is a whole file after `package main` (imports, types, more
            // than one function): it ends with the code fence, not at the first top-level
            // declaration as a completed function body does.
            Framing::Chat { fence: true, .. } => vec!["\n```".to_string()],
            Framing::Chat { .. } => Vec::new(),
            _ => go_stop_strings(),
        }
    }
}

impl Evaluation for Go {
    fn check_renames(&self) -> &'static [(&'static str, &'static str)] {
        // DNAME is the parser's reading of an identifier as a declared name
        &[("DNAME", "NAME"), ("IMPORT_PATH", "STRING"), ("$END", "EOF")]
    }

    fn benchmarks(&self) -> &'static [Benchmark] {
        BENCHMARKS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chat_answer_is_a_whole_file_and_a_completion_one_function() {
        let chat = LANGUAGE.stop_strings(Framing::Chat { system: true, fence: true, full: false });
        let file = "package main\n\nimport \"fmt\"\n\n// Sum adds.\nfunc Sum(xs []int) int {\n\treturn 0\n}\n\nfunc main() {\n\tfmt.Println(Sum(nil))\n}\n```";
        let cut = chat.iter().filter_map(|s| file.find(s.as_str())).min().unwrap();
        assert_eq!(&file[..cut], file.trim_end_matches("\n```"), "only the fence ends a chat's file");
        let body = "\treturn 0\n}\n\nfunc main() {";
        let cut = LANGUAGE.stop_strings(Framing::Completion).iter().filter_map(|s| body.find(s.as_str())).min().unwrap();
        assert_eq!(&body[..cut], "\treturn 0\n}\n", "a completion ends with its function");
    }

    #[test]
    fn the_check_reports_go_names() {
        let dir = espalier_testkit::ScratchDir::new(
            "gocheck",
            &[
                ("good.go", "package p\n\nfunc f[T any](x T) T {\n\treturn x\n}\n"),
                ("bad.go", "package p\n\nfunc f() {\n\tgo g\n}\n"),
            ],
        );
        let (good, bad) = (dir.path("good.go"), dir.path("bad.go"));
        let mut out = Vec::new();
        assert!(LANGUAGE.check_files(std::slice::from_ref(&good), &Default::default(), &mut out, &mut Vec::new()).unwrap().all_valid());
        assert!(out.is_empty());
        let found = LANGUAGE.check_files(&[good, bad.clone()], &Default::default(), &mut out, &mut Vec::new()).unwrap();
        assert_eq!((found.invalid, found.unreadable), (1, 0));
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.starts_with(&format!("{}:4:6: expected one of ", bad.display())), "{text}");
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
        let cut = go_stop_strings().iter().filter_map(|s| text.find(s.as_str())).min().unwrap();
        assert_eq!(&text[..cut], "\treturn s\n}\n");
    }
}
