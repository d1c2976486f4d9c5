//! A digest of everything the parser nodes decide, to show that a change to the nodes
//! changes nothing they offer (a check, not a benchmark): the tree of parsers is fed
//! the hand-written corpus (`tests/scripts/valid` and `invalid`) and random-walk
//! scripts, one segment at a time, and at every segment the digest takes the segment's
//! regex, its alternatives (with their look-ahead classes), the choices behind them
//! (lexeme, meaning, note, offering depth), the nesting, the node kinds and the
//! finishing plan's length; at the end the logged tokens, or the error of a refused
//! script. One line per input (name, segments, FNV-1a 64 digest), then the total.
//!
//! Usage: `cargo run --release -p espalier-slua --example node_digest [-- WALKS]`
//! (default 300 walks, seeds 0..300); run it before and after a change to the nodes
//! and compare the outputs byte for byte.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use espalier_slua::walker::{walk, Rng, WalkConfig};
use espalier_slua::CheckError;
use espalier_slua::{Api, Env, Tree};

/// FNV-1a over 64 bits: the same value on every machine and toolchain.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn add(&mut self, s: &str) {
        for &b in s.as_bytes().iter().chain(b"\n") {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

fn files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts").join(dir);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "slua"))
        .collect();
    out.sort();
    out
}

/// Adds what the tree offers now to `h`.
fn digest_segment(tree: &mut Tree, h: &mut Fnv) {
    h.add(&format!("depth {} finish {}", tree.depth(), tree.finish_len(400)));
    let kinds: Vec<&str> = tree.frames().iter().map(|f| f.kind()).collect();
    h.add(&kinds.join(" "));
    if tree.has_finished() {
        h.add("finished");
        return;
    }
    let seg = tree.segment();
    h.add(seg.regex());
    for alt in &seg.alts {
        h.add(&format!("{alt:?}"));
    }
    for (depth, choice) in &seg.choices {
        h.add(&format!("{depth} {choice:?}"));
    }
}

/// Feeds `text` one segment at a time (as [`Tree::feed_text`] splits it), digesting
/// every segment met; returns the number of segments and the digest.
fn digest_script(env: Rc<Env>, text: &str) -> (usize, u64) {
    let mut tree = Tree::new(env);
    let mut h = Fnv::new();
    let result = feed(&mut tree, text, &mut h);
    digest_segment(&mut tree, &mut h);
    match result {
        Ok(n) => {
            for t in tree.tokens() {
                h.add(&format!("{} {:?} {}", t.text, t.ann, t.offset));
            }
            (n, h.0)
        }
        Err((n, e)) => {
            // The text the tree's own error type wrote before it became `CheckError`
            // (digests stay comparable with older builds').
            h.add(&format!("at byte {}: expected /{}/", e.offset, e.expected));
            (n, h.0)
        }
    }
}

fn feed(tree: &mut Tree, text: &str, h: &mut Fnv) -> Result<usize, (usize, CheckError)> {
    let bytes = text.as_bytes();
    let (mut pos, mut n) = (0, 0);
    while pos < bytes.len() {
        if tree.carry().is_none() && bytes[pos..].iter().all(|b| b.is_ascii_whitespace()) {
            break;
        }
        if tree.has_finished() {
            let e = CheckError { offset: pos, expected: "(end of script)".into() };
            return Err((n, e));
        }
        digest_segment(tree, h);
        let end = segment_end(tree, bytes, pos).map_err(|e| (n, e))?;
        let piece = std::str::from_utf8(&bytes[pos..end])
            .map_err(|_| (n, CheckError { offset: pos, expected: "utf-8".into() }))?;
        tree.feed_segment(piece).map_err(|e| (n, e))?;
        pos = end;
        n += 1;
    }
    Ok(n)
}

/// Where the segment starting at `pos` ends (the segment automaton's first accept).
fn segment_end(tree: &mut Tree, bytes: &[u8], pos: usize) -> Result<usize, CheckError> {
    let seg = tree.segment();
    let auto = seg.auto_at(pos)?;
    let mut s = auto.start();
    for (i, &b) in bytes.iter().enumerate().skip(pos) {
        s = auto.next(&s, b);
        if auto.is_dead(&s) {
            break;
        }
        if auto.accepts(&s) {
            return Ok(i + 1);
        }
    }
    Err(CheckError { offset: pos, expected: seg.regex().to_string() })
}

fn main() {
    let walks: u64 = std::env::args().nth(1).map_or(300, |a| a.parse().expect("a number"));
    let api = Api::dungeon();
    let mut total = Fnv::new();
    let mut report = |name: String, (n, d): (usize, u64)| {
        let line = format!("{name} segments={n} digest={d:016x}");
        println!("{line}");
        total.add(&line);
    };
    let mut effects: Vec<String> = Vec::new();
    for path in files("valid") {
        let src = std::fs::read_to_string(&path).expect("a readable script");
        let env = Rc::new(Env::new(api.clone(), effects.clone()));
        report(format!("valid/{}", path.file_name().unwrap().to_string_lossy()), {
            digest_script(env, &src)
        });
        if let Some(name) = src.strip_prefix("effect ").and_then(|r| r.split(';').next()) {
            effects.push(name.trim().to_string());
        }
    }
    let env = Rc::new(Env::new(api.clone(), effects));
    for path in files("invalid") {
        let src = std::fs::read_to_string(&path).expect("a readable script").replace("@@", "");
        let name = format!("invalid/{}", path.file_name().unwrap().to_string_lossy());
        report(name, digest_script(env.clone(), &src));
    }
    let env = Rc::new(Env::new(api, vec![]));
    for seed in 0..walks {
        let w = walk(env.clone(), &mut Rng::new(seed), &WalkConfig::default());
        report(format!("walk/{seed} bytes={}", w.text.len()), digest_script(env.clone(), &w.text));
    }
    println!("total digest={:016x}", total.0);
}
