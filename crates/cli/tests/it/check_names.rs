//! `espalier check --lang python --names FILE...`: the contract (one line per refused
//! name, exit status 0 when every file passes, 1 otherwise; Python only).

use std::process::Command;

use espalier_testkit::ScratchDir;

fn espalier(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_espalier")).args(args).output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

#[test]
fn names_are_checked_one_line_per_refusal() {
    let dir = ScratchDir::new(
        "check-names",
        &[
            ("good.py", "def f(a):\n    return g(a)\n\ndef g(b):\n    return len(b)\n"),
            ("bad.py", "x = 1\ndef f():\n    print(x)\n    x = 2\n    return y\n"),
        ],
    );
    let (good, bad) = (dir.path("good.py"), dir.path("bad.py"));
    let (g, b) = (good.to_str().unwrap(), bad.to_str().unwrap());

    let (code, out, err) = espalier(&["check", "--lang", "python", "--names", g]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");

    let (code, out, err) = espalier(&["check", "--lang", "python", "--names", g, b]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        out,
        format!(
            "{b}:3:11: local variable 'x' defined in enclosing scope on line 1 referenced before \
             assignment\n{b}:5:12: undefined name 'y'\n"
        )
    );
    // The grammar check passes the same file: only --names reads names.
    let (code, _, err) = espalier(&["check", "--lang", "python", b]);
    assert_eq!(code, 0, "{err}");

    let (code, _, err) = espalier(&["check", "--lang", "go", "--names", g]);
    assert_ne!(code, 0);
    assert!(err.contains("--names checks Python only"), "{err}");
}
