//! A digest of every mask the grammar constraints give on the mask benchmark's files
//! (`BENCHMARKS.md`: five CPython files for Python, five Go 1.19 files for Go),
//! teacher-forced with the SmolLM2 tokenizer, through the kits the decoder uses: a
//! refactor of the mask code must leave every digest unchanged (issues 32 and 35).
//!
//! `cargo run --release --example mask_digest [-- FILE.py ... -- FILE.go ...]`
//! (build it with `--workspace --exclude espalier-python`: the decode crate's
//! dev-dependency on the model links burn).
//!
//! Per language and mode (`mask`: exact; `syncode`: SynCode's store, built in
//! `target/espalier-cache` on first use; `names`: Python's names layer) each file is
//! fed token by token to a fresh constraint; before each token the mask is hashed
//! (FNV-1a over its 64-bit words), and in mode `mask` the finishing mask at every
//! 8th step too. A fill-in-the-middle constraint per file (the middle is the file's
//! lines between 30% and 40% of it) adds its masks under mode `fim`. One line per
//! (language, mode): the digest, the masks hashed and the tokens committed; a true
//! token the constraint refuses ends its file there (counted, not an error).

use std::path::Path;
use std::sync::Arc;

use espalier_constraint::{Constraint, TokenSet, Vocab};
use espalier_decode::{Kit, Lang, Mode};
use espalier_model::{Gguf, Tokenizer};

const MODEL: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/models/SmolLM2-135M-Instruct.Q4_1.gguf");

const PYTHON: [&str; 5] = [
    "/usr/lib/python3.11/textwrap.py",
    "/usr/lib/python3.11/heapq.py",
    "/usr/lib/python3.11/colorsys.py",
    "/usr/lib/python3.11/bisect.py",
    "/usr/lib/python3.11/json/encoder.py",
];

const GO: [&str; 5] = [
    "/usr/lib/go-1.19/src/strings/strings.go",
    "/usr/lib/go-1.19/src/sort/sort.go",
    "/usr/lib/go-1.19/src/bufio/scan.go",
    "/usr/lib/go-1.19/src/container/heap/heap.go",
    "/usr/lib/go-1.19/src/encoding/json/encode.go",
];

/// How often (in steps) mode `mask` also hashes the finishing mask.
const FINISHING_EVERY: usize = 8;

/// FNV-1a, 64 bits, fed 64-bit words.
struct Digest {
    hash: u64,
    masks: usize,
    tokens: usize,
    refused: usize,
}

impl Digest {
    fn new() -> Self {
        Self { hash: 0xcbf2_9ce4_8422_2325, masks: 0, tokens: 0, refused: 0 }
    }

    fn word(&mut self, w: u64) {
        for b in w.to_le_bytes() {
            self.hash ^= u64::from(b);
            self.hash = self.hash.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn mask(&mut self, mask: &TokenSet) {
        self.masks += 1;
        self.word(mask.words().len() as u64);
        for &w in mask.words() {
            self.word(w);
        }
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("mask_digest: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (python, go) = match args.iter().position(|a| a == "--") {
        Some(at) => (args[..at].to_vec(), args[at + 1..].to_vec()),
        None if args.is_empty() => {
            (PYTHON.map(String::from).to_vec(), GO.map(String::from).to_vec())
        }
        None => (args, Vec::new()),
    };
    let gguf =
        Gguf::open(MODEL).map_err(|e| format!("{MODEL}: {e} (run scripts/fetch-model.sh)"))?;
    let tok = Tokenizer::from_gguf(&gguf)?;
    let vocab =
        Arc::new(Vocab::new(tok.all_token_bytes().to_vec(), &tok.special_ids(), tok.eos_id()));
    let store_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/espalier-cache");
    std::fs::create_dir_all(&store_dir)?;
    for (name, files) in [("python", &python), ("go", &go)] {
        if files.is_empty() {
            continue;
        }
        let lang = Lang::from_name(name)?;
        let mut texts = Vec::new();
        for f in files.iter() {
            let text = std::fs::read_to_string(f).map_err(|e| format!("{f}: {e}"))?;
            let ids = tok.encode(&text)?;
            texts.push((text, ids));
        }
        let mut kits = espalier_decode::Kits::new(vocab.clone()).with_store_dir(&store_dir);
        for mode in [Mode::Mask, Mode::Syncode, Mode::Names] {
            if !lang.modes().contains(&mode) {
                continue;
            }
            let kit = kits.get(lang, mode)?.clone();
            let mut d = Digest::new();
            for (_, ids) in &texts {
                digest_file(&kit, mode, &vocab, ids, &mut d)?;
            }
            println!(
                "{name} {mode}: digest {:016x} masks {} tokens {} refused {}",
                d.hash, d.masks, d.tokens, d.refused
            );
        }
        let Kit::Grammar(kit) = kits.get(lang, Mode::Mask)?.clone() else { continue };
        let mut d = Digest::new();
        for (text, _) in &texts {
            digest_fim(&kit, &tok, &vocab, text, &mut d)?;
        }
        println!(
            "{name} fim: digest {:016x} masks {} tokens {} refused {}",
            d.hash, d.masks, d.tokens, d.refused
        );
    }
    Ok(())
}

/// Feeds `ids` to a fresh constraint of `mode`, hashing the masks on the way.
fn digest_file(
    kit: &Kit,
    mode: Mode,
    vocab: &Vocab,
    ids: &[u32],
    d: &mut Digest,
) -> Result<(), Box<dyn std::error::Error>> {
    let Kit::Grammar(kit) = kit else { return Err("not a grammar language".into()) };
    let mut c = kit.constraint(mode, "")?;
    let mut mask = TokenSet::empty(vocab.len());
    for (step, &id) in ids.iter().enumerate() {
        c.fill_mask(vocab, &mut mask);
        d.mask(&mask);
        if mode == Mode::Mask && step % FINISHING_EVERY == 0 {
            let mut fin = TokenSet::empty(vocab.len());
            let some = c.fill_finishing_mask(vocab, &mut fin);
            d.word(u64::from(some));
            d.mask(&fin);
        }
        if c.commit(vocab.bytes(id)).is_err() {
            d.refused += 1;
            return Ok(());
        }
        d.tokens += 1;
    }
    Ok(())
}

/// The masks of the middle of `text` (its lines from 30% to 40%) between the rest.
fn digest_fim(
    kit: &espalier_decode::GrammarKit,
    tok: &Tokenizer,
    vocab: &Vocab,
    text: &str,
    d: &mut Digest,
) -> Result<(), Box<dyn std::error::Error>> {
    let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
    let (a, b) = (line_start(text.len() * 3 / 10), line_start(text.len() * 4 / 10));
    let mut c = match kit.fim_constraint(&text[..a], &text[b..]) {
        Ok(c) => c,
        Err(_) => {
            d.refused += 1;
            return Ok(());
        }
    };
    let mut mask = TokenSet::empty(vocab.len());
    for &id in &tok.encode(&text[a..b])? {
        c.fill_mask(vocab, &mut mask);
        d.mask(&mask);
        if c.commit(vocab.bytes(id)).is_err() {
            d.refused += 1;
            return Ok(());
        }
        d.tokens += 1;
    }
    c.fill_mask(vocab, &mut mask);
    d.mask(&mask);
    Ok(())
}
