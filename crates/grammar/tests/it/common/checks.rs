//! The corpus checks every grammar language gets (run for each language by the suites
//! `corpus` and `mutants`): the prefix property on real code, Earley against LR, and the
//! mutants of corpus files. Every message starts with the language's name.

use std::path::PathBuf;

use std::sync::Arc;

use espalier_grammar::{lex, Language, ParseError, TerminalId};

use super::{slow, Rng};

/// The LR recognizer's verdict on a whole text (the error's offset when refused).
pub fn lr_verdict(lang: &Arc<Language>, text: &[u8]) -> Result<(), ParseError> {
    let mut r = lang.recognizer();
    r.push_bytes(text).and_then(|_| r.finish())
}

/// Every prefix of a valid file is viable: checked byte by byte (which covers every
/// lexeme boundary, where the layers act: Python's indentation, Go's semicolons), and at
/// four random offsets per file by resuming the rest of the file from a clone of the
/// recognizer taken there. Files the grammar refuses are passed over (the corpus suites
/// cover verdicts); at least 50 files must be checked unless `ESPALIER_SLOW=1`.
pub fn prefix_property(name: &str, lang: &Arc<Language>, files: &[PathBuf], seed: u64) {
    let mut rng = Rng(seed);
    let (mut boundaries, mut resumed, mut checked) = (0usize, 0usize, 0usize);
    for f in files {
        let text = std::fs::read(f).unwrap();
        if lr_verdict(lang, &text).is_err() {
            continue; // the corpus test covers verdicts
        }
        checked += 1;
        let cuts: Vec<usize> = (0..4).map(|_| rng.below(text.len() + 1)).collect();
        let mut r = lang.recognizer();
        let mut lexemes = 0;
        for (i, &b) in text.iter().enumerate() {
            if cuts.contains(&i) {
                let mut c = r.clone();
                c.push_bytes(&text[i..]).unwrap_or_else(|e| {
                    panic!("{name} {}: resuming at byte {i} failed: {e}", f.display())
                });
                assert!(
                    c.is_complete(),
                    "{name} {}: resumed at byte {i}, not complete",
                    f.display()
                );
                resumed += 1;
            }
            r.push_byte(b).unwrap_or_else(|e| {
                panic!("{name} {}: prefix of {} bytes reported dead: {e}", f.display(), i + 1)
            });
            if r.num_lexemes() != lexemes {
                lexemes = r.num_lexemes();
                boundaries += 1;
                assert!(
                    !r.acceptable_terminals().is_empty(),
                    "{name} {}: nothing acceptable at byte {}",
                    f.display(),
                    i + 1
                );
            }
        }
        assert!(r.is_complete(), "{name} {}: not complete at the end", f.display());
    }
    eprintln!(
        "{name} prefix property: {checked} files, {boundaries} lexeme boundaries, {resumed} \
         resumptions from clones"
    );
    assert!(checked >= 50 || slow(), "{name}: only {checked} files checked");
}

/// The Earley recognizer behind the same lexer and layer agrees with LR (verdict and
/// error offset) on each file and on the file cut at a random offset, valid or not (the
/// fill-in-the-middle quotients run on Earley). Returns the number of texts compared.
pub fn earley_agrees_with_lr(
    name: &str,
    lang: &Arc<Language>,
    files: &[PathBuf],
    seed: u64,
) -> usize {
    let mut rng = Rng(seed);
    let verdict = |r: Result<(), ParseError>| r.map_err(|e| e.offset);
    let mut n = 0;
    for f in files {
        let text = std::fs::read(f).unwrap();
        let cut = rng.below(text.len() + 1);
        for t in [&text[..], &text[..cut]] {
            let lr = verdict(lr_verdict(lang, t));
            let mut e = lang.earley_recognizer();
            let ea = verdict(e.push_bytes(t).and_then(|_| e.finish()));
            assert_eq!(
                lr,
                ea,
                "{name} {} (first {} bytes): LR {lr:?} vs Earley {ea:?}",
                f.display(),
                t.len()
            );
            n += 1;
        }
    }
    eprintln!("{name}: LR and Earley agree on {n} texts (files and truncated files)");
    n
}

/// How a mutant differs from its corpus file.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Delete,
    Duplicate,
    Swap,
}

/// A corpus file with one random lexeme deleted, duplicated, or swapped with its
/// neighbour.
pub struct Mutant {
    pub text: Vec<u8>,
    pub kind: Kind,
    /// `FILE:LINE` of the mutated lexeme.
    pub whereabouts: String,
    /// The mutated lexeme's text.
    pub piece: String,
}

/// The mutants of a run: `ESPALIER_MUTANTS` of them (default 1000) under
/// `ESPALIER_MUTANT_SEED` (default `default_seed`), from `files` (those with 200 to
/// 40,000 bytes), the lexemes of the `skip` terminals (white space, comments) never
/// chosen.
pub fn mutants(
    lang: &Arc<Language>,
    files: &[PathBuf],
    skip: &[&str],
    default_seed: u64,
) -> Vec<Mutant> {
    let files: Vec<&PathBuf> = files
        .iter()
        .filter(|f| std::fs::metadata(f).is_ok_and(|m| m.len() > 200 && m.len() < 40_000))
        .collect();
    let seed: u64 = std::env::var("ESPALIER_MUTANT_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default_seed);
    // ESPALIER_MUTANTS=N runs N mutants instead of 1000 (for reports).
    let count: usize =
        std::env::var("ESPALIER_MUTANTS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    let mut rng = Rng(seed);
    let skip: Vec<TerminalId> = skip.iter().filter_map(|n| lang.grammar.terminal(n)).collect();
    let mut mutants = Vec::new();
    while mutants.len() < count {
        let f = files[rng.below(files.len())];
        let text = std::fs::read(f).unwrap();
        let Ok(lexemes) = lex(&lang.dfa, &text) else { continue };
        let real: Vec<_> = lexemes.iter().filter(|l| !skip.contains(&l.terminals[0])).collect();
        if real.len() < 3 {
            continue;
        }
        let k = rng.below(real.len() - 1);
        let (a, b) = (real[k], real[k + 1]);
        let kind = [Kind::Delete, Kind::Duplicate, Kind::Swap][rng.below(3)];
        let mut m = Vec::with_capacity(text.len() + 64);
        match kind {
            Kind::Delete => {
                m.extend_from_slice(&text[..a.start]);
                m.extend_from_slice(&text[a.end..]);
            }
            Kind::Duplicate => {
                m.extend_from_slice(&text[..a.end]);
                m.push(b' ');
                m.extend_from_slice(&text[a.start..]);
            }
            Kind::Swap => {
                m.extend_from_slice(&text[..a.start]);
                m.extend_from_slice(&text[b.start..b.end]);
                m.extend_from_slice(&text[a.end..b.start]);
                m.extend_from_slice(&text[a.start..a.end]);
                m.extend_from_slice(&text[b.end..]);
            }
        }
        let line = text[..a.start].iter().filter(|&&c| c == b'\n').count() + 1;
        mutants.push(Mutant {
            text: m,
            kind,
            whereabouts: format!("{}:{line}", f.display()),
            piece: String::from_utf8_lossy(&text[a.start..a.end]).into_owned(),
        });
    }
    mutants
}
