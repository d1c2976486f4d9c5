//! The finishing mask under fill-in-the-middle: the shortest *bridge* from the text
//! written so far (prefix + middle) to a state from which the suffix joins, and the
//! tokens that walk along it.
//!
//! The plain finishing mask ([`crate::finishing`]) costs the way to a complete
//! program from the LR stacks alone; under FIM the goal is a set of states (those
//! where [`SuffixQuotient::joins`] holds), so the cost is found by search instead: a
//! uniform-cost (Dijkstra) search over recognizer states, where a move writes a small
//! piece of text (a separator, the shortest text of a terminal with or without a
//! space before it, or the shortest way to finish the unfinished lexeme as some
//! terminal) and costs its bytes. States are merged when they have the same future
//! (lexer state, layout, parser stacks), and the search stops at the first goal popped
//! (the shortest bridge over these moves) or after [`MAX_EXPANSIONS`] states.
//!
//! Every prefix of a bridge is a viable prefix whose own bridge is the rest, so the
//! finishing mask (the tokens whose bytes are a non-empty prefix of the bridge) holds
//! tokens that strictly shorten the way to joining, and taking only its tokens joins
//! the suffix within the bridge's length in tokens. The bridge is kept by the
//! constraint while the tokens written follow it (no new search per step).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use espalier_grammar::{Language, LrRecognizer, SuffixQuotient, TokenParser};

use crate::finishing::Finisher;

/// States expanded at most per search (a search that ends here finds no bridge).
/// With the guide below, bridges out of 20 nested brackets and into a `class` header
/// are found within it (`fim_bridge::tests`).
pub const MAX_EXPANSIONS: usize = 2000;
/// The longest bridge searched for, in bytes.
pub const MAX_BRIDGE: usize = 64;

/// Separators tried at every state, beside the terminals' shortest texts.
const SEPARATORS: [&[u8]; 3] = [b" ", b"\n", b"    "];

/// The shortest bridge from `left` to a state the suffix joins from (empty when it
/// already joins), or `None` when the search finds none within its limits.
pub fn shortest_bridge(left: &LrRecognizer, suffix: &SuffixQuotient) -> Option<Vec<u8>> {
    let lang = left.language().clone();
    let moves = terminal_texts(&lang);
    // The cheapest cost found per future; a node popped at a higher cost is stale.
    let mut best: HashMap<Vec<u32>, usize> = HashMap::new();
    let mut nodes: Vec<(LrRecognizer, Vec<u8>, Vec<u32>)> = Vec::new();
    let mut heap = BinaryHeap::new();
    let mut finisher = Finisher::new(&lang);
    let key = future_key(left);
    best.insert(key.clone(), 0);
    nodes.push((left.clone(), Vec::new(), key));
    heap.push((Reverse(guide(&mut finisher, left, 0)), Reverse(0usize), Reverse(0usize)));
    let mut expanded = 0;
    while let Some((_, Reverse(cost), Reverse(i))) = heap.pop() {
        if best.get(&nodes[i].2).is_some_and(|&c| c < cost) {
            continue;
        }
        if suffix.joins(&nodes[i].0) {
            return Some(std::mem::take(&mut nodes[i].1));
        }
        expanded += 1;
        if expanded > MAX_EXPANSIONS {
            return None;
        }
        let (state, path, _) = nodes[i].clone();
        // The terminals the parser takes next once the unfinished lexeme ends: only
        // their texts can be pushed (measured: this cut a search's time ~4x).
        // (Not at a line start: there the first content byte may emit DEDENTs, which
        // change the set, e.g. to admit `except` after a `try` body.)
        let mut ended = state.clone();
        let next_terms = if (ended.remainder().len == 0 || ended.end_lexeme()) && !ended.at_line_start() {
            Some(ended.acceptable_terminals().clone())
        } else {
            None
        };
        let texts = moves.iter().filter(|(t, _)| next_terms.as_ref().is_none_or(|n| n.contains(*t))).map(|(_, x)| x.as_slice());
        for text in lexeme_finishes(&lang, &state).iter().map(Vec::as_slice).chain(SEPARATORS).chain(texts) {
            let c = cost + text.len();
            if c > MAX_BRIDGE {
                continue;
            }
            let mut next = state.clone();
            if !next.try_push_bytes(text) {
                continue;
            }
            let key = future_key(&next);
            if best.get(&key).is_some_and(|&b| b <= c) {
                continue;
            }
            best.insert(key.clone(), c);
            let mut p = path.clone();
            p.extend_from_slice(text);
            heap.push((Reverse(guide(&mut finisher, &next, c)), Reverse(c), Reverse(nodes.len())));
            nodes.push((next, p, key));
        }
    }
    None
}

/// The search's priority: the bytes so far plus twice the plain remaining cost (to a
/// complete program, [`Finisher`]): most bridges close what is open first, and the
/// weight makes the search dive towards that instead of widening over every
/// statement that could come next (measured: plain uniform cost ran out of its
/// expansions inside 20 nested brackets).
fn guide(f: &mut Finisher<'_>, s: &LrRecognizer, cost: usize) -> usize {
    cost + 2 * f.remaining(s).map_or(MAX_BRIDGE, |c| c as usize)
}

/// The shortest text of every lexed, non-ignored terminal (keywords, operators, a
/// name, a number, a string), each also after one space.
fn terminal_texts(lang: &Language) -> Vec<(u32, Vec<u8>)> {
    let paths = lang.completion_costs().lexeme_paths();
    let mut out = Vec::new();
    for &t in lang.dfa.lexed_terminals() {
        if lang.ignored.contains(t) {
            continue;
        }
        if let Some(x) = paths.text(t) {
            out.push((t, x.to_vec()));
            if x[0].is_ascii_alphanumeric() || x[0] == b'_' || x[0] == b'"' || x[0] == b'\'' {
                let mut spaced = b" ".to_vec();
                spaced.extend_from_slice(x);
                out.push((t, spaced));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The shortest ways to finish the unfinished lexeme of `s` as each terminal it can
/// still become (none when the remainder is empty).
fn lexeme_finishes(lang: &Language, s: &LrRecognizer) -> Vec<Vec<u8>> {
    let rem = s.remainder();
    if rem.len == 0 {
        return Vec::new();
    }
    let paths = lang.completion_costs().lexeme_paths();
    let mut out: Vec<Vec<u8>> =
        lang.dfa.reachable(rem.dfa_state).iter().filter(|&t| paths.distance(rem.dfa_state, t).is_some_and(|d| d > 0)).filter_map(|t| paths.path(&lang.dfa, rem.dfa_state, t)).collect();
    out.sort();
    out.dedup();
    out
}

/// What the future of a recognizer state depends on: the lexer state (and the
/// remainder's bytes when they may be an f-string or are short, which a suffix may
/// continue), the layout, the parser stacks.
fn future_key(s: &LrRecognizer) -> Vec<u32> {
    let mut key = Vec::with_capacity(32);
    let rem = s.remainder();
    key.push(rem.dfa_state);
    key.push(rem.len.min(1) as u32);
    if let Some(ind) = s.indentation() {
        key.extend([ind.depth, ind.at_line_start as u32, ind.content as u32, ind.col, ind.altcol, ind.cols.len() as u32]);
        key.extend_from_slice(ind.cols);
        key.extend_from_slice(ind.alt);
    }
    if let Some(stacks) = s.parser().lr_stacks() {
        for st in stacks {
            key.push(u32::MAX);
            key.extend_from_slice(st);
        }
    }
    let bytes = s.remainder_bytes();
    if bytes.iter().any(|&b| b == b'"' || b == b'\'') {
        key.push(u32::MAX - 1);
        key.extend(bytes.iter().map(|&b| b as u32));
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use espalier_grammar::quotient::left_state;

    fn bridge(prefix: &str, suffix: &str) -> Option<String> {
        let py = espalier_grammar::python().unwrap();
        let left = left_state(&py, prefix.as_bytes()).unwrap();
        let q = SuffixQuotient::new(&py, suffix.as_bytes()).unwrap();
        q.establish(&left).unwrap();
        let b = shortest_bridge(&left, &q)?;
        // The bridge joins: prefix + bridge + suffix is a program.
        let mut r = py.recognizer();
        assert!(r.push_bytes(&[prefix.as_bytes(), &b, suffix.as_bytes()].concat()).is_ok() && r.is_complete(), "{b:?}");
        Some(String::from_utf8(b).unwrap())
    }

    #[test]
    fn bridges_are_shortest_joins() {
        // Already joined.
        assert_eq!(bridge("x = 1\n", "y = 2\n").as_deref(), Some(""));
        // Close the bracket and end the line.
        let b = bridge("x = f(1, [2", "y = 2\n").unwrap();
        assert_eq!(b.len(), 3, "{b:?}");
        // A keyword is needed: the suffix is the rest of a `def` or `class` header.
        let b = bridge("class C:\n    def f(self):\n        return 1\n", "(object):\n        pass\n").unwrap();
        assert!(b.len() <= 10, "{b:?}");
        // After a dedent: `except` is taken only once the `try` body has ended.
        assert_eq!(bridge("try:\n    y = 1\n", ":\n    z = 2\n").as_deref(), Some("except"));
        // Inside a string.
        let b = bridge("x = 'abc", "\ny = 2\n").unwrap();
        assert_eq!(b, "'");
    }

    /// Time the search on states the model reached (`FIM_BRIDGE_CASES=DIR` holding
    /// `N.prefix` / `N.suffix` from 0 up); run by hand with `--ignored`.
    #[test]
    #[ignore]
    fn bridge_timing() {
        let py = espalier_grammar::python().unwrap();
        let dir = std::path::PathBuf::from(std::env::var("FIM_BRIDGE_CASES").unwrap());
        for k in 0.. {
            let Ok(prefix) = std::fs::read(dir.join(format!("{k}.prefix"))) else { break };
            let suffix = std::fs::read(dir.join(format!("{k}.suffix"))).unwrap();
            let left = left_state(&py, &prefix).unwrap();
            let q = SuffixQuotient::new(&py, &suffix).unwrap();
            let t = std::time::Instant::now();
            let b = shortest_bridge(&left, &q);
            eprintln!("{k}: {:?} in {:?}", b.map(|b| String::from_utf8_lossy(&b).into_owned()), t.elapsed());
        }
    }
}
