//! Benchmark: Python table build times and parse speed (lexemes per second) of the LR
//! and Earley recognizers over the CPython standard library.
//!
//! `cargo run --release -p espalier-grammar --example parse_bench [-- MAX_FILES [EARLEY_FILES]]`
//! (defaults: every file for LR, the first 300 files for Earley, which is ~50x slower).

use std::time::Instant;

use espalier_grammar::{python_with, Grammar, LexerDfa, LrTable, TableKind, PYTHON_GRAMMAR};

fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "py") {
            out.push(p);
        }
    }
}

fn main() {
    let max: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(usize::MAX);
    let earley_max: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(300);
    let t = Instant::now();
    let g = Grammar::parse_with_start(PYTHON_GRAMMAR, "file_input").unwrap();
    println!(
        "grammar: {} terminals, {} nonterminals, {} productions, read+expanded in {:?}",
        g.terminals.len(),
        g.nonterminals.len(),
        g.productions.len(),
        t.elapsed()
    );
    let t = Instant::now();
    let dfa = LexerDfa::build(&g).unwrap();
    println!(
        "lexer DFA: {} states, {} byte classes, built in {:?}",
        dfa.num_states(),
        dfa.num_classes(),
        t.elapsed()
    );
    for kind in [TableKind::Lr1, TableKind::Pager, TableKind::Lalr1] {
        let t = Instant::now();
        match LrTable::build(&g, kind) {
            Ok(tab) => println!(
                "{kind:?}: {} states, {} actions, {} gotos, built in {:?}",
                tab.stats.states,
                tab.stats.actions,
                tab.stats.gotos,
                t.elapsed()
            ),
            Err(e) => println!("{kind:?}: not buildable, {e} ({:?})", t.elapsed()),
        }
    }
    let mut paths = Vec::new();
    files(std::path::Path::new("/usr/lib/python3.11"), &mut paths);
    paths.sort();
    paths.truncate(max);
    let texts: Vec<Vec<u8>> = paths.iter().filter_map(|p| std::fs::read(p).ok()).collect();
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    println!("corpus: {} files, {:.1} MB", texts.len(), bytes as f64 / 1e6);
    for kind in [TableKind::Lr1, TableKind::Pager] {
        let py = python_with(kind).unwrap();
        let t = Instant::now();
        let (mut lexemes, mut ok) = (0usize, 0usize);
        for text in &texts {
            let mut r = py.recognizer();
            let res = r.push_bytes(text).and_then(|_| r.finish());
            lexemes += r.num_lexemes();
            ok += res.is_ok() as usize;
        }
        let s = t.elapsed().as_secs_f64();
        println!("LR ({kind:?} table): {ok} accepted, {lexemes} lexemes in {s:.2} s: {:.2} M lexemes/s, {:.1} MB/s", lexemes as f64 / s / 1e6, bytes as f64 / s / 1e6);
    }
    let py = python_with(TableKind::Lr1).unwrap();
    let t = Instant::now();
    let (mut lexemes, mut ok) = (0usize, 0usize);
    let earley_texts = &texts[..earley_max.min(texts.len())];
    let bytes: usize = earley_texts.iter().map(|t| t.len()).sum();
    for text in earley_texts {
        let mut r = py.earley_recognizer();
        let res = r.push_bytes(text).and_then(|_| r.finish());
        lexemes += r.num_lexemes();
        ok += res.is_ok() as usize;
    }
    let s = t.elapsed().as_secs_f64();
    println!("Earley ({} files): {ok} accepted, {lexemes} lexemes in {s:.2} s: {:.3} M lexemes/s, {:.2} MB/s", earley_texts.len(), lexemes as f64 / s / 1e6, bytes as f64 / s / 1e6);
}
