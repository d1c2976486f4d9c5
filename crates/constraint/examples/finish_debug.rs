use espalier_constraint::{Constraint, GrammarConstraint, MaskKit, Strategy, TokenSet};

mod common;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = if args[1] == "-f" {
        let t = std::fs::read(&args[2]).unwrap();
        t[..args[3].parse::<usize>().unwrap()].to_vec()
    } else {
        args[1].replace("\\n", "\n").into_bytes()
    };
    let (_tok, vocab) = common::smollm2().unwrap();
    let kit = MaskKit::for_vocab(espalier_grammar::python().unwrap(), &vocab);
    let mut c = GrammarConstraint::new(&kit, Strategy::Exact, "python-lr");
    c.commit(&text).unwrap();
    let mut fin = TokenSet::empty(vocab.len());
    for _ in 0..30 {
        let t = std::time::Instant::now();
        let o = c.finishing_mask(&vocab, &mut fin).unwrap();
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let shown: Vec<String> = fin
            .iter()
            .take(12)
            .map(|i| format!("{:?}", String::from_utf8_lossy(vocab.bytes(i as u32))))
            .collect();
        println!(
            "cost {:?} steered {} mask {} ({ms:.1} ms): {}",
            o.cost,
            o.steered,
            fin.count(),
            shown.join(" ")
        );
        if fin.contains(vocab.eos() as usize) {
            break;
        }
        let id = fin.iter().next().unwrap() as u32;
        c.commit(vocab.bytes(id)).unwrap();
    }
    println!("{:?}", String::from_utf8_lossy(c.text()));
}
