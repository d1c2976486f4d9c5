//! [`LexemePaths`]: the shortest ways to finish a lexeme in the lexer DFA, for tools
//! that steer a text towards an end (completion costs, the finishing mask).
//!
//! For every lexed terminal `t` and every DFA state `q`: how many bytes at least take
//! `q` to a state where `t` wins ([`LexerDfa::winners`]), and a byte that starts such
//! a shortest path. From the start state this gives each terminal's *canonical text*
//! (its shortest lexeme, printable ASCII preferred: `a` for a Python NAME, `0` for a
//! NUMBER, `""` for a STRING). [`LexemePaths::needs_space_before`] says whether the
//! canonical text's first byte could continue some complete lexeme before it (a NAME
//! after a NAME, `=` after `=`), i.e. whether a plan that writes it after another
//! lexeme must put a space between them.
//!
//! Cost: one backward breadth-first search per lexed terminal over the DFA's states and
//! byte classes (Python: 2,616 states, a hundred terminals: tens of milliseconds, once
//! per language); 3 bytes per (state, terminal).

use crate::grammar::{Grammar, TerminalId};
use crate::lexer_dfa::{DfaState, LexerDfa};

/// "No path": the terminal cannot win from this state.
const FAR: u16 = u16::MAX;

/// Shortest lexeme completions over a [`LexerDfa`] (see the module doc).
#[derive(Clone, Debug)]
pub struct LexemePaths {
    num_states: usize,
    num_terms: usize,
    /// dist[t * num_states + q]: bytes from `q` to a state where `t` wins.
    dist: Vec<u16>,
    /// step[t * num_states + q]: the first byte of such a shortest path.
    step: Vec<u8>,
    /// Canonical text per terminal id (`None`: not lexed, or never wins).
    texts: Vec<Option<Vec<u8>>>,
    /// Per terminal: its canonical text's first byte continues some complete lexeme.
    space_before: Vec<bool>,
}

/// Bytes in the order shortest paths prefer them: lowercase letters, digits, other
/// printable ASCII, then the rest (so canonical texts are readable).
fn preferred_bytes() -> Vec<u8> {
    let mut order: Vec<u8> = (b'a'..=b'z').chain(b'0'..=b'9').chain(b'A'..=b'Z').collect();
    order.extend((0x21u8..=0x7e).filter(|b| !b.is_ascii_alphanumeric()));
    order.push(b' ');
    order.extend((0u8..=255).filter(|b| !(0x20..=0x7e).contains(b)));
    order
}

/// One representative byte per byte class, in preferred order.
fn class_representatives(dfa: &LexerDfa) -> Vec<u8> {
    let mut seen = vec![false; dfa.num_classes()];
    preferred_bytes()
        .into_iter()
        .filter(|&b| {
            let c = dfa.byte_class(b) as usize;
            !std::mem::replace(&mut seen[c], true)
        })
        .collect()
}

/// The automaton's edges reversed (one per state and representative byte), in
/// compressed rows: the sources into state `q` are `src[start[q]..start[q + 1]]`.
struct ReverseEdges {
    start: Vec<u32>,
    src: Vec<DfaState>,
}

impl ReverseEdges {
    fn new(dfa: &LexerDfa, reps: &[u8]) -> ReverseEdges {
        let ns = dfa.num_states();
        let mut start = vec![0u32; ns + 1];
        for q in dfa.states() {
            for &b in reps {
                start[dfa.next(q, b).index() + 1] += 1;
            }
        }
        for i in 1..=ns {
            start[i] += start[i - 1];
        }
        let mut fill = start.clone();
        let mut src = vec![LexerDfa::DEAD; start[ns] as usize];
        for q in dfa.states() {
            for &b in reps {
                let to = dfa.next(q, b).index();
                src[fill[to] as usize] = q;
                fill[to] += 1;
            }
        }
        ReverseEdges { start, src }
    }

    /// Breadth-first from the states where `t` wins, backwards: `d[q]` = the fewest
    /// bytes from `q` to such a state (`FAR` if none).
    fn distances_to(
        &self,
        dfa: &LexerDfa,
        t: TerminalId,
        d: &mut [u16],
        queue: &mut Vec<DfaState>,
    ) {
        queue.clear();
        for (q, dq) in d.iter_mut().enumerate().skip(1) {
            if dfa.winners(DfaState::from_index(q)).contains(&t) {
                *dq = 0;
                queue.push(DfaState::from_index(q));
            }
        }
        let mut head = 0;
        while head < queue.len() {
            let q = queue[head].index();
            head += 1;
            for &p in &self.src[self.start[q] as usize..self.start[q + 1] as usize] {
                if p != LexerDfa::DEAD && d[p.index()] == FAR {
                    d[p.index()] = d[q] + 1;
                    queue.push(p);
                }
            }
        }
    }
}

impl LexemePaths {
    /// Computes the paths of every lexed terminal of `grammar` in `dfa`.
    pub fn new(grammar: &Grammar, dfa: &LexerDfa) -> LexemePaths {
        let ns = dfa.num_states();
        let nt = grammar.num_terminals();
        let reps = class_representatives(dfa);
        let edges = ReverseEdges::new(dfa, &reps);
        let mut dist = vec![FAR; nt * ns];
        let mut step = vec![0u8; nt * ns];
        let mut queue = Vec::with_capacity(ns);
        for &t in dfa.lexed_terminals() {
            let base = t.index() * ns;
            let d = &mut dist[base..base + ns];
            edges.distances_to(dfa, t, d, &mut queue);
            for q in 1..ns {
                if d[q] != FAR && d[q] > 0 {
                    let want = d[q] - 1;
                    let b = reps.iter().copied().find(|&b| {
                        let n = dfa.next(DfaState::from_index(q), b);
                        n != LexerDfa::DEAD && d[n.index()] == want
                    });
                    step[base + q] = b.expect("a state at distance d has a successor at d - 1");
                }
            }
        }
        let mut paths = LexemePaths {
            num_states: ns,
            num_terms: nt,
            dist,
            step,
            texts: vec![None; nt],
            space_before: vec![false; nt],
        };
        for &t in dfa.lexed_terminals() {
            paths.texts[t.index()] = paths.path(dfa, LexerDfa::START, t);
        }
        paths.space_before = paths.space_before(grammar, dfa);
        paths
    }

    /// Per terminal: whether its canonical text could be glued to a complete lexeme
    /// before it (an accepting state with a winner that is not skipped reads on with
    /// the text's first byte), so a space must come first.
    fn space_before(&self, grammar: &Grammar, dfa: &LexerDfa) -> Vec<bool> {
        let ignored = |t: TerminalId| grammar.terminals[t.index()].ignored;
        let ends: Vec<DfaState> = (1..self.num_states)
            .map(DfaState::from_index)
            .filter(|&q| dfa.winners(q).iter().any(|&w| !ignored(w)))
            .collect();
        self.texts
            .iter()
            .map(|text| {
                text.as_ref()
                    .and_then(|x| x.first().copied())
                    .is_some_and(|first| ends.iter().any(|&q| dfa.next(q, first) != LexerDfa::DEAD))
            })
            .collect()
    }

    /// Bytes from `q` to a state where `t` wins, if any.
    #[inline]
    pub fn distance(&self, q: DfaState, t: TerminalId) -> Option<u32> {
        if t.index() >= self.num_terms || q.index() >= self.num_states {
            return None;
        }
        let d = self.dist[t.index() * self.num_states + q.index()];
        (d != FAR).then_some(d as u32)
    }

    /// A shortest byte string taking `q` to a state where `t` wins (empty if `t`
    /// already wins in `q`), or `None` when there is none.
    pub fn path(&self, dfa: &LexerDfa, mut q: DfaState, t: TerminalId) -> Option<Vec<u8>> {
        let mut d = self.distance(q, t)?;
        let mut out = Vec::with_capacity(d as usize);
        while d > 0 {
            let b = self.step[t.index() * self.num_states + q.index()];
            out.push(b);
            q = dfa.next(q, b);
            d -= 1;
        }
        Some(out)
    }

    /// The canonical (shortest) text of terminal `t`, if it is lexed and can win.
    pub fn text(&self, t: TerminalId) -> Option<&[u8]> {
        self.texts.get(t.index())?.as_deref()
    }

    /// Whether the canonical text of `t` could continue a complete lexeme written
    /// just before it (so a plan separates them with a space).
    pub fn needs_space_before(&self, t: TerminalId) -> bool {
        self.space_before.get(t.index()).copied().unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_texts_and_spaces() {
        let g = Grammar::parse("start: (NAME | IF | INT | \"(\" | \"==\" | \"=\")*\nNAME: /[a-z]+/\nIF: \"if\"\nINT: /[0-9]+/\n%ignore \" \"\n").unwrap();
        let dfa = LexerDfa::build(&g).unwrap();
        let p = LexemePaths::new(&g, &dfa);
        let t = |n: &str| g.terminal(n).unwrap();
        assert_eq!(p.text(t("NAME")), Some(&b"a"[..]));
        assert_eq!(p.text(t("IF")), Some(&b"if"[..]));
        assert_eq!(p.text(t("\"==\"")), Some(&b"=="[..]));
        // "i" is a NAME already; "if" needs one more byte.
        let i = dfa.run(b"i");
        assert_eq!(p.distance(i, t("NAME")), Some(0));
        assert_eq!(p.distance(i, t("IF")), Some(1));
        assert_eq!(p.path(&dfa, i, t("IF")), Some(b"f".to_vec()));
        assert_eq!(p.distance(i, t("INT")), None);
        assert!(p.needs_space_before(t("NAME")) && p.needs_space_before(t("\"=\"")));
        assert!(!p.needs_space_before(t("\"(\"")));
    }
}
