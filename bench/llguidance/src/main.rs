//! Same-run mask benchmark: Espalier's `exact` and `syncode` masks against
//! llguidance's (issue 16), on the same token sequences, rounds interleaved.
//!
//! ```text
//! cargo run --release --manifest-path bench/llguidance/Cargo.toml -- INPUT [--rounds N] [--store FILE]
//! ```
//! INPUT is the file `espalier bench mask --export INPUT FILE...` writes (the
//! vocabulary's bytes and the files' token ids from the model's tokenizer). Every
//! round runs the three engines over every file, in an order rotated per round;
//! each step's mask is timed on the wall clock and on the thread's CPU clock. Each
//! engine must allow every true token (Espalier's Python grammar; for llguidance
//! the Lark subset of [`lark_python`]) and llguidance must accept each whole file:
//! otherwise the run fails (exit 1) after saying where. The last line of stdout is
//! one JSON object: per engine the percentiles, and the ratios llguidance / Espalier
//! per percentile (above 1: Espalier is faster).

mod input;
mod lark_python;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use espalier_constraint::timing::{percentile, thread_cpu_ns};
use espalier_constraint::{Constraint, GrammarConstraint, MaskStore, Strategy, TokenSet, Vocab};
use llguidance::api::TopLevelGrammar;
use llguidance::{Matcher, ParserFactory};
use toktrie::{ApproximateTokEnv, TokEnv, TokRxInfo, TokTrie as LlgTrie};

/// Per-step times of one engine, pooled over rounds: (wall us, CPU us).
#[derive(Default)]
struct Times {
    wall: Vec<f64>,
    cpu: Vec<f64>,
}

impl Times {
    fn push(&mut self, wall_us: f64, cpu_us: Option<f64>) {
        self.wall.push(wall_us);
        if let Some(c) = cpu_us {
            self.cpu.push(c);
        }
    }
}

const PERCENTILES: [(&str, f64); 4] = [("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("max", 100.0)];

fn stats(v: &[f64]) -> Vec<(&'static str, f64)> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    PERCENTILES.iter().map(|&(name, p)| (name, if s.is_empty() { 0.0 } else { percentile(&s, p) })).collect()
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Times `f` (one mask): wall and thread CPU microseconds.
fn timed(f: impl FnOnce()) -> (f64, Option<f64>) {
    let c0 = thread_cpu_ns();
    let t = Instant::now();
    f();
    let wall = t.elapsed().as_secs_f64() * 1e6;
    let cpu = match (c0, thread_cpu_ns()) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a) as f64 / 1e3),
        _ => None,
    };
    (wall, cpu)
}

struct Args {
    input: PathBuf,
    rounds: usize,
    store: PathBuf,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let mut input = None;
    let mut rounds = 3;
    let mut store = PathBuf::from("target/espalier-cache/python-smollm2.store");
    while let Some(a) = it.next() {
        match a.as_str() {
            "--rounds" => {
                rounds = it.next().and_then(|v| v.parse().ok()).ok_or("--rounds needs a number")?;
            }
            "--store" => store = it.next().ok_or("--store needs a file")?.into(),
            _ if a.starts_with("--") => return Err(format!("unknown option {a}")),
            _ => input = Some(PathBuf::from(a)),
        }
    }
    let input = input.ok_or("usage: espalier-bench-llg INPUT [--rounds N] [--store FILE]")?;
    Ok(Args { input, rounds: rounds.max(1), store })
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let args = parse_args()?;
    let bytes = std::fs::read(&args.input).map_err(|e| format!("{}: {e}", args.input.display()))?;
    let input = input::Input::parse(&bytes).map_err(|e| format!("{}: {e}", args.input.display()))?;
    let vocab = Vocab::new(input.tokens.clone(), &input.special, input.eos);

    // Espalier: the Python grammar, the trie and its summaries, the SynCode store.
    let lang = espalier_grammar::python()?;
    let (kit, exact_setup_ms) = timed_ms(|| espalier_constraint::MaskKit::for_vocab(lang.clone(), &vocab));
    let (store, store_ms) = timed_ms(|| MaskStore::load_or_build(&lang, &vocab, &args.store));
    let store = Arc::new(store?);
    let ((factory, grammar), llg_setup_ms) = timed_ms(|| llguidance_parsers(&vocab));
    let factory = factory?;

    let mut bench = Bench { vocab: &vocab, input: &input, times: NAMES.iter().map(|_| Times::default()).collect(), failures: Vec::new() };
    let mut mask = TokenSet::empty(vocab.len());
    for round in 0..args.rounds {
        for k in 0..NAMES.len() {
            let engine = (k + round) % NAMES.len();
            for f in 0..input.files.len() {
                if engine == 2 {
                    bench.llguidance(&factory, &grammar, f, round == 0)?;
                } else {
                    let strategy = if engine == 0 { Strategy::Exact } else { Strategy::Syncode };
                    let c = GrammarConstraint::new(&kit, strategy, "python-lr").with_store(store.clone());
                    bench.espalier(engine, c, &mut mask, f);
                }
            }
        }
    }
    for f in &bench.failures {
        eprintln!("{f}");
    }
    let out = serde_json::json!({
        "bench": "mask-vs-llguidance",
        "llguidance": "1.9.1",
        "files": input.files.len(),
        "tokens": input.files.iter().map(Vec::len).sum::<usize>(),
        "rounds": args.rounds,
        "vocab": vocab.len(),
        "lark_depth": lark_python::DEPTH,
        "setup_ms": {
            "exact": round2(exact_setup_ms),
            "syncode_store": round2(store_ms),
            "llguidance_tokenizer": round2(llg_setup_ms),
        },
        "engines": engines_json(&bench.times),
        "ratios": ratios_json(&bench.times),
        "failures": bench.failures.len(),
        "load_avg_1m": std::fs::read_to_string("/proc/loadavg").ok().and_then(|s| s.split_whitespace().next().and_then(|v| v.parse::<f64>().ok())).unwrap_or(-1.0),
    });
    println!("{out}");
    Ok(if bench.failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The engines, in the order of `Bench::times`.
const NAMES: [&str; 3] = ["exact", "syncode", "llguidance"];

/// `f()` and its wall time in milliseconds.
fn timed_ms<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let value = f();
    (value, t.elapsed().as_secs_f64() * 1e3)
}

/// llguidance's parser factory over the same vocabulary (special tokens marked by its
/// 0xFF prefix) and the Lark grammar of [`lark_python`].
fn llguidance_parsers(vocab: &Vocab) -> (Result<ParserFactory, Box<dyn std::error::Error>>, String) {
    let words: Vec<Vec<u8>> = (0..vocab.len() as u32)
        .map(|id| {
            let b = vocab.bytes(id);
            if vocab.is_special(id) {
                let mut w = vec![LlgTrie::SPECIAL_TOKEN_MARKER];
                w.extend_from_slice(b);
                w
            } else {
                b.to_vec()
            }
        })
        .collect();
    let info = TokRxInfo::new(vocab.len() as u32, vocab.eos());
    let env: TokEnv = Arc::new(ApproximateTokEnv::new(LlgTrie::from(&info, &words)));
    let factory = ParserFactory::new_simple(&env).map(|mut factory| {
        factory.quiet();
        factory
    });
    (factory.map_err(Into::into), lark_python::grammar())
}

/// One run's inputs, per-step times (indexed as [`NAMES`]) and the refusals found.
struct Bench<'a> {
    vocab: &'a Vocab,
    input: &'a input::Input,
    times: Vec<Times>,
    failures: Vec<String>,
}

impl Bench<'_> {
    /// llguidance's masks over file `f`; with `check_end`, whether it accepts the end.
    fn llguidance(&mut self, factory: &ParserFactory, grammar: &str, f: usize, check_end: bool) -> Result<(), Box<dyn std::error::Error>> {
        let parser = factory.create_parser(TopLevelGrammar::from_lark(grammar.to_string()))?;
        let mut m = Matcher::new(Ok(parser));
        for (pos, &id) in self.input.files[f].iter().enumerate() {
            let mut vob = None;
            let (wall, cpu) = timed(|| vob = Some(m.compute_mask()));
            self.times[2].push(wall, cpu);
            let allowed = match vob {
                Some(Ok(v)) => v.is_allowed(id),
                Some(Err(e)) => return Err(format!("llguidance: file {f} step {pos}: {e}").into()),
                None => false,
            };
            if !allowed || m.consume_token(id).is_err() {
                self.failures.push(format!("llguidance refuses file {f} step {pos}: {}", self.input.context(self.vocab, f, pos)));
                break;
            }
        }
        if check_end && !m.is_accepting().unwrap_or(false) {
            self.failures.push(format!("llguidance does not accept the end of file {f}"));
        }
        Ok(())
    }

    /// Espalier's masks (engine 0 `exact` or 1 `syncode`, as `c` was made) over file `f`.
    fn espalier(&mut self, engine: usize, mut c: GrammarConstraint, mask: &mut TokenSet, f: usize) {
        for (pos, &id) in self.input.files[f].iter().enumerate() {
            let (wall, cpu) = timed(|| c.fill_mask(self.vocab, mask));
            self.times[engine].push(wall, cpu);
            if !mask.contains(id as usize) || c.commit(self.vocab.bytes(id)).is_err() {
                self.failures.push(format!("{} refuses file {f} step {pos}: {}", NAMES[engine], self.input.context(self.vocab, f, pos)));
                break;
            }
        }
    }
}

/// Per engine: the wall and CPU percentiles and the number of steps.
fn engines_json(times: &[Times]) -> serde_json::Map<String, serde_json::Value> {
    let mut engines = serde_json::Map::new();
    for (name, t) in NAMES.iter().zip(times) {
        let mut o = serde_json::Map::new();
        for (p, v) in stats(&t.wall) {
            o.insert(format!("{p}_us"), round2(v).into());
        }
        for (p, v) in stats(&t.cpu) {
            o.insert(format!("cpu_{p}_us"), round2(v).into());
        }
        o.insert("steps".into(), t.wall.len().into());
        engines.insert((*name).into(), o.into());
    }
    engines
}

/// llguidance's time over each Espalier engine's, per percentile (above 1: Espalier is
/// faster).
fn ratios_json(times: &[Times]) -> serde_json::Map<String, serde_json::Value> {
    let mut ratios = serde_json::Map::new();
    for (k, name) in [(0, "llguidance_over_exact"), (1, "llguidance_over_syncode")] {
        let mut o = serde_json::Map::new();
        for ((p, ours), (_, theirs)) in stats(&times[k].wall).into_iter().zip(stats(&times[2].wall)) {
            o.insert(p.into(), round2(theirs / ours.max(1e-9)).into());
        }
        for ((p, ours), (_, theirs)) in stats(&times[k].cpu).into_iter().zip(stats(&times[2].cpu)) {
            o.insert(format!("cpu_{p}"), round2(theirs / ours.max(1e-9)).into());
        }
        ratios.insert(name.into(), o.into());
    }
    ratios
}
