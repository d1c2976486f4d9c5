//! Finishing a program by random finishing-mask tokens, checking every promise of the
//! finishing mask on the way, from cuts of a language's standard library and from the
//! ends of masked random walks, each finished program then judged by the language's own
//! parser (used by `finishing`, which runs it for every grammar language).

use espalier_constraint::{Constraint, GrammarConstraint, MaskKit, Strategy, TokenSet, Vocab};

use super::{GrammarLang, Rng};

/// Takes random finishing-mask tokens until the mask is EOS alone. At every step the
/// finishing mask is a non-empty subset of the exact mask, every token in it lowers
/// the remaining cost (no fallback), the cost strictly falls, and the program ends
/// within as many tokens as the first cost said. Returns (tokens taken, first cost),
/// or an error naming the first broken promise; pushes each mask's wall time (ms).
pub fn finish(
    c: &mut GrammarConstraint,
    vocab: &Vocab,
    rng: &mut Rng,
    times: &mut Vec<f64>,
) -> Result<(usize, u32), String> {
    let mut exact = TokenSet::empty(vocab.len());
    let mut fin = TokenSet::empty(vocab.len());
    let start = c.finishing_cost().ok_or("no finishing cost at the start")?;
    let mut cost = start;
    let eos = vocab.eos() as usize;
    for step in 0..=start as usize {
        c.fill_mask(vocab, &mut exact);
        let t = std::time::Instant::now();
        let outcome = c.finishing_mask(vocab, &mut fin).ok_or("no finishing mask")?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        let mut extra = fin.clone();
        extra.subtract(&exact);
        if !extra.is_empty() {
            return Err(format!(
                "step {step}: {} finishing tokens outside the exact mask",
                extra.count()
            ));
        }
        if fin.is_empty() {
            return Err(format!("step {step}: empty finishing mask"));
        }
        if !outcome.steered {
            return Err(format!(
                "step {step}: fell back (cost {:?}, mask of {})",
                outcome.cost,
                fin.count()
            ));
        }
        if outcome.cost != Some(cost) {
            return Err(format!(
                "step {step}: cost {:?} but the last step left {cost}",
                outcome.cost
            ));
        }
        if fin.contains(eos) {
            if fin.count() != 1 || !c.is_complete() {
                return Err(format!(
                    "step {step}: EOS in a mask of {} (complete: {})",
                    fin.count(),
                    c.is_complete()
                ));
            }
            return Ok((step, start));
        }
        let members: Vec<usize> = fin.iter().collect();
        let id = members[rng.below(members.len())] as u32;
        c.commit(vocab.bytes(id)).map_err(|e| format!("step {step}: commit refused: {e}"))?;
        let after = c.finishing_cost().ok_or_else(|| {
            format!("step {step}: no cost after {:?}", String::from_utf8_lossy(vocab.bytes(id)))
        })?;
        if after >= cost {
            return Err(format!(
                "step {step}: token {:?} took the cost from {cost} to {after}",
                String::from_utf8_lossy(vocab.bytes(id))
            ));
        }
        cost = after;
    }
    Err(format!("not finished within {start} tokens"))
}

/// What a language's own parser says of a finished program.
pub enum Verdict {
    Accepted,
    /// Refused for a reason the grammar leaves to others on purpose: counted and
    /// listed apart, not failed (Python: a `\N{name}` escape naming no character).
    Excused,
    /// Refused, with the parser's message.
    Refused(String),
}

/// A language's own parser as the finishing tests' oracle.
pub struct Oracle<'a> {
    /// Its name in messages (`ast.parse`, `gofmt -e`).
    pub name: &'static str,
    /// Verdicts for finished programs, one per text.
    pub judge: &'a dyn Fn(&[Vec<u8>]) -> Vec<Verdict>,
    /// What [`Verdict::Excused`] means, for the listing.
    pub excused: &'static str,
}

/// `cuts` starts (`ESPALIER_SLOW=1`: `slow_cuts`): files of `lang`'s sample (every
/// `stride`-th from `first`, up to `max_bytes`, at least 50 the grammar accepts) cut at
/// seeded offsets, each prefix committed to a fresh `exact` constraint.
pub fn cuts(
    lang: &GrammarLang,
    kit: &MaskKit,
    (stride, first, max_bytes): (usize, usize, usize),
    (cuts, slow_cuts): (usize, usize),
    rng: &mut Rng,
) -> Vec<(String, GrammarConstraint)> {
    let cuts = if super::slow() { slow_cuts } else { cuts };
    let files = lang.sample(stride, first, max_bytes);
    let files: Vec<&(String, String)> = files.iter().filter(|(_, t)| lang.accepts(t)).collect();
    assert!(files.len() > 50, "only {} {} files found", files.len(), lang.name);
    let mut starts = Vec::new();
    for i in 0..cuts {
        let (path, text) = files[rng.below(files.len())];
        let mut at = rng.below(text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let mut c = lang.constraint(kit, Strategy::Exact, None);
        c.commit(&text.as_bytes()[..at]).expect("a prefix of a valid file is viable");
        starts.push((format!("cut {i} {path}@{at}"), c));
    }
    starts
}

/// `walks` starts (`ESPALIER_SLOW=1`: `slow_walks`): after `prelude`, 10 to 89 random
/// tokens of the exact mask (never EOS, only tokens `take` lets through), then up to 40
/// more until the program is unfinished.
pub fn walks(
    lang: &GrammarLang,
    vocab: &Vocab,
    kit: &MaskKit,
    prelude: &str,
    (walks, slow_walks): (usize, usize),
    take: impl Fn(&[u8]) -> bool,
    rng: &mut Rng,
) -> Vec<(String, GrammarConstraint)> {
    let walks = if super::slow() { slow_walks } else { walks };
    let mut mask = TokenSet::empty(vocab.len());
    let eos = vocab.eos() as usize;
    let mut starts = Vec::new();
    for w in 0..walks {
        let mut c = lang.constraint(kit, Strategy::Exact, None);
        if !prelude.is_empty() {
            c.commit(prelude.as_bytes()).unwrap();
        }
        // Walk, then go on (up to 40 more tokens) until the program is unfinished.
        let steps = 10 + rng.below(80);
        for step in 0..steps + 40 {
            if step >= steps && !c.is_complete() {
                break;
            }
            c.fill_mask(vocab, &mut mask);
            let members: Vec<usize> =
                mask.iter().filter(|&t| t != eos && take(vocab.bytes(t as u32))).collect();
            if members.is_empty() {
                break;
            }
            c.commit(vocab.bytes(members[rng.below(members.len())] as u32)).unwrap();
        }
        starts.push((format!("walk {w}"), c));
    }
    starts
}

/// Runs [`finish`] from every start, then asks the oracle about the finished programs:
/// every promise of the finishing mask holds, the oracle accepts every finished program
/// but the excused ones, and at least one program finishes. Prints the figures and the
/// slowest finishing mask.
pub fn check_all(
    name: &str,
    starts: Vec<(String, GrammarConstraint)>,
    vocab: &Vocab,
    rng: &mut Rng,
    oracle: &Oracle,
) {
    let tail = |t: &[u8]| {
        let t = String::from_utf8_lossy(t);
        t.chars().rev().take(80).collect::<Vec<_>>().into_iter().rev().collect::<String>()
    };
    let mut failures = Vec::new();
    let mut programs = Vec::new();
    let (mut tokens, mut costs, mut longest) = (0usize, 0u64, 0usize);
    let mut times = Vec::new();
    let mut slowest = (0.0f64, String::new());
    for (label, mut c) in starts {
        let first_mask = times.len();
        let before = c.text().to_vec();
        match finish(&mut c, vocab, rng, &mut times) {
            Ok((n, cost)) => {
                tokens += n;
                costs += cost as u64;
                longest = longest.max(n);
                programs.push((label.clone(), before.clone(), c.text().to_vec()));
            }
            Err(e) => failures.push(format!(
                "{label}: {e}\n  text ends {:?}\n  now ends {:?}",
                tail(&before),
                tail(c.text())
            )),
        }
        let worst = times[first_mask..].iter().copied().fold(0.0, f64::max);
        if worst > slowest.0 {
            slowest = (worst, format!("{label}, text ended {:?}", tail(&before)));
        }
    }
    eprintln!("{name}: slowest finishing mask {:.1} ms: {}", slowest.0, slowest.1);
    let texts: Vec<Vec<u8>> = programs.iter().map(|p| p.2.clone()).collect();
    let verdicts = (oracle.judge)(&texts);
    assert_eq!(
        verdicts.len(),
        texts.len(),
        "{name}: {} answered {} of {} programs",
        oracle.name,
        verdicts.len(),
        texts.len()
    );
    let (mut accepted, mut excused) = (0usize, Vec::new());
    for ((label, before, text), verdict) in programs.iter().zip(verdicts) {
        match verdict {
            Verdict::Accepted => accepted += 1,
            Verdict::Excused => excused.push(format!(
                "{label}: ends {:?}",
                String::from_utf8_lossy(&text[text.len().saturating_sub(60)..])
            )),
            Verdict::Refused(e) => failures.push(format!(
                "{label}: {} refuses the finished program: {e}\n  text ended {:?}\n  now ends {:?}",
                oracle.name,
                tail(before),
                String::from_utf8_lossy(&text[text.len().saturating_sub(120)..])
            )),
        }
    }
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| {
        times
            .get(((times.len() as f64 * p) as usize).min(times.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0.0)
    };
    eprintln!(
        "{name}: {accepted} finished and accepted by {}, {} failures; {tokens} tokens taken (longest finish {longest}), sum of start costs {costs}; finishing mask wall time p50 {:.1} ms, p90 {:.1} ms, max {:.1} ms over {} masks",
        oracle.name,
        failures.len(),
        pct(0.5),
        pct(0.9),
        times.last().copied().unwrap_or(0.0),
        times.len()
    );
    if !excused.is_empty() {
        eprintln!(
            "{name}: {} {} (not checked here):\n{}",
            excused.len(),
            oracle.excused,
            excused.join("\n")
        );
    }
    assert!(failures.is_empty(), "{name}: {} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(accepted > 0, "{name}: no program finished and accepted by {}", oracle.name);
}
