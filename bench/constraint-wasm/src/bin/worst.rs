//! Dev: the N slowest exact masks (CPU time) with the text around them;
//! `worst INPUT N [syncode]`.
use std::sync::Arc;

use espalier_constraint::timing::thread_cpu_ns;
use espalier_constraint::{Constraint, GrammarConstraint, MaskStore, Strategy, TokenSet};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let b = std::fs::read(&args[1]).expect("read");
    let n_worst: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let syncode = args.get(3).is_some_and(|s| s == "syncode");
    let (vocab, files) = espalier_constraint_wasm_bench::parse(&b).expect("a cut input");
    let lang = espalier_grammar::python().expect("grammar");
    let mut kit = espalier_constraint::MaskKit::for_vocab(lang.clone(), &vocab);
    if syncode {
        kit = kit.with_store(Arc::new(MaskStore::load_or_build(&lang, &vocab, std::path::Path::new("/tmp/mask-dev/store.bin")).expect("store")));
    }
    let mut steps = Vec::new();
    let mut mask = TokenSet::empty(vocab.len());
    for (f, ids) in files.iter().enumerate() {
        let mut c = GrammarConstraint::new(&kit, if syncode { Strategy::Syncode } else { Strategy::Exact }, "py");
        for (pos, &id) in ids.iter().enumerate() {
            let t0 = thread_cpu_ns().unwrap_or(0);
            c.fill_mask(&vocab, &mut mask);
            let t1 = thread_cpu_ns().unwrap_or(0);
            assert!(mask.contains(id as usize), "violation at file {f} pos {pos}");
            let (nodes, heavy) = c.last_walk_work();
            steps.push(((t1 - t0) as f64 / 1e3, f, pos, nodes, heavy, mask.count()));
            c.commit(vocab.bytes(id)).expect("commit");
        }
    }
    let mut cpu: Vec<f64> = steps.iter().map(|s| s.0).collect();
    cpu.sort_by(f64::total_cmp);
    println!("steps {} cpu p50 {:.1} p99 {:.1} max {:.1}", cpu.len(), cpu[cpu.len() / 2], cpu[cpu.len() * 99 / 100], cpu[cpu.len() - 1]);
    steps.sort_by(|a, b| b.0.total_cmp(&a.0));
    for &(us, f, pos, nodes, heavy, allowed) in steps.iter().take(n_worst) {
        let before: Vec<u8> = files[f][pos.saturating_sub(8)..pos].iter().flat_map(|&i| vocab.bytes(i).to_vec()).collect();
        let after: Vec<u8> = files[f][pos..(pos + 3).min(files[f].len())].iter().flat_map(|&i| vocab.bytes(i).to_vec()).collect();
        println!(
            "{us:7.1} us file {f} step {pos} nodes {nodes} heavy {heavy} allowed {allowed}: {:?} | {:?}",
            String::from_utf8_lossy(&before),
            String::from_utf8_lossy(&after)
        );
    }
}
