//! Compiles a grammar file and reports its table sizes (development helper).
//! `cargo run --release -p espalier-grammar --example grammar_check -- FILE [START]`
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let src = std::fs::read_to_string(&args[1]).expect("read grammar");
    let start = args.get(2).map(String::as_str).unwrap_or("start");
    let g = match espalier_grammar::Grammar::parse_with_start(&src, start) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    };
    println!(
        "{} terminals, {} nonterminals, {} productions",
        g.terminals.len(),
        g.nonterminals.len(),
        g.productions.len()
    );
    let t = std::time::Instant::now();
    match espalier_grammar::LexerDfa::build(&g) {
        Ok(d) => println!(
            "lexer DFA: {} states, {} byte classes, {:?}",
            d.num_states(),
            d.num_classes(),
            t.elapsed()
        ),
        Err(e) => println!("lexer: {e}"),
    }
    for kind in [
        espalier_grammar::TableKind::Lalr1,
        espalier_grammar::TableKind::Pager,
        espalier_grammar::TableKind::Lr1,
    ] {
        if kind == espalier_grammar::TableKind::Lr1 && args.iter().any(|a| a == "--no-lr1") {
            continue;
        }
        match espalier_grammar::LrTable::build(&g, kind) {
            Ok(t) => println!(
                "{:?}: {} states, {} actions, {} gotos, {:?}",
                kind, t.stats.states, t.stats.actions, t.stats.gotos, t.stats.build_time
            ),
            Err(e) => println!("{kind:?}: {e}"),
        }
    }
}
