//! Checks Go files with the LR recognizer and prints `ok|err PATH [error]`
//! (development helper; compare with `gofmt -e -l`).
//! `cargo run --release -p espalier-grammar --example gocheck -- FILES...`
//! (`-` reads the file names from stdin, one per line).
fn main() {
    let go = espalier_grammar::go().expect("go grammar");
    let mut paths: Vec<String> = std::env::args().skip(1).collect();
    if paths == ["-"] {
        paths = std::io::read_to_string(std::io::stdin())
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect();
    }
    for path in paths {
        let Ok(bytes) = std::fs::read(&path) else {
            println!("unreadable {path}");
            continue;
        };
        let mut r = go.recognizer();
        match r.push_bytes(&bytes).and_then(|_| r.finish()) {
            Ok(()) => println!("ok {path}"),
            Err(e) => {
                let line =
                    bytes[..e.offset.min(bytes.len())].iter().filter(|&&b| b == b'\n').count() + 1;
                println!(
                    "err {path} line {line}: {} (expected {})",
                    e.message,
                    e.expected.join(" ")
                )
            }
        }
    }
}
