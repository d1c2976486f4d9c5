//! Measures how the checker's time grows with the script (a benchmark, not a test):
//! two generated families of valid talents, checked with [`espalier_slua::check`] at
//! sizes 100 ... 3,200, printing the time per kilobyte at each size. Linear checking
//! keeps the time per kilobyte flat from the smallest to the largest size.
//!
//! - `locals`: a `Do` hook whose body is N statements `local aK: number = K;` (N
//!   names in scope at the end);
//! - `nested`: N statements `if true then` nested N deep, closed by N `end;`.
//!
//! Usage: `cargo run --release -p espalier-slua --example check_speed [-- SIZES...]`
//! (default sizes 100 200 400 800 1600 3200). Each script is first checked once with
//! a fresh environment (`cold`: its segment DFAs are compiled during the check), then
//! at least three times and for at least 0.2 s with one environment kept (`warm`, as
//! a server checking many scripts would); the fastest warm on-CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`) is reported beside the wall-clock time of that run,
//! and the time per kilobyte is the warm on-CPU one. The last line is one JSON object
//! with every figure and, per family, the ratio of the largest to the smallest time
//! per kilobyte. Scripts are checked without [`Limits`] (3,200 locals pass the game's
//! 64 KiB); the time [`check`] takes to refuse the largest ones under the game's
//! limits is printed too.

use std::rc::Rc;
use std::time::Instant;

use espalier_constraint::timing::thread_cpu_ns;
use espalier_slua::{check, check_limited, Api, Env, Limits};

const HEAD: &str = "talent T;\nhook Do = function(user, target)\n";
const TAIL: &str = "end;\nhook GetDescription = function(user)\n  return \"t\";\nend;\n";

/// `n` locals in the `Do` hook.
fn locals(n: usize) -> String {
    let mut s = String::from(HEAD);
    for k in 0..n {
        s.push_str(&format!("  local a{k}: number = {k};\n"));
    }
    s.push_str(TAIL);
    s
}

/// `if true then` nested `n` deep in the `Do` hook.
fn nested(n: usize) -> String {
    let mut s = String::from(HEAD);
    for k in 0..n {
        s.push_str(&" ".repeat(2 + (k % 16)));
        s.push_str("if true then\n");
    }
    for k in (0..n).rev() {
        s.push_str(&" ".repeat(2 + (k % 16)));
        s.push_str("end;\n");
    }
    s.push_str(TAIL);
    s
}

/// (on-CPU, wall) seconds of checking `src` once over `env`.
fn time_once(env: &Rc<Env>, src: &str) -> Result<(f64, f64), String> {
    let c0 = thread_cpu_ns();
    let t0 = Instant::now();
    check_limited(env.clone(), src, Limits::NONE).map_err(|e| format!("rejected at {e}"))?;
    let wall = t0.elapsed().as_secs_f64();
    let cpu = match (c0, thread_cpu_ns()) {
        (Some(a), Some(b)) => b.saturating_sub(a) as f64 / 1e9,
        _ => wall,
    };
    Ok((cpu, wall))
}

/// Cold on-CPU seconds (fresh environment), and the fastest warm (on-CPU, wall).
fn time_check(src: &str) -> Result<(f64, f64, f64), String> {
    let env = Rc::new(Env::new(Api::dungeon(), vec![]));
    let (cold, _) = time_once(&env, src)?;
    let (mut best_cpu, mut best_wall) = (f64::INFINITY, f64::INFINITY);
    let begin = Instant::now();
    let mut runs = 0;
    while runs < 3 || begin.elapsed().as_secs_f64() < 0.2 {
        let (cpu, wall) = time_once(&env, src)?;
        if cpu < best_cpu {
            best_cpu = cpu;
            best_wall = wall;
        }
        runs += 1;
    }
    Ok((cold, best_cpu, best_wall))
}

/// A family of generated scripts: its name and its generator (by size).
type Family = (&'static str, fn(usize) -> String);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sizes: Vec<usize> = match std::env::args()
        .skip(1)
        .map(|a| a.parse::<usize>())
        .collect::<Result<Vec<_>, _>>()?
    {
        s if s.is_empty() => vec![100, 200, 400, 800, 1600, 3200],
        s => s,
    };
    let families: [Family; 2] = [("locals", locals), ("nested", nested)];
    let mut json = serde_json::Map::new();
    for (family, make) in families {
        let mut rows = Vec::new();
        let mut per_kb = Vec::new();
        for &n in &sizes {
            let src = make(n);
            let (cold, cpu, wall) = time_check(&src).map_err(|e| format!("{family} {n}: {e}"))?;
            let kb = src.len() as f64 / 1024.0;
            println!(
                "{family:>6} n={n:>5}: {:>7.1} kB, cold cpu {:>8.2} ms, warm cpu {:>8.2} ms (wall {:>8.2} ms), {:>7.3} ms/kB (warm cpu)",
                kb,
                cold * 1e3,
                cpu * 1e3,
                wall * 1e3,
                cpu * 1e3 / kb
            );
            per_kb.push(cpu * 1e3 / kb);
            rows.push(serde_json::json!({
                "n": n, "bytes": src.len(), "cold_cpu_ms": round3(cold * 1e3), "cpu_ms": round3(cpu * 1e3), "wall_ms": round3(wall * 1e3),
                "cpu_ms_per_kb": round3(cpu * 1e3 / kb),
            }));
        }
        let biggest = make(*sizes.iter().max().unwrap_or(&100));
        let t0 = Instant::now();
        let refused = check(Rc::new(Env::new(Api::dungeon(), vec![])), &biggest).err();
        let refusal_ms = t0.elapsed().as_secs_f64() * 1e3;
        match &refused {
            Some(e) => println!("{family:>6}: the largest refused under the game's limits in {refusal_ms:.2} ms: {e}"),
            None => println!("{family:>6}: the largest is within the game's limits"),
        }
        let lo = per_kb.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = per_kb.iter().copied().fold(0.0, f64::max);
        let spread = hi / lo;
        println!("{family:>6}: time per kB from {lo:.3} to {hi:.3} ms (max/min {spread:.2})");
        json.insert(
            family.into(),
            serde_json::json!({ "sizes": rows, "per_kb_max_over_min": round3(spread), "largest_refused_ms": refused.is_some().then_some(round3(refusal_ms)) }),
        );
    }
    println!("{}", serde_json::Value::Object(json));
    Ok(())
}

fn round3(x: f64) -> f64 {
    (x * 1e3).round() / 1e3
}
