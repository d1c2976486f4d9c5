//! Teacher-forced mask timing for a grammar language, without the CLI (which pulls
//! in the model and its burn backends): the same measurement as `espalier bench mask`
//! (each file tokenized with the SmolLM2 tokenizer, fed token by token; before each
//! token one full mask is timed, wall and on-CPU), for Python or Go.
//!
//! `cargo run --release -p espalier-constraint --example mask_bench -- --lang go
//!  --strategy exact|syncode FILE...`
//!
//! The last line of stdout is one JSON object: `lang`, `strategy`, `files`, `tokens`,
//! `p50_us` / `p99_us` / `max_us` / `mean_us` (wall), `cpu_p50_us` / `cpu_p99_us` /
//! `cpu_max_us` (the thread's on-CPU time per step), `load_avg_1m`, `setup_ms`,
//! `violations` (true tokens the mask refused), `skipped_files` (not accepted whole).

use std::sync::Arc;
use std::time::Instant;

use espalier_constraint::timing::{percentile, thread_cpu_ns};
use espalier_constraint::{Constraint, GrammarConstraint, MaskKit, MaskStore, Strategy, TokenSet};

mod common;

fn main() {
    common::main_of("mask_bench", run);
}

fn run() -> common::Outcome {
    let mut args = std::env::args().skip(1);
    let (mut lang_name, mut strategy, mut files) = ("go".to_string(), Strategy::Exact, Vec::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--lang" => lang_name = args.next().ok_or("--lang needs a value (python|go)")?,
            "--strategy" => strategy = args.next().ok_or("--strategy needs a value")?.parse()?,
            _ => files.push(a),
        }
    }
    let lang = match lang_name.as_str() {
        "go" => espalier_grammar::go()?,
        "python" => espalier_grammar::python()?,
        other => return Err(format!("unknown --lang {other:?} (python|go)").into()),
    };
    if files.is_empty() {
        return Err("no files given".into());
    }
    let (tok, vocab) = common::smollm2()?;
    let t0 = Instant::now();
    let mut kit = MaskKit::for_vocab(lang.clone(), &vocab);
    if strategy == Strategy::Syncode {
        let path = std::env::temp_dir().join(format!("espalier-{lang_name}-smollm2.store"));
        kit = kit.with_store(Arc::new(MaskStore::load_or_build(&lang, &vocab, &path)?));
    }
    let setup_ms = t0.elapsed().as_secs_f64() * 1e3;
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    let (mut violations, mut skipped) = (0usize, Vec::new());
    let mut mask = TokenSet::empty(vocab.len());
    for path in &files {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        let ids = tok.encode(&text)?;
        let mut c = GrammarConstraint::new(&kit, strategy, format!("{lang_name}-lr"));
        let mut fed = 0;
        for &id in &ids {
            let c0 = thread_cpu_ns();
            let t = Instant::now();
            c.fill_mask(&vocab, &mut mask);
            wall.push(t.elapsed().as_secs_f64() * 1e6);
            if let (Some(a), Some(b)) = (c0, thread_cpu_ns()) {
                cpu.push(b.saturating_sub(a) as f64 / 1e3);
            }
            violations += usize::from(!mask.contains(id as usize));
            if c.commit(vocab.bytes(id)).is_err() {
                break;
            }
            fed += 1;
        }
        if fed < ids.len() || !c.is_complete() {
            skipped.push(path.clone());
        }
    }
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    let mean = wall.iter().sum::<f64>() / wall.len().max(1) as f64;
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(String::from))
        .unwrap_or_default();
    println!(
        "{{\"bench\":\"mask\",\"lang\":\"{lang_name}\",\"strategy\":\"{strategy}\",\"files\":{},\"tokens\":{},\"p50_us\":{:.2},\"p99_us\":{:.2},\"max_us\":{:.2},\"mean_us\":{mean:.2},\"cpu_p50_us\":{:.2},\"cpu_p99_us\":{:.2},\"cpu_max_us\":{:.2},\"load_avg_1m\":{load},\"setup_ms\":{setup_ms:.1},\"violations\":{violations},\"skipped_files\":{:?}}}",
        files.len(),
        wall.len(),
        percentile(&wall, 50.0),
        percentile(&wall, 99.0),
        wall.last().copied().unwrap_or(0.0),
        percentile(&cpu, 50.0),
        percentile(&cpu, 99.0),
        cpu.last().copied().unwrap_or(0.0),
        skipped
    );
    Ok(())
}
