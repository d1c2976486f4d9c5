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

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use espalier_constraint::timing::{percentile, thread_cpu_ns};
use espalier_constraint::{Constraint, FimConstraint, MaskKit, TokenSet};
use espalier_model::{Gguf, Tokenizer, DEFAULT_MODEL_PATH};

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

fn py_files(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
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
    let t0 = Instant::now();
    let kit = MaskKit::for_vocab(lang.clone(), &vocab);
    let setup_ms = t0.elapsed().as_secs_f64() * 1e3;

    let mut files = Vec::new();
    py_files(&a.corpus, &mut files);
    files.sort();
    let n = a.context_chars;
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
        return Err(format!(
            "no valid .py file of {n} to {} bytes under {}",
            n + 400,
            a.corpus.display()
        )
        .into());
    }
    let mut rng = a.seed.max(1);
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    // Cases cycle through the files in a seeded order, with a seeded cut each time.
    let mut order: Vec<usize> = (0..texts.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, (next() % (i as u64 + 1)) as usize);
    }
    let chosen: Vec<&(PathBuf, String)> =
        (0..a.cases).map(|k| &texts[order[k % order.len()]]).collect();
    let (mut prepare, mut prepare_cpu, mut times, mut cpu, mut eos_cpu) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut violations, mut eos_ok, mut tokens) = (0usize, 0usize, 0usize);
    let (mut bridge_cpu, mut bridges_found, mut bridge_bytes) = (Vec::new(), 0usize, Vec::new());
    let mut mask = TokenSet::empty(vocab.len());
    for (path, text) in &chosen {
        let mid_len = text.len() - n;
        let start = (next() % (n as u64 + 1)) as usize;
        let Some(a_cut) = (0..=start)
            .rev()
            .find(|&i| text.is_char_boundary(i) && text.is_char_boundary(i + mid_len))
        else {
            continue;
        };
        let (prefix, middle, suffix) =
            (&text[..a_cut], &text[a_cut..a_cut + mid_len], &text[a_cut + mid_len..]);
        let c0 = thread_cpu_ns();
        let t = Instant::now();
        let mut c = FimConstraint::new(&kit, prefix.as_bytes(), suffix.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        prepare.push(t.elapsed().as_secs_f64() * 1e3);
        if let (Some(x), Some(y)) = (c0, thread_cpu_ns()) {
            prepare_cpu.push(y.saturating_sub(x) as f64 / 1e6);
        }
        for id in tok.encode(middle)? {
            let c0 = thread_cpu_ns();
            let t = Instant::now();
            c.fill_mask(&vocab, &mut mask);
            times.push(t.elapsed().as_secs_f64() * 1e6);
            if let (Some(x), Some(y)) = (c0, thread_cpu_ns()) {
                cpu.push(y.saturating_sub(x) as f64 / 1e3);
            }
            tokens += 1;
            let e0 = thread_cpu_ns();
            let _ = c.is_complete();
            if let (Some(x), Some(y)) = (e0, thread_cpu_ns()) {
                eos_cpu.push(y.saturating_sub(x) as f64 / 1e3);
            }
            if !mask.contains(id as usize) {
                violations += 1;
            }
            if a.bridge_every > 0 && tokens % a.bridge_every == 0 {
                let b0 = thread_cpu_ns();
                let bridge = espalier_constraint::fim_bridge::shortest_bridge(
                    c.left(),
                    c.suffix(),
                    c.reentry(),
                );
                if let (Some(x), Some(y)) = (b0, thread_cpu_ns()) {
                    bridge_cpu.push(y.saturating_sub(x) as f64 / 1e6);
                }
                if let Some(b) = bridge {
                    bridges_found += 1;
                    bridge_bytes.push(b.len() as f64);
                }
            }
            c.commit(vocab.bytes(id))
                .map_err(|e| format!("{}: true middle refused: {e}", path.display()))?;
        }
        c.fill_mask(&vocab, &mut mask);
        eos_ok += usize::from(mask.contains(vocab.eos() as usize));
        eprintln!(
            "{}: prefix {} suffix {} middle {} bytes, prepare {:.1} ms ({:.1} ms on CPU), witness {}",
            path.display(),
            prefix.len(),
            suffix.len(),
            middle.len(),
            prepare.last().unwrap(),
            prepare_cpu.last().unwrap_or(&0.0),
            if c.witness().is_some() { "cheap" } else { "suffix Earley" }
        );
    }
    let sort = |v: &mut Vec<f64>| v.sort_by(|a, b| a.total_cmp(b));
    sort(&mut prepare);
    sort(&mut prepare_cpu);
    sort(&mut times);
    sort(&mut cpu);
    sort(&mut eos_cpu);
    sort(&mut bridge_cpu);
    sort(&mut bridge_bytes);
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()));
    let out = serde_json::json!({
        "context_chars": n,
        "cases": chosen.len(),
        "prepare_ms": percentile(&prepare, 50.0),
        "prepare_max_ms": prepare.last().copied().unwrap_or(0.0),
        "prepare_cpu_ms": percentile(&prepare_cpu, 50.0),
        "prepare_cpu_max_ms": prepare_cpu.last().copied().unwrap_or(0.0),
        "tokens": tokens,
        "p50_us": percentile(&times, 50.0),
        "p99_us": percentile(&times, 99.0),
        "max_us": times.last().copied().unwrap_or(0.0),
        "cpu_p50_us": percentile(&cpu, 50.0),
        "cpu_p99_us": percentile(&cpu, 99.0),
        "eos_cpu_p50_us": percentile(&eos_cpu, 50.0),
        "eos_cpu_p99_us": percentile(&eos_cpu, 99.0),
        "bridges": bridge_cpu.len(),
        "bridges_found": bridges_found,
        "bridge_bytes_p50": percentile(&bridge_bytes, 50.0),
        "bridge_cpu_p50_ms": percentile(&bridge_cpu, 50.0),
        "bridge_cpu_p99_ms": percentile(&bridge_cpu, 99.0),
        "bridge_cpu_max_ms": bridge_cpu.last().copied().unwrap_or(0.0),
        "violations": violations,
        "eos_after_true_middle": eos_ok,
        "setup_ms": setup_ms,
        "load_avg_1m": load,
    });
    println!("{out}");
    Ok(if violations == 0 && eos_ok == chosen.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
