//! `espalier bench fim --context-chars N`: the cost of fill-in-the-middle requests on
//! real code. Cases are CPython standard-library files of N to N + 400 bytes, each
//! cut (cases cycle through them) at a seeded random point so that prefix + suffix hold exactly N bytes and the
//! removed middle the rest. Per case: `prepare` (a [`FimConstraint`] built: prefix
//! through the recognizer, suffix analysis, walker scratch; the vocabulary trie and
//! its lexeme summaries are shared and timed apart as `setup_ms`), then the true
//! middle, tokenized by the model's tokenizer, teacher-forced token by token with a
//! full mask (exact trie walk + EOS membership) timed before each token.
//!
//! Contract: the last line of stdout is one JSON object with `prepare_ms` (median
//! over cases), `prepare_max_ms`, `prepare_cpu_ms` / `prepare_cpu_max_ms` (on-CPU), `p50_us`, `p99_us`, `max_us` (mask wall time),
//! `cpu_p50_us`, `cpu_p99_us` (on-CPU time of the thread, Linux), `tokens`, `cases`,
//! `context_chars`, `violations` (true middle tokens the mask refused),
//! `eos_after_true_middle` (cases where EOS was allowed after the whole true middle),
//! `setup_ms`, `load_avg_1m`, and `eos_cpu_p50_us` / `eos_cpu_p99_us` (the EOS
//! membership part of a mask alone, timed apart on the same states); and the FIM
//! finishing mask's cold bridge search (`crate`-level `fim_bridge`) at every
//! `--bridge-every`-th token: `bridges`, `bridges_found`, `bridge_bytes_p50`,
//! `bridge_cpu_p50_ms` / `bridge_cpu_p99_ms` / `bridge_cpu_max_ms` (on-CPU).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use espalier_constraint::timing::percentile;
use espalier_constraint::{Constraint, FimConstraint, MaskKit, TokenSet, Vocab};
use espalier_grammar::Language;
use espalier_model::{Gguf, Tokenizer, DEFAULT_MODEL_PATH};

use crate::bench_clock::{cpu_timed, load_avg_1m, ms, sorted, timed, us, Clock};

/// Arguments of `espalier bench fim`.
#[derive(clap::Args)]
pub struct FimArgs {
    /// Bytes of context (prefix + suffix) per request.
    #[arg(long, default_value_t = 10_000)]
    context_chars: usize,
    /// How many requests (cuts; files are reused with other cuts when fewer).
    #[arg(long, default_value_t = 20)]
    cases: usize,
    /// Seed of the cut points.
    #[arg(long, default_value_t = 13)]
    seed: u64,
    /// Directory searched (recursively) for .py files.
    #[arg(long, default_value = "/usr/lib/python3.11")]
    corpus: PathBuf,
    /// Time the finishing mask's bridge search (a cold search, no plan kept) at every
    /// K-th teacher-forced token (0: never).
    #[arg(long, default_value_t = 8)]
    bridge_every: usize,
    /// The GGUF whose tokenizer gives the vocabulary.
    #[arg(long, default_value = DEFAULT_MODEL_PATH)]
    model: PathBuf,
}

fn py_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(ft) if ft.is_dir() => py_files(&p, out),
            Ok(_) if p.extension().is_some_and(|x| x == "py") => out.push(p),
            _ => {}
        }
    }
}

/// Runs `espalier bench fim`.
pub fn bench_fim(a: FimArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let gguf = Gguf::open(&a.model).map_err(|e| format!("{}: {e}", a.model.display()))?;
    let tok = Tokenizer::from_gguf(&gguf)?;
    drop(gguf);
    let vocab = espalier_engine::vocab_of(&tok);
    let lang = espalier_grammar::python()?;
    let (kit, setup) = timed(|| MaskKit::for_vocab(lang.clone(), &vocab));
    let texts = corpus(&a.corpus, &lang, a.context_chars)?;
    let mut rng = xorshift(a.seed);
    let chosen = choose(&texts, a.cases, &mut rng);
    let mut run = FimRun::new(&vocab, a.bridge_every);
    for (path, text) in &chosen {
        if let Some(parts) = cut(text, a.context_chars, &mut rng) {
            run.case(&kit, &tok, path, parts)?;
        }
    }
    println!("{}", run.summary(a.context_chars, chosen.len(), setup.wall_s * 1e3));
    Ok(if run.violations == 0 && run.eos_ok == chosen.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The valid `.py` files under `dir` of `n` to `n + 400` bytes, in path order.
fn corpus(
    dir: &Path,
    lang: &Arc<Language>,
    n: usize,
) -> Result<Vec<(PathBuf, String)>, Box<dyn std::error::Error>> {
    let mut files = Vec::new();
    py_files(dir, &mut files);
    files.sort();
    let texts: Vec<(PathBuf, String)> = files
        .into_iter()
        .filter_map(|p| {
            let t = std::fs::read_to_string(&p).ok()?;
            (t.len() > n && t.len() <= n + 400).then_some((p, t))
        })
        .filter(|(_, t)| {
            let mut r = lang.recognizer();
            r.push_bytes(t.as_bytes()).is_ok() && r.is_complete()
        })
        .collect();
    if texts.is_empty() {
        let dir = dir.display();
        return Err(format!("no valid .py file of {n} to {} bytes under {dir}", n + 400).into());
    }
    Ok(texts)
}

/// The seeded generator of the shuffle and the cuts (xorshift64; a seed of 0 counts
/// as 1).
fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut rng = seed.max(1);
    move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    }
}

/// `cases` files: the files in a seeded order, cycled through.
fn choose<'t>(
    texts: &'t [(PathBuf, String)],
    cases: usize,
    rng: &mut impl FnMut() -> u64,
) -> Vec<&'t (PathBuf, String)> {
    let mut order: Vec<usize> = (0..texts.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, (rng() % (i as u64 + 1)) as usize);
    }
    (0..cases).map(|k| &texts[order[k % order.len()]]).collect()
}

/// `text` cut at a seeded point into prefix, middle and suffix, prefix + suffix
/// holding `n` bytes; `None` when no cut at or before the point falls on character
/// boundaries.
fn cut<'t>(
    text: &'t str,
    n: usize,
    rng: &mut impl FnMut() -> u64,
) -> Option<(&'t str, &'t str, &'t str)> {
    let mid_len = text.len() - n;
    let start = (rng() % (n as u64 + 1)) as usize;
    let at = (0..=start)
        .rev()
        .find(|&i| text.is_char_boundary(i) && text.is_char_boundary(i + mid_len))?;
    Some((&text[..at], &text[at..at + mid_len], &text[at + mid_len..]))
}

/// The cases run so far: prepare times (ms), mask, EOS and bridge times, tallies.
struct FimRun<'v> {
    vocab: &'v Vocab,
    bridge_every: usize,
    mask: TokenSet,
    prepare: Vec<f64>,
    prepare_cpu: Vec<f64>,
    times: Vec<f64>,
    cpu: Vec<f64>,
    eos_cpu: Vec<f64>,
    bridge_cpu: Vec<f64>,
    bridge_bytes: Vec<f64>,
    bridges_found: usize,
    violations: usize,
    eos_ok: usize,
    tokens: usize,
}

impl<'v> FimRun<'v> {
    fn new(vocab: &'v Vocab, bridge_every: usize) -> Self {
        FimRun {
            vocab,
            bridge_every,
            mask: TokenSet::empty(vocab.len()),
            prepare: Vec::new(),
            prepare_cpu: Vec::new(),
            times: Vec::new(),
            cpu: Vec::new(),
            eos_cpu: Vec::new(),
            bridge_cpu: Vec::new(),
            bridge_bytes: Vec::new(),
            bridges_found: 0,
            violations: 0,
            eos_ok: 0,
            tokens: 0,
        }
    }

    /// One request: prepared (timed), then its true middle teacher-forced.
    fn case(
        &mut self,
        kit: &MaskKit,
        tok: &Tokenizer,
        path: &Path,
        (prefix, middle, suffix): (&str, &str, &str),
    ) -> Result<(), Box<dyn std::error::Error>> {
        let clock = Clock::start();
        let mut c = FimConstraint::new(kit, prefix.as_bytes(), suffix.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let span = clock.stop();
        self.prepare.push(span.wall_s * 1e3);
        self.prepare_cpu.extend(span.cpu_ms());
        for id in tok.encode(middle)? {
            self.token(&mut c, id);
            c.commit(self.vocab.bytes(id))
                .map_err(|e| format!("{}: true middle refused: {e}", path.display()))?;
        }
        c.fill_mask(self.vocab, &mut self.mask);
        self.eos_ok += usize::from(self.mask.contains(self.vocab.eos() as usize));
        eprintln!(
            "{}: prefix {} suffix {} middle {} bytes, prepare {:.1} ms ({:.1} ms on CPU), witness {}",
            path.display(),
            prefix.len(),
            suffix.len(),
            middle.len(),
            span.wall_s * 1e3,
            self.prepare_cpu.last().unwrap_or(&0.0),
            if c.witness().is_some() { "cheap" } else { "suffix Earley" }
        );
        Ok(())
    }

    /// Times the mask before the true token `id` (and its EOS part apart, and every
    /// `bridge_every`-th token the finishing mask's bridge search).
    fn token(&mut self, c: &mut FimConstraint, id: u32) {
        let (_, span) = timed(|| c.fill_mask(self.vocab, &mut self.mask));
        self.times.push(span.wall_s * 1e6);
        self.cpu.extend(span.cpu_us());
        self.tokens += 1;
        let (_, eos_cpu) = cpu_timed(|| c.is_complete());
        self.eos_cpu.extend(eos_cpu.map(us));
        self.violations += usize::from(!self.mask.contains(id as usize));
        if self.bridge_every > 0 && self.tokens.is_multiple_of(self.bridge_every) {
            let (bridge, cpu) = cpu_timed(|| {
                espalier_constraint::fim_bridge::shortest_bridge(c.left(), c.suffix(), c.reentry())
            });
            self.bridge_cpu.extend(cpu.map(ms));
            if let Some(b) = bridge {
                self.bridges_found += 1;
                self.bridge_bytes.push(b.len() as f64);
            }
        }
    }

    /// The JSON line (see the module doc).
    fn summary(&self, context_chars: usize, cases: usize, setup_ms: f64) -> serde_json::Value {
        let (prepare, prepare_cpu) = (sorted(&self.prepare), sorted(&self.prepare_cpu));
        let (times, cpu, eos_cpu) = (sorted(&self.times), sorted(&self.cpu), sorted(&self.eos_cpu));
        let (bridge_cpu, bridge_bytes) = (sorted(&self.bridge_cpu), sorted(&self.bridge_bytes));
        let last = |v: &[f64]| v.last().copied().unwrap_or(0.0);
        serde_json::json!({
            "context_chars": context_chars,
            "cases": cases,
            "prepare_ms": percentile(&prepare, 50.0),
            "prepare_max_ms": last(&prepare),
            "prepare_cpu_ms": percentile(&prepare_cpu, 50.0),
            "prepare_cpu_max_ms": last(&prepare_cpu),
            "tokens": self.tokens,
            "p50_us": percentile(&times, 50.0),
            "p99_us": percentile(&times, 99.0),
            "max_us": last(&times),
            "cpu_p50_us": percentile(&cpu, 50.0),
            "cpu_p99_us": percentile(&cpu, 99.0),
            "eos_cpu_p50_us": percentile(&eos_cpu, 50.0),
            "eos_cpu_p99_us": percentile(&eos_cpu, 99.0),
            "bridges": bridge_cpu.len(),
            "bridges_found": self.bridges_found,
            "bridge_bytes_p50": percentile(&bridge_bytes, 50.0),
            "bridge_cpu_p50_ms": percentile(&bridge_cpu, 50.0),
            "bridge_cpu_p99_ms": percentile(&bridge_cpu, 99.0),
            "bridge_cpu_max_ms": last(&bridge_cpu),
            "violations": self.violations,
            "eos_after_true_middle": self.eos_ok,
            "setup_ms": setup_ms,
            "load_avg_1m": load_avg_1m(),
        })
    }
}
