//! The native counterpart of `run.mjs`: the same harness functions, the same input
//! file, timed with `Instant`, so wasm and native figures come from identical work.
//!
//! ```text
//! cargo run --release --manifest-path bench/constraint-wasm/Cargo.toml \
//!     --bin native -- INPUT exact|check [FILE_INDEX] [--passes N] [--dump FILE] [--cold] [--repeat K]
//! ```
//! With `FILE_INDEX`, only that file of the input is timed (quick iterations).
//! `--passes N` and `--dump FILE` as in `run.mjs`: further passes over the same steps
//! (reported under `passes`), every step's wall time per pass written to `FILE`;
//! `--cold`: setup without the warm-up mask; `--repeat K`: each step's mask computed
//! once untimed, then K times timed together, divided by K (as in `run.mjs`).

use std::time::Instant;

use espalier_constraint::timing::{percentile as pct, thread_cpu_ns};
use espalier_constraint_wasm_bench::{alloc, allocs, commit_step, CHECK, COLD, compile_grammar, mask_step, prepare_repeat, repeat_mask, restart, select_file, setup, violations, work};

/// Removes `--name VALUE` from `args` and returns the value.
fn take_flag(args: &mut Vec<String>, name: &str) -> Option<String> {
    let i = args.iter().position(|a| a == name)?;
    let v = args.get(i + 1).cloned();
    args.drain(i..(i + 2).min(args.len()));
    v
}

/// One pass over `steps` steps: each step's wall and on-CPU time (microseconds); with
/// `repeat` > 0, per mask of `repeat` masks of the step timed together.
fn pass(steps: u32, repeat: u32) -> (Vec<f64>, Vec<f64>) {
    let mut times = Vec::with_capacity(steps as usize);
    let mut cpu = Vec::with_capacity(steps as usize);
    let per = f64::from(repeat.max(1));
    for _ in 0..steps {
        if repeat > 0 {
            prepare_repeat(repeat);
            mask_step();
        }
        let c = thread_cpu_ns();
        let a = Instant::now();
        if repeat > 0 {
            repeat_mask(repeat);
        } else {
            mask_step();
        }
        times.push(a.elapsed().as_secs_f64() * 1e6 / per);
        if let (Some(c0), Some(c1)) = (c, thread_cpu_ns()) {
            cpu.push((c1 - c0) as f64 / 1e3 / per);
        }
        commit_step();
    }
    (times, cpu)
}

fn r2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The command line: `INPUT exact|check [FILE_INDEX]` and the flags of the module doc.
struct Options {
    input: String,
    strategy: String,
    file: Option<u32>,
    passes: usize,
    dump: Option<String>,
    cold: bool,
    repeat: u32,
}

fn options() -> Options {
    let mut args: Vec<String> = std::env::args().collect();
    let passes: usize = take_flag(&mut args, "--passes").and_then(|s| s.parse().ok()).unwrap_or(1).max(1);
    let dump = take_flag(&mut args, "--dump");
    let cold = args.iter().position(|a| a == "--cold").map(|i| args.remove(i)).is_some();
    let repeat: u32 = take_flag(&mut args, "--repeat").and_then(|s| s.parse().ok()).unwrap_or(0);
    let Some(input) = args.get(1).cloned() else {
        eprintln!("usage: native INPUT exact|check [FILE_INDEX] [--passes N] [--dump FILE] [--cold] [--repeat K]");
        std::process::exit(2);
    };
    let strategy = args.get(2).map_or("exact", String::as_str).to_string();
    let file = args.get(3).and_then(|s| s.parse::<u32>().ok());
    Options { input, strategy, file, passes, dump, cold, repeat }
}

/// The grammar compiled, the input read into the harness and set up: the number of
/// steps, the setup's and the grammar's milliseconds. Exits on a bad input.
fn set_up(o: &Options) -> (u32, f64, f64) {
    let data = match std::fs::read(&o.input) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{}: {e}", o.input);
            std::process::exit(2);
        }
    };
    let t = Instant::now();
    compile_grammar();
    let grammar_ms = t.elapsed().as_secs_f64() * 1e3;
    let ptr = alloc(data.len());
    // SAFETY: `alloc` returned `data.len()` writable bytes.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), ptr, data.len()) };
    let t = Instant::now();
    let flags = (if o.strategy == "check" { CHECK } else { 0 }) | (if o.cold { COLD } else { 0 });
    let mut steps = setup(ptr, data.len(), flags);
    let setup_ms = t.elapsed().as_secs_f64() * 1e3;
    if steps == 0 {
        eprintln!("setup failed (bad input?)");
        std::process::exit(1);
    }
    if let Some(f) = o.file {
        steps = select_file(f);
    }
    (steps, setup_ms, grammar_ms)
}

/// Passes 2..: each pass's step times (pushed to `runs`) and its summary object.
fn more_passes(o: &Options, steps: u32, runs: &mut Vec<Vec<f64>>) -> Vec<String> {
    let mut more = Vec::new();
    for _ in 1..o.passes {
        if restart() != steps {
            eprintln!("restart failed (use --passes without FILE_INDEX)");
            std::process::exit(1);
        }
        let v = violations();
        let (t, mut c) = pass(steps, o.repeat);
        let mut s = t.clone();
        s.sort_by(f64::total_cmp);
        c.sort_by(f64::total_cmp);
        more.push(format!(
            "{{\"p50_us\":{},\"p99_us\":{},\"max_us\":{},\"cpu_p50_us\":{},\"cpu_max_us\":{},\"violations\":{}}}",
            r2(pct(&s, 50.0)),
            r2(pct(&s, 99.0)),
            r2(*s.last().unwrap_or(&0.0)),
            r2(if c.is_empty() { 0.0 } else { pct(&c, 50.0) }),
            r2(c.last().copied().unwrap_or(0.0)),
            violations() - v
        ));
        runs.push(t);
    }
    more
}

/// Writes every step's wall time per pass to `path` (a line a step, a column a pass).
fn dump_runs(path: &str, runs: &[Vec<f64>]) {
    let lines: Vec<String> =
        (0..runs[0].len()).map(|i| runs.iter().map(|r| format!("{}", r2(r[i]))).collect::<Vec<_>>().join("\t")).collect();
    if let Err(e) = std::fs::write(path, lines.join("\n") + "\n") {
        eprintln!("{path}: {e}");
        std::process::exit(2);
    }
}

/// The five slowest steps of the first pass, with their times in the last.
fn worst_steps(runs: &[Vec<f64>]) -> Vec<String> {
    let (times, last) = (&runs[0], &runs[runs.len() - 1]);
    let mut order: Vec<usize> = (0..times.len()).collect();
    order.sort_by(|&a, &b| times[b].total_cmp(&times[a]));
    order
        .iter()
        .take(5)
        .map(|&i| format!("{{\"step\":{i},\"us\":{},\"last_pass_us\":{}}}", r2(times[i]), r2(last[i])))
        .collect()
}

fn main() {
    let o = options();
    let (steps, setup_ms, grammar_ms) = set_up(&o);
    let v0 = violations();
    let (times, mut cpu) = pass(steps, o.repeat);
    let first_violations = violations() - v0;
    let mut runs = vec![times.clone()];
    let more = more_passes(&o, steps, &mut runs);
    if let Some(path) = &o.dump {
        dump_runs(path, &runs);
    }
    let worst = worst_steps(&runs);
    cpu.sort_by(f64::total_cmp);
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let (strategy, repeat) = (&o.strategy, o.repeat);
    println!(
        "{{\"bench\":\"mask\",\"runtime\":\"native\",\"strategy\":\"{strategy}\",\"tokens\":{},\"repeat\":{repeat},\"p50_us\":{},\"p99_us\":{},\"max_us\":{},\"mean_us\":{},\"setup_ms\":{},\"grammar_ms\":{},\"violations\":{},\"cpu_p50_us\":{},\"cpu_p99_us\":{},\"cpu_max_us\":{},\"mean_work\":[{},{},{}],\"allocs_per_step\":{},\"reused_share\":{},\"mask_digest\":\"{:016x}\",\"passes\":[{}],\"worst\":[{}],\"load_avg_1m\":{}}}",
        times.len(),
        r2(pct(&sorted, 50.0)),
        r2(pct(&sorted, 99.0)),
        r2(*sorted.last().unwrap_or(&0.0)),
        r2(times.iter().sum::<f64>() / times.len().max(1) as f64),
        r2(setup_ms),
        r2(grammar_ms),
        first_violations,
        r2(if cpu.is_empty() { 0.0 } else { pct(&cpu, 50.0) }),
        r2(if cpu.is_empty() { 0.0 } else { pct(&cpu, 99.0) }),
        r2(cpu.last().copied().unwrap_or(0.0)),
        work(0) / (times.len() * runs.len()).max(1) as u64,
        work(1) / (times.len() * runs.len()).max(1) as u64,
        work(2) / (times.len() * runs.len()).max(1) as u64,
        r2(allocs() as f64 / (times.len() * runs.len()).max(1) as f64),
        r2(work(4) as f64 / (times.len() * runs.len()).max(1) as f64),
        work(3),
        more.join(","),
        worst.join(","),
        load.split_whitespace().next().unwrap_or("-1"),
    );
}
