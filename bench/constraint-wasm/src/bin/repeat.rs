//! Dev: one step's mask repeated, for profiling it (`perf record`; in node the
//! harness's `repeat_mask`); `repeat INPUT STEP N` prints wall and CPU per mask.
use std::time::Instant;
use espalier_constraint_wasm_bench::{alloc, commit_step, mask_step, repeat_mask, setup};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let usage = || -> ! {
        eprintln!("usage: repeat INPUT STEP N   (INPUT: `espalier bench mask --export` steps; STEP, N: whole numbers)");
        std::process::exit(2)
    };
    let (Some(path), Some(step), Some(n)) = (a.get(1), a.get(2).and_then(|s| s.parse::<u32>().ok()), a.get(3).and_then(|s| s.parse::<u32>().ok())) else { usage() };
    let data = std::fs::read(path).unwrap_or_else(|e| {
        eprintln!("repeat: cannot read {path}: {e}");
        std::process::exit(2)
    });
    let ptr = alloc(data.len());
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), ptr, data.len()) };
    setup(ptr, data.len(), 0);
    for _ in 0..step { mask_step(); commit_step(); }
    repeat_mask(2000);
    let t = Instant::now();
    let c0 = espalier_constraint::timing::thread_cpu_ns().unwrap_or(0);
    let c = repeat_mask(n);
    let cpu = espalier_constraint::timing::thread_cpu_ns().unwrap_or(0) - c0;
    println!("native step {step}: {:.2} us wall, {:.2} us CPU per mask ({c})", t.elapsed().as_secs_f64() * 1e6 / n as f64, cpu as f64 / 1e3 / n as f64);
}
