//! Shared helpers of the Go tests: the Go 1.19 standard library as a corpus and
//! `gofmt -e` (Go's own parser) as the oracle. A missing oracle or corpus fails
//! the test that needs it (install with `scripts/setup.sh`: Debian's golang-go).

#![allow(dead_code)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// gofmt of Go 1.19 (Debian's golang-1.19-go).
pub const GOFMT: &str = "/usr/lib/go-1.19/bin/gofmt";
/// The corpus root: the Go 1.19 standard library and commands.
pub const GO_CORPUS: &str = "/usr/lib/go-1.19/src";

/// Fails the test, naming the set-up command, when gofmt or the corpus is missing.
pub fn require_oracle() {
    espalier_testkit::require(GOFMT, "gofmt of Go 1.19 (golang-go)", None);
    espalier_testkit::require(GO_CORPUS, "the Go 1.19 standard library (golang-go)", None);
}

/// Every .go file under the corpus, sorted (testdata directories included: they
/// hold the deliberately invalid files).
pub fn go_files() -> Vec<PathBuf> {
    espalier_testkit::files_under(GO_CORPUS, "go", &[])
}

/// Directories of deliberately invalid (and valid) parser and type-checker test
/// files, taken whole into the CI sample so that it has negatives.
pub const NEGATIVE_DIRS: &[&str] = &[
    "cmd/compile/internal/syntax/testdata",
    "go/types/testdata/check",
    "go/types/testdata/examples",
    "go/types/testdata/fixedbugs",
];

/// The CI sample: `n` corpus files (every k-th, deterministic) plus every file of
/// [`NEGATIVE_DIRS`], sorted and without duplicates.
pub fn go_sample(n: usize) -> Vec<PathBuf> {
    let all = go_files();
    let step = (all.len() as f64 / n as f64).max(1.0);
    let mut v: Vec<PathBuf> = (0..n)
        .map(|i| (i as f64 * step) as usize)
        .take_while(|&i| i < all.len())
        .map(|i| all[i].clone())
        .collect();
    let roots: Vec<PathBuf> = NEGATIVE_DIRS.iter().map(|d| Path::new(GO_CORPUS).join(d)).collect();
    v.extend(all.iter().filter(|f| roots.iter().any(|r| f.starts_with(r))).cloned());
    v.sort();
    v.dedup();
    v
}

/// gofmt -e verdicts for files on disk: `true` = parsed without error. One gofmt
/// process per 500 files; errors are read from stderr (`path:line:col: message`).
pub fn gofmt_verdicts(files: &[PathBuf]) -> Vec<bool> {
    require_oracle();
    let mut bad: HashSet<String> = HashSet::new();
    for chunk in files.chunks(500) {
        let out = Command::new(GOFMT).arg("-e").arg("-l").args(chunk).output().expect("run gofmt");
        let err = String::from_utf8_lossy(&out.stderr);
        for line in err.lines() {
            if let Some(i) = line.find(".go:") {
                bad.insert(line[..i + 3].to_string());
            }
        }
        assert!(
            out.status.success() || !err.is_empty(),
            "gofmt failed without a message: {:?}",
            out.status
        );
    }
    files.iter().map(|f| !bad.contains(&f.display().to_string())).collect()
}

/// gofmt -e verdicts for texts (written to files in a fresh temporary directory).
pub fn gofmt_texts(texts: &[Vec<u8>]) -> Vec<bool> {
    let dir = std::env::temp_dir().join(format!(
        "espalier-gofmt-{}-{:x}",
        std::process::id(),
        texts.len() as u64 ^ texts.iter().map(|t| t.len() as u64).sum::<u64>()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let files: Vec<PathBuf> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let p = dir.join(format!("t{i:05}.go"));
            std::fs::write(&p, t).expect("write temporary file");
            p
        })
        .collect();
    let v = gofmt_verdicts(&files);
    let _ = std::fs::remove_dir_all(&dir);
    v
}

/// Our verdict on a text: the LR recognizer accepts it as a whole Go file.
pub fn ours(
    go: &std::sync::Arc<espalier_grammar::Language>,
    text: &[u8],
) -> Result<(), espalier_grammar::ParseError> {
    let mut r = go.recognizer();
    r.push_bytes(text).and_then(|_| r.finish())
}
