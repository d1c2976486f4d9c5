//! The native counterpart of `run.mjs`: the same harness functions, the same input
//! file, timed with `Instant`, so wasm and native figures come from identical work.
//!
//! ```text
//! cargo run --release --manifest-path crates/constraint/wasm-bench/Cargo.toml \
//!     --bin native -- INPUT exact|check [FILE_INDEX]
//! ```
//! With `FILE_INDEX`, only that file of the input is timed (quick iterations).

use std::time::Instant;

use espalier_constraint::timing::{percentile as pct, thread_cpu_ns};
use espalier_constraint_wasm_bench::{alloc, commit_step, compile_grammar, mask_step, select_file, setup, violations, work};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(input) = args.get(1) else {
        eprintln!("usage: native INPUT exact|check [FILE_INDEX]");
        std::process::exit(2);
    };
    let strategy = args.get(2).map_or("exact", String::as_str);
    let data = match std::fs::read(input) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{input}: {e}");
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
    let mut steps = setup(ptr, data.len(), u32::from(strategy == "check"));
    let setup_ms = t.elapsed().as_secs_f64() * 1e3;
    if steps == 0 {
        eprintln!("setup failed (bad input?)");
        std::process::exit(1);
    }
    if let Some(f) = args.get(3).and_then(|s| s.parse::<u32>().ok()) {
        steps = select_file(f);
    }
    let mut times = Vec::with_capacity(steps as usize);
    let mut cpu = Vec::with_capacity(steps as usize);
    for _ in 0..steps {
        let c = thread_cpu_ns();
        let a = Instant::now();
        mask_step();
        times.push(a.elapsed().as_secs_f64() * 1e6);
        if let (Some(c0), Some(c1)) = (c, thread_cpu_ns()) {
            cpu.push((c1 - c0) as f64 / 1e3);
        }
        commit_step();
    }
    cpu.sort_by(f64::total_cmp);
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let r2 = |x: f64| (x * 100.0).round() / 100.0;
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "{{\"bench\":\"mask\",\"runtime\":\"native\",\"strategy\":\"{strategy}\",\"tokens\":{},\"p50_us\":{},\"p99_us\":{},\"max_us\":{},\"mean_us\":{},\"setup_ms\":{},\"grammar_ms\":{},\"violations\":{},\"cpu_p50_us\":{},\"cpu_p99_us\":{},\"cpu_max_us\":{},\"mean_work\":[{},{},{}],\"load_avg_1m\":{}}}",
        times.len(),
        r2(pct(&sorted, 50.0)),
        r2(pct(&sorted, 99.0)),
        r2(*sorted.last().unwrap_or(&0.0)),
        r2(times.iter().sum::<f64>() / times.len().max(1) as f64),
        r2(setup_ms),
        r2(grammar_ms),
        violations(),
        r2(if cpu.is_empty() { 0.0 } else { pct(&cpu, 50.0) }),
        r2(if cpu.is_empty() { 0.0 } else { pct(&cpu, 99.0) }),
        r2(cpu.last().copied().unwrap_or(0.0)),
        work(0) / times.len().max(1) as u64,
        work(1) / times.len().max(1) as u64,
        work(2) / times.len().max(1) as u64,
        load.split_whitespace().next().unwrap_or("-1"),
    );
}
