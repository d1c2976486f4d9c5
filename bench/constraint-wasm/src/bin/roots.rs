//! Dev: times the root summary of every lexer state class (first use), and the whole
//! set; `roots INPUT`.
use std::sync::Arc;
use std::time::Instant;

use espalier_constraint::TokTrie;

fn main() {
    let input = std::env::args().nth(1).expect("usage: roots INPUT");
    let b = std::fs::read(input).expect("read");
    let (vocab, _files) = espalier_constraint_wasm_bench::parse(&b).expect("a cut input");
    let lang = espalier_grammar::python().expect("grammar");
    let trie = Arc::new(TokTrie::new(&vocab));
    let t = Instant::now();
    let c0 = espalier_constraint::timing::thread_cpu_ns().unwrap_or(0);
    let starts = espalier_constraint::lexeme_starts::LexemeStarts::build(&trie, &lang.dfa).expect("starts");
    let cpu_ms = (espalier_constraint::timing::thread_cpu_ns().unwrap_or(0) - c0) as f64 / 1e6;
    println!("summaries: {cpu_ms:.1} ms CPU");
    println!(
        "nodes {} setup {:.1} ms, root summaries {}, memory {:.1} MB",
        trie.node_count(),
        t.elapsed().as_secs_f64() * 1e3,
        starts.roots_built(),
        starts.memory_bytes() as f64 / 1e6
    );
}
