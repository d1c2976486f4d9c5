//! The random walker: repeatedly samples a string from the tree's next segment and
//! feeds it, until the script finishes. It is how the fuzz tests check the guarantee
//! (every walk type-checks, translates and runs) and that the tree never dead-ends.
//!
//! The random numbers come from espalier-constraint's 64-bit SplitMix generator
//! ([`Rng`], ten lines, shared with that crate's randomized suites) rather than a
//! crate: the walker must be reproducible from a seed on every target, the browser
//! included, with no entropy source.

use std::rc::Rc;

use crate::alt::Alt;
use crate::byte_set::is_ws;
use crate::dfa::A1Checks;
use crate::finishing_order::choice_cost;
use crate::lexeme::Lex;
use crate::scope::Env;
use crate::tree::{Segment, Tree};

/// The walker's seeded generator (SplitMix64), kept at this path for its users.
pub use espalier_constraint::Rng;

/// How a walk ended.
#[derive(Debug, Clone)]
pub struct Walk {
    /// The script text.
    pub text: String,
    /// Whether the script finished.
    pub finished: bool,
    /// Whether some point offered no continuation (a bug).
    pub dead_end: bool,
    /// Number of segments fed.
    pub segments: usize,
    /// A1 failures seen (when checking was asked for).
    pub a1_failures: Vec<String>,
}

/// Walker settings.
#[derive(Clone, Debug)]
pub struct WalkConfig {
    /// After about this many segments the walker steers towards the end.
    pub soft_len: usize,
    /// Hard cap on segments.
    pub max_segments: usize,
    /// Check A1 on every regex met (slower), keeping the answers here (share one
    /// across walks: the same regexes recur).
    pub check_a1: Option<Rc<A1Checks>>,
}

impl Default for WalkConfig {
    fn default() -> Self {
        WalkConfig { soft_len: 120, max_segments: 4000, check_a1: None }
    }
}

/// Walks one script from a fresh tree over `env`.
pub fn walk(env: Rc<Env>, rng: &mut Rng, cfg: &WalkConfig) -> Walk {
    let mut tree = Tree::new(env);
    let mut text = String::new();
    let mut segments = 0;
    let mut a1_failures = Vec::new();
    let soft = cfg.soft_len / 2 + rng.below(cfg.soft_len);
    while !tree.has_finished() && segments < cfg.max_segments {
        let seg = tree.segment();
        if seg.alts.is_empty() {
            return Walk { text, finished: false, dead_end: true, segments, a1_failures };
        }
        if let Some(checks) = &cfg.check_a1 {
            if let Err(e) = checks.check(seg.regex()) {
                a1_failures.push(e);
            }
        }
        let finishing = rng.float() < (segments as f64 / soft as f64).powi(2);
        let alt = pick(&seg, rng, finishing);
        let piece = sample(alt, rng);
        if tree.feed_segment(&piece).is_err() {
            return Walk { text, finished: false, dead_end: true, segments, a1_failures };
        }
        text.push_str(&piece);
        segments += 1;
    }
    Walk { finished: tree.has_finished(), text, dead_end: false, segments, a1_failures }
}

/// How far an alternative moves towards the end of the script (lower is closer).
pub(crate) fn finishing_cost(seg: &Segment, alt: &Alt) -> usize {
    let (depth, choice) = &seg.choices[alt.action];
    choice_cost(*depth, choice)
}

fn pick<'a>(seg: &'a Segment, rng: &mut Rng, finishing: bool) -> &'a Alt {
    if !finishing {
        return &seg.alts[rng.below(seg.alts.len())];
    }
    let best = seg.alts.iter().map(|a| finishing_cost(seg, a)).min().unwrap_or(0);
    let pool: Vec<&Alt> = seg.alts.iter().filter(|a| finishing_cost(seg, a) == best).collect();
    pool[rng.below(pool.len())]
}

const NAMES: &[&str] = &[
    "a", "n", "hp", "dmg", "count", "target", "total", "fx", "name", "k2", "doit", "ifx", "ends",
    "nott",
];
const UPPER: &[&str] =
    &["Burning", "Frost", "Zap", "Regen", "Shield2", "Poison", "Blink", "Smite", "Doom"];
const STR_PIECES: &[&str] =
    &["", "fire", "Burns for ", " turns", "a\\\"b", "x\\n", "hello world", "%d", "..", "--"];

/// A random text matching `alt` (its leading whitespace, rest of lexeme, look-ahead).
pub fn sample(alt: &Alt, rng: &mut Rng) -> String {
    let mut s = String::new();
    if alt.done.is_empty() {
        match rng.below(6) {
            0 => s.push('\n'),
            1 | 2 => s.push(' '),
            3 => s.push_str("\n  "),
            _ => {}
        }
    }
    let done = String::from_utf8_lossy(&alt.done).into_owned();
    let mut la = alt.la;
    match &alt.lex {
        Lex::Scoped(names) => {
            let pool = names.names(&alt.done);
            if pool.is_empty() {
                return s;
            }
            let (name, kind) = &pool[rng.below(pool.len())];
            s.push_str(&name[done.len()..]);
            la = Some(kind.la);
        }
        Lex::Lit(t) => s.push_str(&t[done.len()..]),
        Lex::Number => {
            let n = match rng.below(4) {
                0 => format!("{}", rng.below(10)),
                1 => format!("{}.{}", rng.below(100), rng.below(100)),
                2 => format!("{}", rng.below(1000)),
                _ => "0".to_string(),
            };
            let n = if done.is_empty() || n.starts_with(&done) { n } else { format!("{done}{n}") };
            s.push_str(&n[done.len()..]);
        }
        Lex::Str => {
            if done.is_empty() {
                s.push('"');
            }
            s.push_str(STR_PIECES[rng.below(STR_PIECES.len())]);
            s.push('"');
        }
        Lex::Name { upper, .. } => {
            let pool = if *upper { UPPER } else { NAMES };
            for attempt in 0.. {
                let mut name = pool[rng.below(pool.len())].to_string();
                if rng.below(3) == 0 || attempt > 20 {
                    name.push_str(&rng.below(10 + attempt).to_string());
                }
                let full = if done.is_empty() || name.starts_with(&done) {
                    name
                } else {
                    format!("{done}{name}")
                };
                if alt.lex.match_len(full.as_bytes()) == Some(full.len()) {
                    s.push_str(&full[done.len()..]);
                    break;
                }
            }
        }
    }
    if let Some(la) = la {
        let members: Vec<u8> = la.iter().collect();
        let ws: Vec<u8> = members.iter().copied().filter(|b| is_ws(*b) && *b != b'\r').collect();
        let other: Vec<u8> = members.iter().copied().filter(|b| !is_ws(*b)).collect();
        let c = if !other.is_empty() && (ws.is_empty() || rng.below(2) == 0) {
            other[rng.below(other.len())]
        } else if !ws.is_empty() {
            if rng.below(4) == 0 {
                b'\n'
            } else {
                b' '
            }
        } else {
            members[rng.below(members.len())]
        };
        s.push(c as char);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Api;

    #[test]
    fn walks_finish_without_dead_ends_and_every_regex_is_a1() {
        let env = Rc::new(Env::new(Api::dungeon(), vec![]));
        let mut rng = Rng::new(7);
        let cfg = WalkConfig { check_a1: Some(Rc::default()), ..WalkConfig::default() };
        for _ in 0..5 {
            let w = walk(env.clone(), &mut rng, &cfg);
            assert!(!w.dead_end, "dead end after:\n{}", w.text);
            assert!(w.finished, "did not finish:\n{}", w.text);
            assert!(w.a1_failures.is_empty(), "{:?}", &w.a1_failures[..1]);
        }
    }
}
