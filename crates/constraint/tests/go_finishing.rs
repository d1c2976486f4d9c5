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

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::finish::finish;
use espalier_constraint::{Constraint, GrammarConstraint, Strategy, TokenSet, Vocab};

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

/// Runs `finish` from every start, then asks `gofmt -e` about the results.
fn check_all(
    name: &str,
    starts: Vec<(String, GrammarConstraint)>,
    vocab: &Vocab,
    rng: &mut common::Rng,
) {
    let mut failures = Vec::new();
    let (mut finished, mut tokens, mut costs, mut longest) = (0usize, 0usize, 0u64, 0usize);
    let mut times = Vec::new();
    let mut slowest = (0.0f64, String::new());
    for (label, mut c) in starts {
        let first_mask = times.len();
        let before = String::from_utf8_lossy(c.text()).into_owned();
        let tail = |t: &str| {
            t.chars().rev().take(80).collect::<Vec<_>>().into_iter().rev().collect::<String>()
        };
        match finish(&mut c, vocab, rng, &mut times) {
            Ok((n, cost)) => {
                tokens += n;
                costs += cost as u64;
                longest = longest.max(n);
                match gofmt_error(c.text()) {
                    None => finished += 1,
                    Some(e) => failures.push(format!(
                        "{label}: gofmt -e refuses the finished file: {e}\n  text ended {:?}\n  now ends {:?}",
                        tail(&before),
                        tail(&String::from_utf8_lossy(c.text()))
                    )),
                }
            }
            Err(e) => failures.push(format!(
                "{label}: {e}\n  text ends {:?}\n  now ends {:?}",
                tail(&before),
                tail(&String::from_utf8_lossy(c.text()))
            )),
        }
        let worst = times[first_mask..].iter().copied().fold(0.0, f64::max);
        if worst > slowest.0 {
            slowest = (worst, format!("{label}, text ended {:?}", tail(&before)));
        }
    }
    eprintln!("{name}: slowest finishing mask {:.1} ms: {}", slowest.0, slowest.1);
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| {
        times
            .get(((times.len() as f64 * p) as usize).min(times.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0.0)
    };
    eprintln!(
        "{name}: {finished} finished and accepted by gofmt -e, {} failures; {tokens} tokens taken (longest finish {longest}), sum of start costs {costs}; finishing mask wall time p50 {:.1} ms, p90 {:.1} ms, max {:.1} ms over {} masks",
        failures.len(),
        pct(0.5),
        pct(0.9),
        times.last().copied().unwrap_or(0.0),
        times.len()
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(finished > 0);
}

#[test]
fn finishing_go_from_cuts_of_the_standard_library() {
    let (_tok, vocab, trie) = common::smollm2();
    let cuts = if common::slow() { 300 } else { 30 };
    let files = common::go_sample(9, 2, 40_000);
    let files: Vec<&(String, String)> =
        files.iter().filter(|(_, t)| common::go_accepts(t)).collect();
    assert!(files.len() > 50, "only {} Go files found", files.len());
    let mut rng = common::Rng(0x60_F151);
    let mut starts = Vec::new();
    for i in 0..cuts {
        let (path, text) = files[rng.below(files.len())];
        let mut at = rng.below(text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let mut c = common::go_constraint(&trie, Strategy::Exact, None);
        c.commit(&text.as_bytes()[..at]).expect("a prefix of a valid file is viable");
        starts.push((format!("cut {i} {path}@{at}"), c));
    }
    check_all("go cuts", starts, &vocab, &mut rng);
}

#[test]
fn finishing_go_after_masked_random_walks() {
    let (_tok, vocab, trie) = common::smollm2();
    let walks = if common::slow() { 100 } else { 10 };
    let mut rng = common::Rng(0x60_3A1C);
    let mut mask = TokenSet::empty(vocab.len());
    let eos = vocab.eos() as usize;
    let mut starts = Vec::new();
    for w in 0..walks {
        let mut c = common::go_constraint(&trie, Strategy::Exact, None);
        c.commit(b"package p\n\n").unwrap();
        // Walk, then go on (up to 40 more tokens) until the file is unfinished.
        let steps = 10 + rng.below(80);
        for step in 0..steps + 40 {
            if step >= steps && !c.is_complete() {
                break;
            }
            c.fill_mask(&vocab, &mut mask);
            let members: Vec<usize> = mask
                .iter()
                .filter(|&t| {
                    t != eos
                        && !vocab.bytes(t as u32).contains(&0)
                        && std::str::from_utf8(vocab.bytes(t as u32)).is_ok()
                })
                .collect();
            if members.is_empty() {
                break;
            }
            c.commit(vocab.bytes(members[rng.below(members.len())] as u32)).unwrap();
        }
        starts.push((format!("walk {w}"), c));
    }
    check_all("go walks", starts, &vocab, &mut rng);
}
