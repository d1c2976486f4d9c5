//! Measures `SluaConstraint::fill_mask` over a real vocabulary while replaying a valid
//! script token by token (a benchmark, not a test).
//!
//! Usage: `cargo run --release -p espalier-slua --example mask_speed -- VOCAB.hex [SCRIPT.slua]`
//! where VOCAB.hex has one token per line as hex bytes, or `special`.

use std::rc::Rc;
use std::time::Instant;

use espalier_constraint::{Constraint, TokenSet, Vocab};
use espalier_slua::{Api, Env, SluaConstraint};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let vocab_path = args.get(1).ok_or("usage: mask_speed VOCAB.hex [SCRIPT.slua]")?;
    let text = std::fs::read_to_string(vocab_path)?;
    let mut tokens = Vec::new();
    let mut special = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line == "special" {
            special.push(i as u32);
            tokens.push(Vec::new());
        } else {
            tokens.push((0..line.len()).step_by(2).map(|j| u8::from_str_radix(&line[j..j + 2], 16)).collect::<Result<Vec<u8>, _>>()?);
        }
    }
    let eos = 2;
    let vocab = Vocab::new(tokens, &special, eos);
    let script = match args.get(2) {
        Some(p) => std::fs::read_to_string(p)?,
        None => include_str!("../tests/scripts/valid/11_firebolt.slua").to_string(),
    };
    let env = Rc::new(Env::new(Api::dungeon(), vec!["Burning".into()]));
    let mut c = SluaConstraint::new(env);
    let mut mask = TokenSet::empty(vocab.len());
    let (mut steps, mut total, mut worst, mut allowed) = (0usize, 0f64, 0f64, 0usize);
    // Replay the script greedily: at each step take the longest allowed token that is a
    // prefix of the remaining text (what a model that agrees with the script would do).
    let mut rest = script.trim_end().as_bytes();
    while !rest.is_empty() {
        let t = Instant::now();
        c.fill_mask(&vocab, &mut mask);
        let dt = t.elapsed().as_secs_f64();
        total += dt;
        worst = worst.max(dt);
        steps += 1;
        allowed += mask.count();
        if std::env::var("VERIFY").is_ok() {
            // Ground truth: committing the token on a clone, byte by byte, no caches.
            for id in 0..vocab.len() as u32 {
                let b = vocab.bytes(id);
                if b.is_empty() || vocab.is_special(id) {
                    continue;
                }
                let truth = c.clone().commit(b).is_ok();
                if truth != mask.contains(id as usize) {
                    println!("step {steps}: token {:?} mask {} truth {truth} (remainder {:?})", String::from_utf8_lossy(b), mask.contains(id as usize), String::from_utf8_lossy(c.partial()));
                }
            }
        }
        let best = mask
            .iter()
            .filter(|&id| rest.starts_with(vocab.bytes(id as u32)) && !vocab.bytes(id as u32).is_empty())
            .max_by_key(|&id| vocab.bytes(id as u32).len())
            .ok_or("no allowed token continues the script")?;
        let b = vocab.bytes(best as u32);
        c.commit(b).map_err(|e| format!("{e}"))?;
        rest = &rest[b.len()..];
    }
    c.fill_mask(&vocab, &mut mask);
    assert!(c.is_complete() && mask.contains(eos as usize));
    println!(
        "{steps} steps, fill_mask mean {:.2} ms, worst {:.2} ms, mean allowed tokens {:.0} of {}",
        total / steps as f64 * 1e3,
        worst * 1e3,
        allowed as f64 / steps as f64,
        vocab.len()
    );
    Ok(())
}
