//! The finishing mask of the Go constraint, against Go's own parser (`gofmt -e`,
//! /usr/bin/gofmt; a missing oracle fails the test).
//!
//! From points of real Go (standard library files cut at seeded offsets) and from the
//! ends of masked random walks, tokens are taken at random from the finishing mask
//! until the mask is EOS alone, every promise of the mask checked at every step
//! (`common::finish`: a non-empty subset of the exact mask, each token strictly
//! lowering the remaining cost, the end within the first cost). `gofmt -e` must
//! accept every finished file. The walks take no token with a NUL byte or invalid
//! UTF-8 of its own (gofmt refuses both anywhere in a source; the grammar, like the
//! exact mask, does not look at encodings).
//!
//! CI: 30 cuts and 10 walks; `ESPALIER_SLOW=1`: 300 cuts and 100 walks.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::finish::{check_all, cuts, walks, Oracle, Verdict};

const GOFMT: &str = "/usr/bin/gofmt";

/// `gofmt -e`'s first error for `text`, or `None` when it parses.
fn gofmt_error(text: &[u8]) -> Option<String> {
    espalier_testkit::require(GOFMT, "the Go parser (gofmt)", Some("apt-get install golang-go"));
    let mut child = Command::new(GOFMT)
        .arg("-e")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gofmt");
    let mut stdin = child.stdin.take().unwrap();
    let payload = text.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&payload).unwrap());
    let out = child.wait_with_output().expect("gofmt output");
    writer.join().unwrap();
    (!out.status.success())
        .then(|| String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("").to_string())
}

/// `gofmt -e` verdicts, one file at a time.
fn gofmt_verdicts(texts: &[Vec<u8>]) -> Vec<Verdict> {
    texts.iter().map(|t| gofmt_error(t).map_or(Verdict::Accepted, Verdict::Refused)).collect()
}

/// `gofmt -e` as the oracle (it excuses nothing).
fn oracle() -> Oracle<'static> {
    Oracle { name: "gofmt -e", judge: &gofmt_verdicts, excused: "excused" }
}

#[test]
fn finishing_go_from_cuts_of_the_standard_library() {
    let (_tok, vocab, trie) = common::smollm2();
    let mut rng = common::Rng(0x60_F151);
    let starts = cuts(&common::GO, &common::GO.kit(&trie), (9, 2, 40_000), (30, 300), &mut rng);
    check_all("go cuts", starts, &vocab, &mut rng, &oracle());
}

#[test]
fn finishing_go_after_masked_random_walks() {
    let (_tok, vocab, trie) = common::smollm2();
    let mut rng = common::Rng(0x60_3A1C);
    // No token with a NUL byte or invalid UTF-8 of its own: gofmt refuses both.
    let take = |b: &[u8]| !b.contains(&0) && std::str::from_utf8(b).is_ok();
    let starts = walks(
        &common::GO,
        &vocab,
        &common::GO.kit(&trie),
        "package p\n\n",
        (10, 100),
        take,
        &mut rng,
    );
    check_all("go walks", starts, &vocab, &mut rng, &oracle());
}
