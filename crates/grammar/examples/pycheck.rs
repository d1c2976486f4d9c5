//! Checks Python files with the LR recognizer and prints `ok|err PATH [error]`
//! (development helper; the user-facing command is `espalier check`).
//! `cargo run --release -p espalier-grammar --example pycheck -- FILES...`
fn main() {
    let py = espalier_grammar::python().expect("python grammar");
    for path in std::env::args().skip(1) {
        let Ok(bytes) = std::fs::read(&path) else {
            println!("unreadable {path}");
            continue;
        };
        let mut r = py.recognizer();
        let res = r.push_bytes(&bytes).and_then(|_| r.finish());
        match res {
            Ok(()) => println!("ok {path}"),
            Err(e) => {
                let line =
                    bytes[..e.offset.min(bytes.len())].iter().filter(|&&b| b == b'\n').count() + 1;
                println!("err {path} line {line}: {}", e.message)
            }
        }
    }
}
