//! `espalier eval slua`: for each category an effect, then a talent that may apply it;
//! finished scripts are checked, translated and run for 100 turns in the game. One JSON
//! record per script (`--out`), one summary line per mode and a last line as for the
//! other benchmarks (`crate::eval`).

use std::process::ExitCode;

use espalier_decode::{Kits, Lang, Mode, Task};
use espalier_engine::{chat_of, generate, Loaded};

use crate::eval_args::{generate_config, Args};
use crate::eval_output::{last_line, open_out, write_record};
use crate::harness::slua::{check_and_run, Category, ScriptOutcome, CATEGORIES};
use crate::harness::Generation;

/// One generated sLua script.
#[derive(serde::Serialize)]
struct SluaRecord {
    category: &'static str,
    kind: &'static str,
    mode: Mode,
    text: String,
    #[serde(flatten)]
    run: Generation,
    outcome: Option<ScriptOutcome>,
    error: Option<String>,
}

/// Runs `espalier eval slua` over the categories `--offset` / `--limit` select.
pub(crate) fn run_slua(args: &Args, lang: Lang) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let categories =
        &CATEGORIES[args.offset.min(8)..(args.offset + args.limit.unwrap_or(8)).min(8)];
    let mut loaded = args.model.load()?;
    let mut out = open_out(args.out.as_deref())?;
    let mut kits = Kits::new(loaded.vocab.clone());
    // Category-major, as for Python: every mode writes a category's effect and talent
    // before the next category (same machine load for all modes, shared prefill).
    let mut by_mode: Vec<Vec<SluaRecord>> = args.mode.iter().map(|_| Vec::new()).collect();
    for cat in categories {
        for (m, &mode) in args.mode.iter().enumerate() {
            let records = &mut by_mode[m];
            // The effects this category's scripts have defined so far: (name, Lua).
            let mut effects: Vec<(String, String)> = Vec::new();
            for kind in ["effect", "talent"] {
                let task = Task::new(Some(lang), mode, request(cat, kind, &effects))
                    .kind(kind)
                    .effects(effects.iter().map(|(n, _)| n.clone()).collect());
                let seed = args.seed + records.len() as u64;
                let rec = write_script(
                    args,
                    &mut loaded,
                    &mut kits,
                    (cat, kind),
                    &task,
                    &mut effects,
                    seed,
                )?;
                log_script(&rec);
                write_record(&mut out, &rec)?;
                records.push(rec);
            }
        }
    }
    let mut summaries = Vec::new();
    for (&mode, records) in args.mode.iter().zip(&by_mode) {
        let summary = summary(&args.dataset, mode, records);
        println!("{summary}");
        summaries.push(summary);
    }
    println!("{}", last_line(summaries));
    Ok(ExitCode::SUCCESS)
}

/// The category's request for an effect or a talent; a talent is told the effect it
/// may apply.
fn request(cat: &Category, kind: &str, effects: &[(String, String)]) -> String {
    if kind == "effect" {
        return cat.effect.to_string();
    }
    let mut task = cat.talent.to_string();
    if let Some((name, _)) = effects.first() {
        task.push_str(&format!(
            " (it may apply the effect {name}, e.g. `{name}(target, {{ power = 2, turns = 3 }});`)"
        ));
    }
    task
}

/// Generates one script; a finished one is checked and run (`run_seed` seeds the
/// game), and an effect that loads joins `effects`.
fn write_script(
    args: &Args,
    loaded: &mut Loaded,
    kits: &mut Kits,
    (cat, kind): (&Category, &'static str),
    task: &Task,
    effects: &mut Vec<(String, String)>,
    run_seed: u64,
) -> Result<SluaRecord, Box<dyn std::error::Error>> {
    let prepared = task.prepare_with(kits, &chat_of(&loaded.tokenizer))?;
    let ids = loaded.tokenizer.encode_prompt(&prepared.prompt)?;
    let config = generate_config(args, task, args.seed);
    let mut rec = SluaRecord {
        category: cat.name,
        kind,
        mode: task.mode,
        text: String::new(),
        run: Generation::default(),
        outcome: None,
        error: None,
    };
    let (g, timing) = match generate(loaded, prepared.constraint, &ids, config, None, false) {
        Err(e) => {
            rec.error = Some(e.to_string());
            return Ok(rec);
        }
        Ok(r) => r,
    };
    rec.text = g.text();
    rec.run = Generation::of(&g, &timing);
    if rec.run.finished {
        let (outcome, loaded_script) = check_and_run(&rec.text, effects, 100, run_seed);
        if let Some((k, name, lua)) = loaded_script {
            if k == "effect" {
                effects.push((name, lua));
            }
        }
        rec.outcome = Some(outcome);
    }
    Ok(rec)
}

fn log_script(rec: &SluaRecord) {
    eprintln!(
        "[{}] {} {}: {} tokens, {:.1} tok/s, stop {}{}, {}",
        rec.mode,
        rec.category,
        rec.kind,
        rec.run.tokens,
        rec.run.decode_tps,
        rec.run.stop.as_ref().map_or("error", |s| s.name()),
        match (&rec.run.stats.loop_detected, rec.run.stats.wrap_up_from) {
            (Some(l), Some(s)) => format!(" (loop {} at step {s}: wrapped up)", l.name()),
            (_, Some(s)) => format!(" (wrap-up from step {s})"),
            _ => String::new(),
        },
        rec.outcome.as_ref().map_or("not checked".to_string(), |o| {
            serde_json::to_value(o).map(|v| v["outcome"].to_string()).unwrap_or_default()
        })
    );
}

/// One mode's summary line: finished, refused by the checker, ran 100 turns, runtime
/// errors, stops, wrap-ups and speed.
fn summary(dataset: &str, mode: Mode, records: &[SluaRecord]) -> serde_json::Value {
    let n = records.len();
    let count = |f: &dyn Fn(&SluaRecord) -> bool| records.iter().filter(|r| f(r)).count();
    let finished = count(&|r| r.run.finished);
    let ran = count(&|r| matches!(r.outcome, Some(ScriptOutcome::Ran { .. })));
    let check_failed = count(&|r| matches!(r.outcome, Some(ScriptOutcome::CheckFailed { .. })));
    let runtime = count(&|r| {
        matches!(
            r.outcome,
            Some(ScriptOutcome::RuntimeError { .. } | ScriptOutcome::LoadFailed { .. })
        )
    });
    let tokens: usize = records.iter().map(|r| r.run.tokens).sum();
    let secs: f64 = records.iter().map(|r| r.run.decode_s).sum();
    let mut stops = std::collections::BTreeMap::new();
    for r in records {
        *stops.entry(r.run.stop.as_ref().map_or("error", |s| s.name())).or_insert(0usize) += 1;
    }
    serde_json::json!({
        "dataset": dataset,
        "mode": mode,
        "problems": n,
        "finished": finished,
        "finished_fraction": if n > 0 { finished as f64 / n as f64 } else { 0.0 },
        // Over all scripts, as for Python: an unfinished or failed generation is
        // not a valid script; among finished ones, those the checker refuses.
        "syntax_errors": n - finished + check_failed,
        "syntax_errors_all": n - finished + check_failed,
        "syntax_errors_finished": check_failed,
        "ran_100_turns": ran,
        "runtime_errors": runtime,
        "pass_at_1": if n > 0 { ran as f64 / n as f64 } else { 0.0 },
        "stops": stops,
        "wrap_up_fired": count(&|r| r.run.stats.wrap_up_from.is_some()),
        "finished_after_wrap_up": count(&|r| r.run.finished && r.run.stats.wrap_up_from.is_some()),
        "loops_wrapped_up": count(&|r| r.run.stats.loop_detected.is_some()),
        "tokens": tokens,
        "decode_tps": if secs > 0.0 { tokens as f64 / secs } else { 0.0 },
        "constraint_s": records.iter().map(|r| r.run.stats.constraint_s).sum::<f64>(),
    })
}
