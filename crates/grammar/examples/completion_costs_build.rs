//! Times the one-time compile of the Python language (LR(1) tables, lexer, and the
//! completion costs it now builds eagerly: lexeme paths, per-symbol Pareto costs) and a
//! stack cost: `cargo run --release -p espalier-grammar --example completion_costs_build`.
fn main() {
    let t = std::time::Instant::now();
    let py = espalier_grammar::python_with(espalier_grammar::TableKind::Lr1).unwrap();
    let build = t.elapsed();
    let c = py.completion_costs();
    let mut r = py.recognizer();
    r.push_bytes(b"def f(x):\n    if x:\n        return [g(y, (1 +").unwrap();
    r.end_lexeme();
    let stack = espalier_grammar::TokenParser::lr_stacks(r.parser()).unwrap()[0].clone();
    let cols = r.indentation().unwrap().cols.to_vec();
    let t = std::time::Instant::now();
    let n = 200;
    let mut cost = None;
    for _ in 0..n {
        cost = c.stack_cost(&stack, &cols, false);
    }
    let per = t.elapsed() / n;
    println!(
        "{{\"compile_ms\": {:.1}, \"stack_cost_us\": {:.1}, \"cost\": {:?}, \"stack_depth\": {}}}",
        build.as_secs_f64() * 1e3,
        per.as_secs_f64() * 1e6,
        cost,
        stack.len()
    );
}
