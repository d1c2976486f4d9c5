//! Times the finishing mask at given byte offsets of a file, each on a fresh
//! constraint (the cost model's first visit of the context), then once more (memoised):
//! `cargo run --release -p espalier-constraint --example finishing_first_visit -- FILE
//! OFFSET... [--repeat N] [--shared]` (python, or go for a `.go` file; `--shared`: one
//! cost cache for all, as a kit shares it). A profiling aid for the
//! finishing mask's tail (`perf record` around it).

use espalier_constraint::{Constraint, CostCache, GrammarConstraint, MaskKit, Strategy, TokenSet};

mod common;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: finishing_first_visit FILE OFFSET... [--repeat N] [--shared]");
        std::process::exit(2);
    };
    let text = std::fs::read(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let mut repeat = 1;
    let mut shared = false;
    let mut offsets = Vec::new();
    let mut it = args[1..].iter();
    while let Some(a) = it.next() {
        if a == "--shared" {
            shared = true;
        } else if a == "--repeat" {
            repeat = it.next().and_then(|x| x.parse().ok()).unwrap_or(1);
        } else if let Ok(o) = a.parse::<usize>() {
            offsets.push(o.min(text.len()));
        }
    }
    let (_tok, vocab) = common::smollm2().unwrap_or_else(|e| panic!("{e}"));
    let go = path.ends_with(".go");
    let lang = if go {
        espalier_grammar::go().expect("go")
    } else {
        espalier_grammar::python().expect("python")
    };
    let kit = MaskKit::for_vocab(lang.clone(), &vocab);
    let t = std::time::Instant::now();
    lang.completion_costs();
    eprintln!("completion costs: {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let mut fin = TokenSet::empty(vocab.len());
    let cache = CostCache::new();
    for _ in 0..repeat {
        for &o in &offsets {
            let c = GrammarConstraint::new(
                &kit,
                Strategy::Exact,
                if go { "go-lr" } else { "python-lr" },
            );
            // Not shared: a cache of its own (every context costed from scratch).
            let mut c = c.with_cost_cache(if shared { cache.clone() } else { CostCache::new() });
            if c.commit(&text[..o]).is_err() {
                eprintln!("{o}: not a viable prefix");
                continue;
            }
            // The step's ordinary mask first, as a decoder computes it (and a new
            // constraint's first-mask costs fall there).
            c.fill_mask(&vocab, &mut fin);
            let mut ms = [0.0; 2];
            for m in &mut ms {
                let t = espalier_constraint::timing::thread_cpu_ns().unwrap_or(0);
                let f = c.finishing_mask(&vocab, &mut fin);
                *m = espalier_constraint::timing::thread_cpu_ns().unwrap_or(0).saturating_sub(t)
                    as f64
                    / 1e6;
                assert!(f.is_some());
            }
            println!(
                "{o}: first {:.2} ms, again {:.2} ms on CPU, mask {}",
                ms[0],
                ms[1],
                fin.count()
            );
        }
    }
}
