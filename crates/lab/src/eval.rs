//! `espalier eval BENCHMARK`: generate completions under each constraint mode for a
//! benchmark of the language registry (humaneval, mbpp: Python; humaneval-go: Go;
//! slua), check them with the language's oracle (Python: CPython's `ast.parse` for
//! syntax, pass@1 with the tests in a time-limited subprocess; Go: `gofmt -e` and `go
//! test`), write one JSON record per sample to `--out FILE`, print
//! one JSON summary line per mode, and last a summary line whose top-level fields are
//! the last mode's (`problems`, `finished`, `syntax_errors` over all completions, the
//! same as `syntax_errors_all`, `syntax_errors_finished`, `refused`, `pass_at_1`,
//! `decode_tps`) plus every mode's summary and the throughput ratio against `none`
//! (the speed benchmark: `--mode none,mask,rejection` in one run). sLua counts the
//! same way: a script that did not finish is a syntax error among all.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use crate::harness::{
    load_problems, oracle_of, Generation, Oracle, ProblemRecord, Summary, TestOutcome,
};
use espalier_decode::languages::or_list;
use espalier_decode::{BenchmarkFormat, GenerateConfig, Kits, Lang, LangError, Mode, Task};

use espalier_engine::{chat_of, generate, Loaded, STORE_DIR};

use crate::eval_args::generate_config;
pub use crate::eval_args::Args;
use crate::eval_output::{last_line, open_out, write_record};

/// Finds a shared data file: `../shared/data/NAME` from the current directory, else
/// beside the repository this binary was built from.
fn data_path(arg: Option<&Path>, name: &str) -> Result<PathBuf, String> {
    if let Some(p) = arg {
        return Ok(p.to_path_buf());
    }
    let here = Path::new("../shared/data").join(name);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data").join(name);
    [here.clone(), repo].into_iter().find(|p| p.is_file()).ok_or_else(|| {
        format!(
            "{} not found: pass --data PATH (the shared data sets, see ../shared/data/README.md)",
            here.display()
        )
    })
}

/// Runs `espalier eval`.
pub fn run(mut args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    args.mode = args.mode_names.iter().map(|m| m.parse()).collect::<Result<_, _>>()?;
    let Some((lang, benchmark)) = Lang::benchmark(&args.dataset) else {
        let names = Lang::benchmark_names();
        return Err(
            format!("unknown benchmark {:?}: expected {}", args.dataset, or_list(&names)).into()
        );
    };
    for &mode in &args.mode {
        lang.check_mode(mode)?;
    }
    if benchmark.format == BenchmarkFormat::SluaCategories {
        return crate::eval_slua::run_slua(&args, lang);
    }
    let mut problems = load_problems(&data_path(args.data.as_deref(), benchmark.data_file)?)?;
    problems.drain(..args.offset.min(problems.len()));
    if let Some(limit) = args.limit {
        problems.truncate(limit);
    }
    if args.samples == 0 {
        return Err("--samples must be at least 1".into());
    }
    let oracle = oracle_of(lang, args.python.as_deref(), Duration::from_secs(args.timeout))
        .ok_or_else(|| format!("{} has no oracle to judge {}", lang.name(), args.dataset))?;
    oracle.syntax_error("").map_err(|e| format!("{e} (pass --python PATH)"))?;

    let mut loaded = args.model.load()?;
    let mut kits = Kits::new(loaded.vocab.clone()).with_store_dir(STORE_DIR);
    let mut out = open_out(args.out.as_deref())?;
    eprintln!(
        "{}: {} problems x {} samples, modes {:?}, max {} tokens, temperature {}",
        args.dataset,
        problems.len(),
        args.samples,
        args.mode.iter().map(|m| m.name()).collect::<Vec<_>>(),
        args.max_tokens,
        args.temperature
    );
    // Problem-major: each problem runs in every mode before the next problem, so the
    // modes see the same machine load (the speed ratios are taken within one run on a
    // shared machine); each generation prefills its prompt afresh (`fresh_prefill`).
    let mut by_mode: Vec<Vec<ProblemRecord>> = vec![Vec::new(); args.mode.len()];
    for problem in &problems {
        for (m, &mode) in args.mode.iter().enumerate() {
            for sample in 0..args.samples {
                let task = Task::new(Some(lang), mode, oracle.prompt(problem));
                let config = generate_config(&args, &task, args.seed + sample as u64);
                let record = eval_one(
                    &mut loaded,
                    &mut kits,
                    oracle.as_ref(),
                    problem,
                    &task,
                    sample,
                    config,
                );
                log_record(&record);
                write_record(&mut out, &record)?;
                by_mode[m].push(record);
            }
        }
    }
    let mut summaries = Vec::new();
    for (&mode, records) in args.mode.iter().zip(&by_mode) {
        let summary = Summary::from_records(&args.dataset, mode, args.samples, records);
        println!("{}", serde_json::to_string(&summary)?);
        summaries.push(serde_json::to_value(&summary)?);
    }
    println!("{}", last_line(summaries));
    Ok(ExitCode::SUCCESS)
}

fn log_record(record: &ProblemRecord) {
    eprintln!(
        "[{}] {} #{}: {} tokens, {:.1} tok/s, stop {}, syntax {}, tests {}",
        record.mode,
        record.task_id,
        record.sample,
        record.run.tokens,
        record.run.decode_tps,
        record.run.stop.as_ref().map_or("error", |s| s.name()),
        if record.syntax_error.is_some() { "ERROR" } else { "ok" },
        match &record.test {
            Some(TestOutcome::Passed) => "passed",
            Some(TestOutcome::Failed { .. }) => "failed",
            Some(TestOutcome::TimedOut) => "timed out",
            None => "not run",
        }
    );
}

/// Forgets the KV cache, so the next generation prefills its whole prompt: a reused
/// cache feeds the prompt's last position alone where a fresh one feeds it in the
/// prefill's batch, the logits differ in their last bits and greedy near-ties flip,
/// so modes would part for no reason of their constraint's (found in `eval fim`,
/// RandomSpan HumanEval/16 and 53; see `crate::eval_fim`). The sLua evaluation keeps
/// its reuse: its prompts share thousands of tokens of API description.
fn fresh_prefill(loaded: &mut Loaded) {
    loaded.model.cached.clear();
}

/// Generates and checks one sample.
fn eval_one(
    loaded: &mut Loaded,
    kits: &mut Kits,
    oracle: &dyn Oracle,
    problem: &crate::harness::Problem,
    task: &Task,
    sample: usize,
    config: GenerateConfig,
) -> ProblemRecord {
    let mut record = ProblemRecord {
        task_id: problem.task_id.clone(),
        mode: task.mode,
        sample,
        completion: String::new(),
        run: Generation::default(),
        syntax_error: None,
        test: None,
        error: None,
        prompt_refused: false,
    };
    let prepared = task.prepare_with(kits, &chat_of(&loaded.tokenizer));
    // The grammar judges the prompt in every mode (in `none` too, as `mask` would), so
    // that a refused prompt is counted the same way in every mode's summary.
    record.prompt_refused = match &prepared {
        Err(e) => matches!(e, LangError::Prefix { .. }),
        Ok(_) if task.mode == Mode::None => {
            matches!(
                Task { mode: Mode::Mask, ..task.clone() }.constraint(kits),
                Err(LangError::Prefix { .. })
            )
        }
        Ok(_) => false,
    };
    let result = prepared.map_err(|e| e.to_string()).and_then(|p| {
        let ids = loaded.tokenizer.encode_prompt(&p.prompt).map_err(|e| e.to_string())?;
        fresh_prefill(loaded);
        generate(loaded, p.constraint, &ids, config, None, false).map_err(|e| e.to_string())
    });
    match result {
        Err(e) => {
            record.error = Some(e);
            record.syntax_error = Some("not generated".into());
        }
        Ok((g, timing)) => {
            record.completion = g.text();
            record.run = Generation::of(&g, &timing);
            let code = format!("{}{}", task.request, record.completion);
            match oracle.syntax_error(&code) {
                Ok(err) => record.syntax_error = err,
                Err(e) => record.error = Some(e),
            }
            if record.syntax_error.is_none() {
                record.test = match oracle.run_tests(problem, &record.completion) {
                    Ok(t) => Some(t),
                    Err(e) => Some(TestOutcome::Failed { error: e }),
                };
            }
        }
    }
    record
}
