//! Random constrained walks: sample uniformly among the `exact` mask's tokens for a
//! while, then finish by preferring short "closing" tokens (brackets, quotes,
//! newlines, `0`, `pass`, indentation) and any token that makes the program complete,
//! stopping at EOS. Every program that reached EOS must be accepted by CPython's
//! `ast.parse` (/usr/bin/python3.11): 100%.
//!
//! CI runs 24 walks; `ESPALIER_SLOW=1` runs 200.

use crate::common;

use std::process::Command;

use espalier_constraint::{Constraint, Strategy, TokenSet};

const PYTHON: &str = "/usr/bin/python3.11";

#[test]
fn walks_that_reach_eos_are_valid_python() {
    let (_tok, vocab, trie) = common::smollm2();
    let kit = common::PYTHON.kit(&trie);
    let closers: Vec<u32> = [
        "\n", ")", "]", "}", ":", "0", " 0", "\"", "'", "\"\"\"", "'''", "pass", " pass", "    ",
        " ", ",", "x", " x", "):", "()", "\n\n", "#", "1",
    ]
    .iter()
    .filter_map(|s| {
        (0..vocab.len() as u32).find(|&id| vocab.bytes(id) == s.as_bytes() && !vocab.is_special(id))
    })
    .collect();
    let walks = if common::slow() { 200 } else { 24 };
    let mut rng = common::Rng(0xA11CE);
    let mut mask = TokenSet::empty(vocab.len());
    let mut programs: Vec<Vec<u8>> = Vec::new();
    let mut unfinished = 0;
    for walk in 0..walks {
        let mut c = common::PYTHON.constraint(&kit, Strategy::Exact, None);
        let free_steps = 10 + rng.below(60);
        let mut reached_eos = false;
        for step in 0..free_steps + 300 {
            c.fill_mask(&vocab, &mut mask);
            let eos = vocab.eos() as usize;
            assert!(
                !mask.is_empty() || c.is_complete(),
                "walk {walk}: dead end after {:?}",
                String::from_utf8_lossy(c.text())
            );
            let next = if step < free_steps {
                let members: Vec<usize> = mask.iter().filter(|&t| t != eos).collect();
                if members.is_empty() {
                    None
                } else {
                    Some(members[rng.below(members.len())])
                }
            } else {
                if mask.contains(eos) {
                    reached_eos = true;
                    break;
                }
                let allowed: Vec<u32> =
                    closers.iter().copied().filter(|&t| mask.contains(t as usize)).collect();
                let completing = allowed.iter().copied().find(|&t| {
                    let mut d = c.clone();
                    d.commit(vocab.bytes(t)).is_ok() && d.is_complete()
                });
                match completing {
                    Some(t) => Some(t as usize),
                    None if !allowed.is_empty() => Some(allowed[rng.below(allowed.len())] as usize),
                    None => {
                        let short: Vec<usize> = mask
                            .iter()
                            .filter(|&t| t != eos && vocab.bytes(t as u32).len() <= 2)
                            .collect();
                        (!short.is_empty()).then(|| short[rng.below(short.len())])
                    }
                }
            };
            let Some(t) = next else {
                reached_eos = c.is_complete();
                break;
            };
            c.commit(vocab.bytes(t as u32)).expect("a masked token commits");
        }
        if reached_eos {
            programs.push(c.text().to_vec());
        } else {
            unfinished += 1;
        }
    }
    for p in programs.iter().take(3) {
        eprintln!("--- sample program ---\n{}", String::from_utf8_lossy(&p[..p.len().min(400)]));
    }
    let dir = std::env::temp_dir().join(format!("espalier-walks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, p) in programs.iter().enumerate() {
        std::fs::write(dir.join(format!("{i:04}.py")), p).unwrap();
    }
    let out = Command::new(PYTHON)
        .arg("-c")
        .arg(
            "import ast,sys,glob\nbad=0\nfor f in sorted(glob.glob(sys.argv[1]+'/*.py')):\n    try:\n        ast.parse(open(f,'rb').read())\n    except Exception as e:\n        bad+=1; print('REJECTED', f, repr(e))\nprint('bad', bad)",
        )
        .arg(&dir)
        .output()
        .unwrap_or_else(|e| panic!("{PYTHON}: {e}"));
    let report = String::from_utf8_lossy(&out.stdout).to_string();
    eprintln!(
        "random walks: {walks} walks, {} reached EOS, {unfinished} unfinished; python: {}",
        programs.len(),
        report.lines().last().unwrap_or("")
    );
    assert!(out.status.success(), "python failed: {}", String::from_utf8_lossy(&out.stderr));
    assert!(programs.len() * 2 >= walks, "too few walks reached EOS: {}", programs.len());
    assert!(
        report.trim_end().ends_with("bad 0"),
        "CPython rejects generated programs ({}):\n{report}",
        dir.display()
    );
    std::fs::remove_dir_all(&dir).ok();
}
