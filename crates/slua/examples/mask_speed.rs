//! Measures `SluaConstraint::fill_mask` (the trie walk; on-CPU time per step, and
//! wall-clock) against
//! `SluaConstraint::fill_mask_per_token` (the earlier token-by-token computation)
//! over a real vocabulary while replaying valid scripts token by token, on the same
//! states in the same run; checks that both masks agree (a benchmark, not a test).
//!
//! Usage: `cargo run --release -p espalier-slua --example mask_speed -- VOCAB.hex [SCRIPT.slua...]`
//! where VOCAB.hex has one token per line as hex bytes, or `special` (the SmolLM2
//! vocabulary in this form: `espalier slua vocab-hex --model GGUF > VOCAB.hex`).
//! Without scripts, four of the valid test scripts are replayed. `VERIFY=1` also
//! commits every token on a clone (ground truth) at every step. `LONG=N` adds two
//! long talents of N statements each (locals that read the previous ones, and `if`s
//! nested N deep) and reports the p99 of the steps in the first and in the last
//! quarter of each script apart (`NO_REFERENCE=1` skips the slow reference masks;
//! `MASKS_ONLY=1` stops before the finishing masks; `WARM=1` replays every script
//! once untimed first, as a decoder that has written such scripts before).
//! All scripts share one compiled-segment cache (`DfaCache`), as a decoder that keeps
//! one across generations does. Making each script's constraint (its setup, which
//! builds what the first masks need: see `SluaConstraint::new`) is timed apart.
//!
//! Then the finishing mask is timed: from every 8th step of each replay, random
//! tokens of `fill_finishing_mask` are taken until the script is complete; the
//! finished script is checked again from scratch.

use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use espalier_constraint::timing::thread_cpu_ns;
use espalier_constraint::{Constraint, TokTrie, TokenSet, Vocab};
use espalier_slua::dfa::DfaCache;
use espalier_slua::{Api, Env, SluaConstraint};

/// A talent whose `Do` hook declares `n` locals, each read by the next.
fn long_locals(n: usize) -> String {
    let mut s = String::from(
        "talent LongLocals;\nhook Do = function(user, target)\n  local a0: number = 1;\n",
    );
    for k in 1..n {
        s.push_str(&format!("  local a{k}: number = a{} + {k};\n", k - 1));
    }
    s.push_str(&format!("  Damage(user, a{});\nend;\nhook GetDescription = function(user)\n  return \"long\";\nend;\n", n - 1));
    s
}

/// A talent with `if` nested `n` deep.
fn long_nested(n: usize) -> String {
    let mut s = String::from("talent LongNested;\nhook Do = function(user, target)\n");
    for k in 0..n {
        s.push_str(&format!("{}if user.hp > {k} then\n", " ".repeat(2 + k % 8)));
    }
    s.push_str("  Damage(user, 1);\n");
    for k in (0..n).rev() {
        s.push_str(&format!("{}end;\n", " ".repeat(2 + k % 8)));
    }
    s.push_str("end;\nhook GetDescription = function(user)\n  return \"deep\";\nend;\n");
    s
}

fn stats(name: &str, mut t: Vec<f64>) {
    t.sort_by(f64::total_cmp);
    let n = t.len();
    if n == 0 {
        println!("{name}: no steps");
        return;
    }
    let q = |p: f64| t[((n as f64 - 1.0) * p).round() as usize] * 1e3;
    println!(
        "{name}: {n} steps, mean {:.3} ms, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        t.iter().sum::<f64>() / n as f64 * 1e3,
        q(0.5),
        q(0.99),
        q(1.0)
    );
}

type Error = Box<dyn std::error::Error>;

/// The vocabulary file: one token per line as hex bytes, or `special`.
fn read_vocab(path: &str) -> Result<Vocab, Error> {
    let text = std::fs::read_to_string(path)?;
    let mut tokens = Vec::new();
    let mut special = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line == "special" {
            special.push(i as u32);
            tokens.push(Vec::new());
        } else {
            tokens.push(
                (0..line.len())
                    .step_by(2)
                    .map(|j| u8::from_str_radix(&line[j..j + 2], 16))
                    .collect::<Result<Vec<u8>, _>>()?,
            );
        }
    }
    Ok(Vocab::new(tokens, &special, EOS))
}

const EOS: u32 = 2;

/// The scripts named on the command line (else four of the valid test scripts), and
/// with `LONG=N` the two long talents.
fn scripts(args: &[String]) -> Result<Vec<String>, Error> {
    let mut scripts: Vec<String> = if args.len() > 2 {
        args[2..].iter().map(std::fs::read_to_string).collect::<Result<_, _>>()?
    } else {
        vec![
            include_str!("../tests/scripts/valid/01_burning.slua").to_string(),
            include_str!("../tests/scripts/valid/11_firebolt.slua").to_string(),
            include_str!("../tests/scripts/valid/15_summon.slua").to_string(),
            include_str!("../tests/scripts/valid/19_strings.slua").to_string(),
        ]
    };
    let long: usize = std::env::var("LONG").ok().map(|v| v.parse()).transpose()?.unwrap_or(0);
    if long > 0 {
        scripts.push(long_locals(long));
        scripts.push(long_nested(long));
    }
    Ok(scripts)
}

/// What the replays measure, over all scripts.
#[derive(Default)]
struct Replays {
    /// On-CPU time of each step's `fill_mask` (the run's first mask apart).
    fast: Vec<f64>,
    first: Option<f64>,
    walls: Vec<f64>,
    /// Time of each step's reference mask (`fill_mask_per_token`).
    slow: Vec<f64>,
    first_quarter: Vec<f64>,
    last_quarter: Vec<f64>,
    /// On-CPU time of making each script's constraint.
    setups: Vec<f64>,
    allowed: usize,
    disagreements: usize,
    /// Steps taken over all scripts (every 8th is a cut point for the wrap-up).
    steps_taken: usize,
    cuts: Vec<(SluaConstraint, String)>,
}

impl Replays {
    /// Replays `script` greedily: at each step the longest allowed token that is a
    /// prefix of the remaining text (what a model agreeing with it would do).
    fn replay(
        &mut self,
        script: &str,
        vocab: &Vocab,
        trie: &Arc<TokTrie>,
        dfas: &Rc<DfaCache>,
    ) -> Result<(), Error> {
        // Talents may apply the Burning effect; an effect must not redefine a name.
        let effects =
            if script.starts_with("talent") { vec!["Burning".to_string()] } else { vec![] };
        let env = Rc::new(Env::with_dfas(Api::dungeon(), effects, dfas.clone()));
        let c0 = thread_cpu_ns();
        let mut c = SluaConstraint::new(env).with_trie(trie.clone());
        if let (Some(a), Some(b)) = (c0, thread_cpu_ns()) {
            self.setups.push(b.saturating_sub(a) as f64 / 1e9);
        }
        let mut times = Vec::new();
        let mut mask = TokenSet::empty(vocab.len());
        let mut reference = TokenSet::empty(vocab.len());
        let mut rest = script.trim_end().as_bytes();
        loop {
            let dt = self.time_mask(&mut c, vocab, &mut mask);
            if let Some(dt) = dt {
                times.push(dt);
            }
            if std::env::var("SHOW_SLOW").is_ok() && dt.unwrap_or(0.0) > 0.002 {
                println!(
                    "slow step {:.1} ms: partial {:?}, carry {:?}, before {:?}",
                    dt.unwrap_or(0.0) * 1e3,
                    String::from_utf8_lossy(c.partial()),
                    c.tree().carry().map(char::from),
                    String::from_utf8_lossy(&rest[..rest.len().min(24)])
                );
            }
            self.check_against_reference(&mut c, vocab, &mask, &mut reference);
            if std::env::var("VERIFY").is_ok() {
                self.verify(&c, vocab, &mask);
            }
            if rest.is_empty() {
                assert!(c.is_complete() && mask.contains(EOS as usize));
                if times.len() >= 400 {
                    let q = times.len() / 4;
                    self.first_quarter.extend_from_slice(&times[..q]);
                    self.last_quarter.extend_from_slice(&times[times.len() - q..]);
                }
                return Ok(());
            }
            self.steps_taken += 1;
            if self.steps_taken % 8 == 1 {
                let done = script.trim_end().len() - rest.len();
                self.cuts.push((c.clone(), script[..done].to_string()));
            }
            let b = longest_allowed_prefix(&c, vocab, &mask, rest)?;
            c.commit(b).map_err(|e| format!("{e}"))?;
            rest = &rest[b.len()..];
        }
    }

    /// Fills the mask, recording its on-CPU time (wall-clock where the thread clock is
    /// missing: waiting for a core on a loaded machine is not work); the time, unless
    /// it was the run's first mask (the first segments' DFAs: reported apart).
    fn time_mask(
        &mut self,
        c: &mut SluaConstraint,
        vocab: &Vocab,
        mask: &mut TokenSet,
    ) -> Option<f64> {
        let t = Instant::now();
        let c0 = thread_cpu_ns();
        c.fill_mask(vocab, mask);
        let wall_dt = t.elapsed().as_secs_f64();
        let dt = match (c0, thread_cpu_ns()) {
            (Some(a), Some(b)) => b.saturating_sub(a) as f64 / 1e9,
            _ => wall_dt,
        };
        self.walls.push(wall_dt);
        self.allowed += mask.count();
        if self.first.is_none() {
            self.first = Some(dt);
            return None;
        }
        self.fast.push(dt);
        Some(dt)
    }

    /// The reference mask (`fill_mask_per_token`, unless `NO_REFERENCE`), timed and
    /// compared token by token.
    fn check_against_reference(
        &mut self,
        c: &mut SluaConstraint,
        vocab: &Vocab,
        mask: &TokenSet,
        reference: &mut TokenSet,
    ) {
        if std::env::var("NO_REFERENCE").is_ok() {
            return;
        }
        let t = Instant::now();
        c.fill_mask_per_token(vocab, reference);
        self.slow.push(t.elapsed().as_secs_f64());
        if mask.words() == reference.words() {
            return;
        }
        self.disagreements += 1;
        for id in (0..vocab.len()).filter(|&id| mask.contains(id) != reference.contains(id)) {
            println!(
                "disagreement: token {:?} trie {} per-token {} (remainder {:?})",
                String::from_utf8_lossy(vocab.bytes(id as u32)),
                mask.contains(id),
                reference.contains(id),
                String::from_utf8_lossy(c.partial())
            );
        }
    }

    /// Ground truth (`VERIFY=1`): every token committed on a clone.
    fn verify(&mut self, c: &SluaConstraint, vocab: &Vocab, mask: &TokenSet) {
        for id in 0..vocab.len() as u32 {
            let b = vocab.bytes(id);
            if b.is_empty() || vocab.is_special(id) {
                continue;
            }
            let truth = c.clone().commit(b).is_ok();
            if truth != mask.contains(id as usize) {
                self.disagreements += 1;
                println!(
                    "token {:?} mask {} truth {truth} (remainder {:?})",
                    String::from_utf8_lossy(b),
                    mask.contains(id as usize),
                    String::from_utf8_lossy(c.partial())
                );
            }
        }
    }

    /// Forgets what an untimed pass measured.
    fn reset(&mut self) {
        let (first, disagreements) = (self.first, self.disagreements);
        *self = Replays { first, disagreements, ..Replays::default() };
    }

    fn report(&self, vocab: &Vocab) {
        println!("first mask of the run: {:.1} ms", self.first.unwrap_or(0.0) * 1e3);
        let steps = self.fast.len() + 1;
        stats("constraint setup, on-CPU        ", self.setups.clone());
        stats("trie walk  (fill_mask), on-CPU  ", self.fast.clone());
        stats("trie walk  (fill_mask), wall    ", self.walls.clone());
        if !self.first_quarter.is_empty() {
            stats("  long scripts, first quarter   ", self.first_quarter.clone());
            stats("  long scripts, last quarter    ", self.last_quarter.clone());
        }
        if !self.slow.is_empty() {
            stats("per token  (fill_mask_per_token)", self.slow.clone());
        }
        println!(
            "mean allowed tokens {:.0} of {}; {} disagreements",
            self.allowed as f64 / steps as f64,
            vocab.len(),
            self.disagreements
        );
    }
}

/// The longest allowed token that `rest` starts with.
fn longest_allowed_prefix<'v>(
    c: &SluaConstraint,
    vocab: &'v Vocab,
    mask: &TokenSet,
    rest: &[u8],
) -> Result<&'v [u8], Error> {
    let best = mask
        .iter()
        .filter(|&id| {
            rest.starts_with(vocab.bytes(id as u32)) && !vocab.bytes(id as u32).is_empty()
        })
        .max_by_key(|&id| vocab.bytes(id as u32).len())
        .ok_or_else(|| {
            format!(
                "no allowed token continues the script at {:?}; {} allowed, partial {:?}",
                String::from_utf8_lossy(&rest[..rest.len().min(20)]),
                mask.count(),
                String::from_utf8_lossy(c.partial())
            )
        })?;
    Ok(vocab.bytes(best as u32))
}

/// Wrap-up from the cut points: random finishing tokens until complete, each finished
/// script checked again from scratch.
fn wrap_up(cuts: Vec<(SluaConstraint, String)>, vocab: &Vocab) -> Result<(), Error> {
    let mut rng = espalier_slua::walker::Rng::new(1);
    let (mut times, mut lens, mut sizes) = (Vec::new(), Vec::new(), 0usize);
    let n_cuts = cuts.len();
    let mut mask = TokenSet::empty(vocab.len());
    for (mut c, mut text) in cuts {
        let env = c.tree().env().clone();
        let mut tokens = 0;
        loop {
            let t = Instant::now();
            c.fill_finishing_mask(vocab, &mut mask);
            times.push(t.elapsed().as_secs_f64());
            sizes += mask.count();
            if c.is_complete() {
                break;
            }
            let ids: Vec<usize> = mask.iter().collect();
            if ids.is_empty() {
                return Err(format!("empty finishing mask after {text:?}").into());
            }
            let b = vocab.bytes(ids[rng.below(ids.len())] as u32);
            c.commit(b).map_err(|e| format!("{e}"))?;
            text.push_str(&String::from_utf8_lossy(b));
            tokens += 1;
            if tokens > 2000 {
                return Err(format!("no end after 2000 finishing tokens: {text:?}").into());
            }
        }
        // Without the game's limits: the long nested script passes its depth.
        espalier_slua::check_limited(env, &text, espalier_slua::Limits::NONE)
            .map_err(|e| format!("finished script rejected at {e}: {text:?}"))?;
        lens.push(tokens as f64 / 1e3);
    }
    let steps = times.len();
    stats("finishing  (fill_finishing_mask)", times);
    lens.sort_by(f64::total_cmp);
    println!(
        "wrap-up from {n_cuts} cut points: all finished and checked; tokens to finish mean {:.1}, max {:.0}; mean finishing-mask size {:.0}",
        lens.iter().sum::<f64>() * 1e3 / n_cuts as f64,
        lens.last().copied().unwrap_or(0.0) * 1e3,
        sizes as f64 / steps as f64
    );
    Ok(())
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().collect();
    let vocab = read_vocab(args.get(1).ok_or("usage: mask_speed VOCAB.hex [SCRIPT.slua...]")?)?;
    let scripts = scripts(&args)?;
    let dfas = Rc::new(DfaCache::default());
    // One vocabulary trie for every script, as a decoder's kit holds it.
    let t = Instant::now();
    let trie = Arc::new(TokTrie::new(&vocab));
    println!("vocabulary trie built in {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let mut replays = Replays::default();
    // `WARM=1`: replay every script once untimed first, with the same segment
    // cache, as a decoder that has written such scripts before (the figures then
    // leave out compiling segment DFAs and caching state masks on first sight).
    if std::env::var("WARM").is_ok() {
        for script in &scripts {
            replays.replay(script, &vocab, &trie, &dfas)?;
        }
        replays.reset();
    }
    for script in &scripts {
        replays.replay(script, &vocab, &trie, &dfas)?;
    }
    replays.report(&vocab);
    if replays.disagreements > 0 {
        return Err("masks disagree".into());
    }
    if std::env::var("MASKS_ONLY").is_ok() {
        return Ok(());
    }
    wrap_up(replays.cuts, &vocab)
}
