//! `espalier bench mask --lang LANG --strategy exact|syncode|check FILE...`:
//! teacher-forced mask timing over real files for a grammar language of the registry
//! (`bench decode` lives in `bench_decode.rs`).
//!
//! Each file is tokenized with the model's tokenizer and fed token by token to a fresh
//! grammar constraint; before each token the strategy's work is timed: a full mask
//! (`exact`, `syncode`) or one `allows` check of the true next token (`check`, the
//! cost adaptive rejection pays per tried token). A step where the true token is not
//! allowed is a violation (the token is committed anyway when the grammar takes it).
//!
//! Contract (used by checks outside the test suite; keep it stable): the last line of
//! stdout is one JSON object with at least `tokens`, `p50_us`, `p99_us`, `max_us`,
//! `setup_ms` and `violations`; it also has `strategy`, `files`, `skipped_files`,
//! `mean_us`, `cpu_p50_us` / `cpu_p99_us` / `cpu_max_us` (see below), `mean_allowed`,
//! `trie_nodes`, `trie_bytes`, `store_bytes`, `summaries_bytes` (exact's per-node
//! lexeme summaries), `mean_trie_nodes_visited` (exact: lexeme starts summarized plus
//! trie nodes offered one by one), `mean_full_recognizer_steps`, `peak_rss_kib` (Linux, from /proc; 0 elsewhere),
//! and on Linux `cpu_mean_us` and the `cpu_*` percentiles: each step's on-CPU time of
//! the thread (`CLOCK_THREAD_CPUTIME_ID`, exact per step), which a loaded machine
//! does not inflate (wall time counts the waits for a core), with `load_avg_1m` for
//! context.
//! `setup_ms` counts what a strategy builds before its first mask: the kit (the
//! trie, the lexeme-start summaries, the layer's data and the empty text's mask:
//! every strategy's kit builds them), plus loading / building the store (`syncode`), and with
//! `--names` the names layer's groups of the vocabulary;
//! `setup_cpu_ms` the same on the thread's CPU clock (-1 where there is none).
//!
//! `--worst N` prints the N slowest steps by on-CPU time (wall time where the
//! platform has no thread clock) to stderr, each with the text around it (`|` marks
//! where the step's token goes), and adds them to the JSON line as `worst`: a user
//! sees the slowest step, not the median (issue 16).
//!
//! `--names` (Python, `exact`) times mode `names` instead: the exact mask filtered by
//! the names layer (`espalier_decode::NamesConstraint`, issue 34); a true token the
//! layer refuses (a forward reference: generation refuses them) ends its file there
//! (`skipped_files`), as a grammar refusal does.
//!
//! `--finishing` also times the finishing mask (the decoder's wrap-up) at every
//! `--finishing-every`-th step and adds a `finishing` object to the JSON line (see
//! [`crate::bench_finishing`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use espalier_constraint::timing::{percentile, thread_cpu_ns};
use espalier_constraint::{
    Constraint, GrammarConstraint, MaskKit, MaskStore, Strategy, TokenSet, Vocab,
};
use espalier_model::{Gguf, Tokenizer, DEFAULT_MODEL_PATH};

/// Arguments of `espalier bench`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// Time token masks, teacher-forced over real files.
    Mask(MaskArgs),
    /// Decode tokens/s of each constraint mode against none, in one run.
    Decode(crate::bench_decode::DecodeArgs),
    /// Fill-in-the-middle: request preparation and per-token masks on real code.
    Fim(crate::bench_fim::FimArgs),
}

#[derive(clap::Args)]
struct MaskArgs {
    /// The grammar language (of the registry; sLua has no grammar to time here, see
    /// `crates/slua/examples/mask_speed.rs`).
    #[arg(long, default_value = "python", value_parser = crate::lang_parser())]
    lang: espalier_decode::Lang,
    /// exact, syncode or check.
    #[arg(long, default_value = "exact")]
    strategy: String,
    /// The GGUF whose tokenizer gives the vocabulary.
    #[arg(long, default_value = DEFAULT_MODEL_PATH)]
    model: PathBuf,
    /// SynCode store cache file (built and saved there when missing or stale;
    /// default: target/espalier-cache/LANG-smollm2.store).
    #[arg(long)]
    store: Option<PathBuf>,
    /// Print one line per file (and slow steps) as well.
    #[arg(long)]
    verbose: bool,
    /// Also write the vocabulary and the files' token ids to this file, the input of
    /// the wasm harness (`bench/constraint-wasm/run.mjs`).
    #[arg(long)]
    export: Option<PathBuf>,
    /// Print the N slowest steps (on-CPU time) with the text around them.
    #[arg(long, default_value_t = 0)]
    worst: usize,
    /// Also time the finishing mask (the decoder's wrap-up) at the steps: adds
    /// `finishing` to the JSON line.
    #[arg(long)]
    finishing: bool,
    /// With `--finishing`: time it at every N-th step only.
    #[arg(long, default_value_t = 1)]
    finishing_every: usize,
    /// With `--finishing`: give each file's constraint a cost cache of its own (every
    /// request's first visit of a context costed from scratch) instead of one cache for
    /// the run (as the decoder's kit shares one by every request).
    #[arg(long)]
    finishing_fresh_cache: bool,
    /// Time mode `names` (the exact mask and the names layer; Python only).
    #[arg(long)]
    names: bool,
    /// Source files to feed.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// Runs `espalier bench`.
pub fn run(args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    match args.what {
        What::Mask(a) => bench_mask(a),
        What::Decode(a) => crate::bench_decode::bench_decode(a),
        What::Fim(a) => crate::bench_fim::bench_fim(a),
    }
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

fn bench_mask(a: MaskArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let strategy: Strategy = a.strategy.parse()?;
    if a.names && (a.lang.name() != "python" || strategy != Strategy::Exact || a.finishing) {
        return Err("--names times mode names: Python, --strategy exact, no --finishing".into());
    }
    let lang =
        a.lang.grammar().ok_or_else(|| format!("{} has no grammar to time masks of", a.lang))??;
    let store_path = a.store.clone().unwrap_or_else(|| {
        Path::new(espalier_engine::STORE_DIR).join(format!("{}-smollm2.store", a.lang.name()))
    });
    let gguf = Gguf::open(&a.model).map_err(|e| format!("{}: {e}", a.model.display()))?;
    let tok = Tokenizer::from_gguf(&gguf)?;
    drop(gguf);
    let vocab = espalier_engine::vocab_of(&tok);

    // Setup: what a strategy needs before its first mask (the grammar is compiled
    // first and not counted: every strategy shares it).
    let t0 = Instant::now();
    let setup_cpu0 = thread_cpu_ns();
    let mut kit = MaskKit::for_vocab(lang.clone(), &vocab);
    let mut store_bytes = 0;
    let mut summaries_bytes = 0;
    if strategy == Strategy::Exact {
        summaries_bytes = kit.lexeme_starts().map_or(0, |s| s.memory_bytes());
    }
    let names_kit = a.names.then(|| espalier_decode::names_constraint::NamesKit::new(&vocab));
    if strategy == Strategy::Syncode {
        let s = MaskStore::load_or_build(&lang, &vocab, &store_path)?;
        store_bytes = s.memory_bytes();
        kit = kit.with_store(Arc::new(s));
    }
    let trie = kit.trie().clone();
    let setup_ms = t0.elapsed().as_secs_f64() * 1e3;
    let setup_cpu_ms = match (setup_cpu0, thread_cpu_ns()) {
        (Some(a), Some(b)) => b.saturating_sub(a) as f64 / 1e6,
        _ => -1.0,
    };

    let mut export = Vec::new();
    if a.export.is_some() {
        export.extend_from_slice(&(vocab.len() as u32).to_le_bytes());
        export.extend_from_slice(&vocab.eos().to_le_bytes());
        for id in 0..vocab.len() as u32 {
            let b = vocab.bytes(id);
            export.extend_from_slice(&(b.len() as u32).to_le_bytes());
            export.push(u8::from(vocab.is_special(id)));
            export.extend_from_slice(b);
        }
        export.extend_from_slice(&(a.files.len() as u32).to_le_bytes());
    }
    let mut times = Vec::new();
    let mut cpu_times = Vec::new();
    let mut violations = 0usize;
    let mut allowed_sum = 0usize;
    let (mut nodes_sum, mut heavy_sum) = (0usize, 0usize);
    let mut skipped = Vec::new();
    let mut mask = TokenSet::empty(vocab.len());
    // Per step: (file index, byte offset of the step's token, its id).
    let mut where_: Vec<(usize, usize, u32)> = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    let mut finishing = a.finishing.then(|| {
        crate::bench_finishing::FinishingTimes::new(
            &lang,
            &vocab,
            a.finishing_every,
            !a.finishing_fresh_cache,
        )
    });
    let mut step = 0usize;
    for (file_index, path) in a.files.iter().enumerate() {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let ids = tok.encode(&text)?;
        if a.export.is_some() {
            export.extend_from_slice(&(ids.len() as u32).to_le_bytes());
            for &id in &ids {
                export.extend_from_slice(&id.to_le_bytes());
            }
        }
        let mut c = GrammarConstraint::new(&kit, strategy, format!("{}-lr", a.lang.name()));
        if let Some(f) = &finishing {
            c = f.attach(c);
        }
        let mut named = names_kit
            .as_ref()
            .map(|n| espalier_decode::names_constraint::NamesConstraint::new(c.clone(), n));
        let mut file_violations = 0;
        let mut fed = 0;
        let mut offset = 0;
        for &id in &ids {
            let bytes = vocab.bytes(id);
            if a.worst > 0 {
                where_.push((file_index, offset, id));
            }
            let at = offset;
            offset += bytes.len();
            let c0 = thread_cpu_ns();
            let t = Instant::now();
            let ok = if strategy == Strategy::Check {
                c.allows(bytes)
            } else {
                match named.as_mut() {
                    Some(n) => n.fill_mask(&vocab, &mut mask),
                    None => c.fill_mask(&vocab, &mut mask),
                }
                mask.contains(id as usize)
            };
            let us = t.elapsed().as_secs_f64() * 1e6;
            times.push(us);
            if let (Some(a0), Some(a1)) = (c0, thread_cpu_ns()) {
                cpu_times.push(a1.saturating_sub(a0) as f64 / 1e3);
            }
            if a.verbose && us > 5000.0 {
                let text = named.as_ref().map_or(&c, |n| n.grammar()).text();
                let (nodes, heavy) = c.last_walk_work();
                eprintln!(
                    "slow step {us:.0} us ({nodes} nodes, {heavy} full steps) after {:?}",
                    String::from_utf8_lossy(&text[text.len().saturating_sub(50)..])
                );
            }
            if strategy != Strategy::Check {
                allowed_sum += mask.count();
            }
            if strategy == Strategy::Exact {
                let (nodes, heavy) = named.as_ref().map_or(&c, |n| n.grammar()).last_walk_work();
                nodes_sum += nodes;
                heavy_sum += heavy;
            }
            if !ok {
                file_violations += 1;
            }
            if let Some(f) = finishing.as_mut() {
                let exact = (strategy == Strategy::Exact).then_some(&mask);
                f.time(&mut c, &vocab, exact, step, file_index, at);
            }
            step += 1;
            let committed = match named.as_mut() {
                Some(n) => n.commit(bytes).is_ok(),
                None => c.commit(bytes).is_ok(),
            };
            if !committed {
                break;
            }
            fed += 1;
        }
        if fed < ids.len() {
            skipped.push(path.display().to_string());
        }
        violations += file_violations;
        if a.worst > 0 || a.finishing {
            texts.push(text);
        }
        if a.verbose {
            eprintln!(
                "{}: {} tokens, {} fed, {file_violations} violations",
                path.display(),
                ids.len(),
                fed
            );
        }
    }
    if let Some(path) = &a.export {
        std::fs::write(path, &export).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let mut sorted = times.clone();
    sorted.sort_by(|x, y| x.total_cmp(y));
    let mut cpu_sorted = cpu_times.clone();
    cpu_sorted.sort_by(|x, y| x.total_cmp(y));
    let worst = worst_steps(&a, &times, &cpu_times, &where_, &texts, &vocab);
    let mean = if times.is_empty() { 0.0 } else { times.iter().sum::<f64>() / times.len() as f64 };
    let out = serde_json::json!({
        "bench": "mask",
        "lang": a.lang.name(),
        "strategy": strategy.name(),
        "mode": if a.names { "names" } else { "mask" },
        "files": a.files.len(),
        "skipped_files": skipped,
        "tokens": times.len(),
        "p50_us": round2(percentile(&sorted, 50.0)),
        "p99_us": round2(percentile(&sorted, 99.0)),
        "max_us": round2(sorted.last().copied().unwrap_or(0.0)),
        "mean_us": round2(mean),
        "cpu_mean_us": round2(if cpu_times.is_empty() { 0.0 } else { cpu_times.iter().sum::<f64>() / cpu_times.len() as f64 }),
        "cpu_p50_us": round2(percentile(&cpu_sorted, 50.0)),
        "cpu_p99_us": round2(percentile(&cpu_sorted, 99.0)),
        "cpu_max_us": round2(cpu_sorted.last().copied().unwrap_or(0.0)),
        "load_avg_1m": std::fs::read_to_string("/proc/loadavg").ok().and_then(|s| s.split_whitespace().next().and_then(|v| v.parse::<f64>().ok())).unwrap_or(-1.0),
        "mean_allowed": if times.is_empty() || strategy == Strategy::Check { 0 } else { allowed_sum / times.len() },
        "setup_ms": round2(setup_ms),
        "setup_cpu_ms": round2(setup_cpu_ms),
        "mean_trie_nodes_visited": if times.is_empty() { 0 } else { nodes_sum / times.len() },
        "mean_full_recognizer_steps": if times.is_empty() { 0 } else { heavy_sum / times.len() },
        "violations": violations,
        "trie_nodes": trie.node_count(),
        "trie_bytes": trie.memory_bytes(),
        "store_bytes": store_bytes,
        "summaries_bytes": summaries_bytes,
        "peak_rss_kib": peak_rss_kib(),
    });
    let mut out = out;
    if a.worst > 0 {
        out["worst"] = serde_json::Value::Array(worst);
    }
    if let Some(f) = &finishing {
        let names: Vec<String> = a.files.iter().map(|p| p.display().to_string()).collect();
        out["finishing"] = f.summary(&texts, &names, a.worst);
    }
    println!("{out}");
    Ok(if violations == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The `a.worst` slowest steps (by on-CPU time when every step has one, else wall
/// time), printed to stderr with the text around each and returned as JSON.
fn worst_steps(
    a: &MaskArgs,
    times: &[f64],
    cpu_times: &[f64],
    where_: &[(usize, usize, u32)],
    texts: &[String],
    vocab: &Vocab,
) -> Vec<serde_json::Value> {
    if a.worst == 0 {
        return Vec::new();
    }
    let key = if cpu_times.len() == times.len() { cpu_times } else { times };
    let mut order: Vec<usize> = (0..key.len().min(where_.len())).collect();
    order.sort_by(|&x, &y| key[y].total_cmp(&key[x]));
    order.truncate(a.worst);
    let mut out = Vec::new();
    for (rank, &i) in order.iter().enumerate() {
        let (file, offset, id) = where_[i];
        let text = texts[file].as_bytes();
        let offset = offset.min(text.len());
        let before = &text[offset.saturating_sub(60)..offset];
        let after = &text[offset..(offset + 30).min(text.len())];
        let (before, after) = (String::from_utf8_lossy(before), String::from_utf8_lossy(after));
        let token = String::from_utf8_lossy(vocab.bytes(id)).into_owned();
        let cpu_us = cpu_times.get(i).copied();
        eprintln!(
            "worst {}: {:.1} us CPU, {:.1} us wall, {} byte {offset}, token {id} {token:?}: {before:?} | {after:?}",
            rank + 1,
            cpu_us.unwrap_or(f64::NAN),
            times[i],
            a.files[file].display()
        );
        out.push(serde_json::json!({
            "cpu_us": cpu_us.map(round2),
            "us": round2(times[i]),
            "file": a.files[file].display().to_string(),
            "offset": offset,
            "token": token,
            "before": before,
            "after": after,
        }));
    }
    out
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
