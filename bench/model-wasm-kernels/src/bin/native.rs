//! The same self-check and token timing natively (AVX2 where the CPU has it, else
//! portable), one thread: the native reference for run.mjs's wasm figures.
//! `cargo run --release --manifest-path bench/model-wasm-kernels/Cargo.toml --bin native [ROUNDS]`

use std::time::Instant;

use espalier_model_wasm_kernels::{kernel_check, token};

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(7);
    let c = kernel_check::run();
    println!(
        "{{\"kernel_check\":{{\"isa\":\"{}\",\"cases\":{},\"failures\":{},\"max_error\":{:e}}}}}",
        c.isa,
        c.cases,
        c.failures.len(),
        c.max_error
    );
    if !c.failures.is_empty() {
        eprintln!("kernel check FAILED: {:#?}", &c.failures[..c.failures.len().min(10)]);
        std::process::exit(1);
    }
    token::setup();
    let (mut best, mut portable, mut int8) = (Vec::new(), Vec::new(), Vec::new());
    // 0: best f32-activation kernels, 1: portable, 2: best integer kernels (8-bit
    // activations); the order rotates each round.
    for r in 0..rounds {
        for k in 0..3 {
            let p = (r + k) % 3;
            let (t, c) = (Instant::now(), cpu_ns());
            std::hint::black_box(if p == 2 { token::token_int8() } else { token::token(p as u32) });
            let wall = t.elapsed().as_secs_f64() * 1e3;
            // On-CPU time of this thread (the machine is shared; wall time is waiting).
            let ms = cpu_ns().map_or(wall, |end| (end - c.unwrap_or(end)) as f64 / 1e6);
            [&mut best, &mut portable, &mut int8][p].push(ms);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (b, p, i) = (median(&mut best), median(&mut portable), median(&mut int8));
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "{{\"runtime\":\"native\",\"isa\":\"{}\",\"rounds\":{rounds},\"best_cpu_median_ms\":{b:.1},\"portable_cpu_median_ms\":{p:.1},\"int8_cpu_median_ms\":{i:.1},\"speedup\":{:.2},\"int8_over_best\":{:.2},\"load_avg\":\"{}\"}}",
        c.isa,
        p / b,
        b / i,
        load.split(' ').take(3).collect::<Vec<_>>().join(" ")
    );
}

/// This thread's time on a CPU in nanoseconds (Linux `/proc/thread-self/schedstat`).
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split(' ').next()?.parse().ok()
}
