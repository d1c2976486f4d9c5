//! The README's commands, checked against the binary (cheap: no model is loaded).
//!
//! Reads the ```sh blocks of the repository's README.md and, for every line that runs
//! `espalier ...`: runs it when it is cheap (`check` and `--help`; a trailing comment
//! `# exit N` gives the expected status, else 0), and for the others (generation, which
//! loads the model) asks the subcommand's `--help` and requires every `--flag` the line
//! uses to be listed there, and every path it names to exist. Also: the first block is
//! the two commands CI and the checker read, every relative link of the README points at
//! a file, and the README stays a page a user reads (at most 200 lines, no UTC times,
//! no commit hashes).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).expect("README.md at the repository root")
}

/// The lines of the README's ```sh blocks, one Vec per block, continuation lines joined.
fn sh_blocks(text: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in text.lines() {
        let fence = line.trim_start().starts_with("```");
        match (&mut current, fence) {
            (None, true) if line.trim() == "```sh" => current = Some(Vec::new()),
            (Some(_), true) => blocks.push(current.take().unwrap()),
            (Some(lines), false) => match lines.last_mut() {
                Some(last) if last.ends_with('\\') => {
                    last.pop();
                    last.push_str(line.trim_start());
                }
                _ => lines.push(line.to_string()),
            },
            _ => {}
        }
    }
    blocks
}

/// A command line split into words (single, double and `$'...'` quotes; no expansions)
/// and its trailing comment.
fn split(line: &str) -> (Vec<String>, String) {
    let (mut words, mut word, mut in_word) = (Vec::new(), String::new(), false);
    let mut quote: Option<char> = None; // '\'', '"', or '$' for `$'...'` (backslash escapes)
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match (quote, c) {
            (Some('$'), '\\') => match chars.next().map(|(_, e)| e) {
                Some('n') => word.push('\n'),
                Some('t') => word.push('\t'),
                Some(e) => word.push(e),
                None => {}
            },
            (Some('$'), '\'') => quote = None,
            (Some(q), c) if c == q && q != '$' => quote = None,
            (Some(_), c) => word.push(c),
            (None, '$') if chars.peek().map(|&(_, n)| n) == Some('\'') => {
                chars.next();
                (quote, in_word) = (Some('$'), true);
            }
            (None, '\'' | '"') => (quote, in_word) = (Some(c), true),
            (None, '#') if !in_word => return (words, line[i + 1..].trim().to_string()),
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                }
                in_word = false;
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    (words, String::new())
}

fn espalier(args: &[String]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_espalier"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the espalier binary runs")
}

/// The words naming the subcommand: those before the first option or path.
fn subcommand(args: &[String]) -> Vec<String> {
    args.iter().take_while(|w| !w.starts_with('-') && !w.contains(['/', '.'])).cloned().collect()
}

#[test]
fn the_first_commands_are_serve_then_test() {
    let blocks = sh_blocks(&readme());
    let first: Vec<String> = blocks[0].iter().map(|l| split(l).0.join(" ")).collect();
    assert_eq!(first, ["bash scripts/serve.sh", "bash scripts/test.sh"], "README's first block");
}

#[test]
fn every_espalier_command_runs_or_names_real_flags_and_files() {
    let mut ran = 0;
    let mut checked = 0;
    for line in sh_blocks(&readme()).concat() {
        let (words, comment) = split(&line);
        if words.first().map(String::as_str) != Some("espalier") {
            continue;
        }
        let args = &words[1..];
        let sub = subcommand(args);
        let cheap =
            sub.first().map(String::as_str) == Some("check") || args.iter().any(|a| a == "--help");
        if cheap {
            let want = comment
                .strip_prefix("exit ")
                .and_then(|c| c.split(':').next()?.trim().parse().ok());
            let out = espalier(args);
            assert_eq!(
                out.status.code(),
                Some(want.unwrap_or(0)),
                "`{line}`:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            ran += 1;
            continue;
        }
        let mut help_args = sub.clone();
        help_args.push("--help".into());
        let help = espalier(&help_args);
        assert!(help.status.success(), "`espalier {}` is not a command (`{line}`)", sub.join(" "));
        let help = String::from_utf8_lossy(&help.stdout);
        for flag in args.iter().filter(|a| a.starts_with("--")) {
            let flag = flag.split('=').next().unwrap();
            let listed = help.match_indices(flag).any(|(i, _)| {
                !help[i + flag.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '-')
            });
            assert!(listed, "`{line}`: `espalier {}` has no {flag}", sub.join(" "));
        }
        for path in args.iter().filter(|a| !a.starts_with('-') && a.contains('/')) {
            assert!(root().join(path).exists(), "`{line}`: {path} does not exist");
        }
        checked += 1;
    }
    assert!(ran >= 4 && checked >= 2, "README's espalier commands: {ran} run, {checked} checked");
}

#[test]
fn relative_links_point_at_files() {
    let text = readme();
    let mut links = 0;
    for (i, _) in text.match_indices("](") {
        let target = text[i + 2..].split(')').next().unwrap();
        if target.starts_with("http") {
            continue;
        }
        let path = target.split('#').next().unwrap();
        assert!(root().join(path).exists(), "README links to {target}, which does not exist");
        links += 1;
    }
    assert!(links > 0);
}

#[test]
fn the_readme_is_a_page_for_users() {
    let text = readme();
    let lines = text.lines().count();
    assert!(
        lines <= 200,
        "README.md has {lines} lines: move detail to BENCHMARKS.md or CONTRIBUTING.md"
    );
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
        let hex = (7..=40).contains(&word.len()) && word.chars().all(|c| c.is_ascii_hexdigit());
        let mixed = word.chars().any(|c| c.is_ascii_digit())
            && word.chars().any(|c| c.is_ascii_alphabetic());
        assert!(!(hex && mixed && word == word.to_lowercase()), "README names a commit: {word}");
    }
    assert!(!text.contains(" UTC"), "README gives a UTC time: measurements go to BENCHMARKS.md");
}
