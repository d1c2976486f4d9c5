//! `espalier bench mask --lang LANG --strategy exact|syncode|check FILE...`:
//! teacher-forced mask timing over real files for a grammar language of the registry
//! (the `bench` command's other benchmarks: `bench_decode.rs`, `bench_fim.rs`).
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

use espalier_constraint::timing::percentile;
use espalier_constraint::{
    Constraint, GrammarConstraint, MaskKit, MaskStore, Strategy, TokenSet, Vocab,
};
use espalier_decode::names_constraint::{NamesConstraint, NamesKit};
use espalier_grammar::Language;
use espalier_model::{Gguf, Tokenizer, DEFAULT_MODEL_PATH};

use crate::bench_clock::{load_avg_1m, mean, round2, sorted, Clock, Span};
use crate::bench_finishing::FinishingTimes;

/// Arguments of `espalier bench mask`.
#[derive(clap::Args)]
pub(crate) struct MaskArgs {
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

/// Runs `espalier bench mask`.
pub(crate) fn bench_mask(a: MaskArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let strategy: Strategy = a.strategy.parse()?;
    if a.names && (a.lang.name() != "python" || strategy != Strategy::Exact || a.finishing) {
        return Err("--names times mode names: Python, --strategy exact, no --finishing".into());
    }
    let lang =
        a.lang.grammar().ok_or_else(|| format!("{} has no grammar to time masks of", a.lang))??;
    let gguf = Gguf::open(&a.model).map_err(|e| format!("{}: {e}", a.model.display()))?;
    let tok = Tokenizer::from_gguf(&gguf)?;
    drop(gguf);
    let vocab = espalier_engine::vocab_of(&tok);
    let setup = Setup::build(&a, strategy, &lang, &vocab)?;
    let mut export = a.export.as_ref().map(|_| export_header(&vocab, a.files.len()));
    let mut run = MaskRun::new(&a, strategy, &lang, &vocab, &setup);
    for (file_index, path) in a.files.iter().enumerate() {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let ids = tok.encode(&text)?;
        if let Some(export) = export.as_mut() {
            export_ids(export, &ids);
        }
        run.feed_file(file_index, path, text, &ids);
    }
    if let (Some(path), Some(export)) = (&a.export, &export) {
        std::fs::write(path, export).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    println!("{}", run.summary());
    Ok(if run.violations == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// What a strategy builds before its first mask (the grammar is compiled first and
/// not counted: every strategy shares it), and what that cost.
struct Setup {
    kit: MaskKit,
    names_kit: Option<NamesKit>,
    store_bytes: usize,
    summaries_bytes: usize,
    span: Span,
}

impl Setup {
    /// The kit (and the SynCode store, the names layer's groups) for `a`'s run.
    fn build(
        a: &MaskArgs,
        strategy: Strategy,
        lang: &Arc<Language>,
        vocab: &Vocab,
    ) -> Result<Setup, Box<dyn std::error::Error>> {
        let clock = Clock::start();
        let mut kit = MaskKit::for_vocab(lang.clone(), vocab);
        let mut store_bytes = 0;
        let mut summaries_bytes = 0;
        if strategy == Strategy::Exact {
            summaries_bytes = kit.lexeme_starts().map_or(0, |s| s.memory_bytes());
        }
        let names_kit = a.names.then(|| NamesKit::new(vocab));
        if strategy == Strategy::Syncode {
            let store_path = a.store.clone().unwrap_or_else(|| {
                Path::new(espalier_engine::STORE_DIR)
                    .join(format!("{}-smollm2.store", a.lang.name()))
            });
            let s = MaskStore::load_or_build(lang, vocab, &store_path)?;
            store_bytes = s.memory_bytes();
            kit = kit.with_store(Arc::new(s));
        }
        Ok(Setup { kit, names_kit, store_bytes, summaries_bytes, span: clock.stop() })
    }
}

/// The head of the wasm harness's input: the vocabulary (size, EOS, each token's
/// length, whether special, bytes) and the number of files.
fn export_header(vocab: &Vocab, files: usize) -> Vec<u8> {
    let mut export = Vec::new();
    export.extend_from_slice(&(vocab.len() as u32).to_le_bytes());
    export.extend_from_slice(&vocab.eos().to_le_bytes());
    for id in 0..vocab.len() as u32 {
        let b = vocab.bytes(id);
        export.extend_from_slice(&(b.len() as u32).to_le_bytes());
        export.push(u8::from(vocab.is_special(id)));
        export.extend_from_slice(b);
    }
    export.extend_from_slice(&(files as u32).to_le_bytes());
    export
}

/// One file of the wasm harness's input: its token count, then the ids.
fn export_ids(export: &mut Vec<u8>, ids: &[u32]) {
    export.extend_from_slice(&(ids.len() as u32).to_le_bytes());
    for &id in ids {
        export.extend_from_slice(&id.to_le_bytes());
    }
}

/// The timed steps: wall and on-CPU microseconds, and (with `--worst`) where each was:
/// (file index, byte offset of the step's token, its id).
#[derive(Default)]
struct Steps {
    times: Vec<f64>,
    cpu_times: Vec<f64>,
    where_: Vec<(usize, usize, u32)>,
}

/// The run over the files, and its tallies.
struct MaskRun<'a> {
    a: &'a MaskArgs,
    strategy: Strategy,
    vocab: &'a Vocab,
    setup: &'a Setup,
    mask: TokenSet,
    finishing: Option<FinishingTimes>,
    steps: Steps,
    /// Steps over all files (the finishing mask's sampling counts them).
    step: usize,
    violations: usize,
    allowed_sum: usize,
    nodes_sum: usize,
    heavy_sum: usize,
    skipped: Vec<String>,
    /// The files' texts, kept for `--worst` and `--finishing`.
    texts: Vec<String>,
}

impl<'a> MaskRun<'a> {
    fn new(
        a: &'a MaskArgs,
        strategy: Strategy,
        lang: &Language,
        vocab: &'a Vocab,
        setup: &'a Setup,
    ) -> Self {
        let finishing = a
            .finishing
            .then(|| FinishingTimes::new(lang, vocab, a.finishing_every, !a.finishing_fresh_cache));
        MaskRun {
            a,
            strategy,
            vocab,
            setup,
            mask: TokenSet::empty(vocab.len()),
            finishing,
            steps: Steps::default(),
            step: 0,
            violations: 0,
            allowed_sum: 0,
            nodes_sum: 0,
            heavy_sum: 0,
            skipped: Vec::new(),
            texts: Vec::new(),
        }
    }

    /// Feeds one file's tokens to a fresh constraint, timing each step; a token the
    /// constraint refuses ends the file (it is then listed as skipped).
    fn feed_file(&mut self, file_index: usize, path: &Path, text: String, ids: &[u32]) {
        let language = format!("{}-lr", self.a.lang.name());
        let mut c = GrammarConstraint::new(&self.setup.kit, self.strategy, language);
        if let Some(f) = &self.finishing {
            c = f.attach(c);
        }
        let mut named = self.setup.names_kit.as_ref().map(|n| NamesConstraint::new(c.clone(), n));
        let (mut file_violations, mut fed, mut offset) = (0, 0, 0);
        for &id in ids {
            let bytes = self.vocab.bytes(id);
            let ok = self.time_step(&mut c, named.as_mut(), id, (file_index, offset));
            file_violations += usize::from(!ok);
            offset += bytes.len();
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
            self.skipped.push(path.display().to_string());
        }
        self.violations += file_violations;
        if self.a.worst > 0 || self.a.finishing {
            self.texts.push(text);
        }
        if self.a.verbose {
            eprintln!(
                "{}: {} tokens, {fed} fed, {file_violations} violations",
                path.display(),
                ids.len()
            );
        }
    }

    /// Times the strategy's work before token `id` (at `at`: file index, byte offset)
    /// and tallies it; whether the token was allowed.
    fn time_step(
        &mut self,
        c: &mut GrammarConstraint,
        mut named: Option<&mut NamesConstraint>,
        id: u32,
        at: (usize, usize),
    ) -> bool {
        if self.a.worst > 0 {
            self.steps.where_.push((at.0, at.1, id));
        }
        let clock = Clock::start();
        let ok = if self.strategy == Strategy::Check {
            c.allows(self.vocab.bytes(id))
        } else {
            match named.as_deref_mut() {
                Some(n) => n.fill_mask(self.vocab, &mut self.mask),
                None => c.fill_mask(self.vocab, &mut self.mask),
            }
            self.mask.contains(id as usize)
        };
        let span = clock.stop();
        let us = span.wall_s * 1e6;
        self.steps.times.push(us);
        self.steps.cpu_times.extend(span.cpu_us());
        let shown = named.as_deref().map_or(&*c, |n| n.grammar());
        self.tally_work(shown, us);
        if let Some(f) = self.finishing.as_mut() {
            let exact = (self.strategy == Strategy::Exact).then_some(&self.mask);
            f.time(c, self.vocab, exact, self.step, at.0, at.1);
        }
        self.step += 1;
        ok
    }

    /// Adds a step's mask size and walk work (`shown`: the grammar constraint that
    /// walked) to the tallies; with `--verbose`, prints a slow step.
    fn tally_work(&mut self, shown: &GrammarConstraint, us: f64) {
        if self.a.verbose && us > 5000.0 {
            let text = shown.text();
            let (nodes, heavy) = shown.last_walk_work();
            eprintln!(
                "slow step {us:.0} us ({nodes} nodes, {heavy} full steps) after {:?}",
                String::from_utf8_lossy(&text[text.len().saturating_sub(50)..])
            );
        }
        if self.strategy != Strategy::Check {
            self.allowed_sum += self.mask.count();
        }
        if self.strategy == Strategy::Exact {
            let (nodes, heavy) = shown.last_walk_work();
            self.nodes_sum += nodes;
            self.heavy_sum += heavy;
        }
    }

    /// The JSON line (see the module doc).
    fn summary(&self) -> serde_json::Value {
        let (a, setup, steps) = (self.a, self.setup, &self.steps);
        let (wall, cpu) = (sorted(&steps.times), sorted(&steps.cpu_times));
        let n = steps.times.len();
        let per_step = |sum: usize| sum.checked_div(n).unwrap_or(0);
        let trie = setup.kit.trie();
        let mut out = serde_json::json!({
            "bench": "mask",
            "lang": a.lang.name(),
            "strategy": self.strategy.name(),
            "mode": if a.names { "names" } else { "mask" },
            "files": a.files.len(),
            "skipped_files": self.skipped,
            "tokens": n,
            "p50_us": round2(percentile(&wall, 50.0)),
            "p99_us": round2(percentile(&wall, 99.0)),
            "max_us": round2(wall.last().copied().unwrap_or(0.0)),
            "mean_us": round2(mean(&steps.times)),
            "cpu_mean_us": round2(mean(&steps.cpu_times)),
            "cpu_p50_us": round2(percentile(&cpu, 50.0)),
            "cpu_p99_us": round2(percentile(&cpu, 99.0)),
            "cpu_max_us": round2(cpu.last().copied().unwrap_or(0.0)),
            "load_avg_1m": load_avg_1m().unwrap_or(-1.0),
            "mean_allowed": if self.strategy == Strategy::Check { 0 } else { per_step(self.allowed_sum) },
            "setup_ms": round2(setup.span.wall_s * 1e3),
            "setup_cpu_ms": round2(setup.span.cpu_ms().unwrap_or(-1.0)),
            "mean_trie_nodes_visited": per_step(self.nodes_sum),
            "mean_full_recognizer_steps": per_step(self.heavy_sum),
            "violations": self.violations,
            "trie_nodes": trie.node_count(),
            "trie_bytes": trie.memory_bytes(),
            "store_bytes": setup.store_bytes,
            "summaries_bytes": setup.summaries_bytes,
            "peak_rss_kib": peak_rss_kib(),
        });
        if a.worst > 0 {
            out["worst"] = serde_json::Value::Array(worst_steps(a, steps, &self.texts, self.vocab));
        }
        if let Some(f) = &self.finishing {
            let names: Vec<String> = a.files.iter().map(|p| p.display().to_string()).collect();
            out["finishing"] = f.summary(&self.texts, &names, a.worst);
        }
        out
    }
}

/// The process's peak resident memory (Linux, from /proc; 0 elsewhere).
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

/// The `a.worst` slowest steps (by on-CPU time when every step has one, else wall
/// time), printed to stderr with the text around each and returned as JSON.
fn worst_steps(
    a: &MaskArgs,
    steps: &Steps,
    texts: &[String],
    vocab: &Vocab,
) -> Vec<serde_json::Value> {
    let Steps { times, cpu_times, where_ } = steps;
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
