//! The finishing mask's scores, taken along one trie walk.
//!
//! The finishing mask ([`crate::finishing`]) needs, for every allowed token, the
//! remaining cost of the state after it. Token by token that is a recognizer copy,
//! the token's bytes and a memo lookup keyed on the parser stacks: ~170 ns a token,
//! ~40k allowed tokens, Python p50 6.8 ms / p99 35.9 ms a step (issue 13,
//! `espalier bench mask --finishing`). Here the vocabulary trie is walked once with
//! the exact walk's [`LexWalker`], so tokens share their prefixes' work, and a token
//! whose last bytes stay inside a lexeme started at an *anchor* (a depth whose full
//! state the walk holds) gets the cost that depends only on (anchor, lexer DFA state):
//! the parser stacks and the layout are the anchor's, and the remaining cost reads
//! nothing else of a state inside a lexeme (see `Finisher::key`). Those costs are
//! memoised per anchor, so a string body's 49k tokens cost a handful of lookups.
//!
//! Two cases take the full state instead (materialized once per node): the layout
//! counts columns inside a line's indentation (anchor at a line start), and an
//! f-string's cost reads its bytes (a string state in a lexeme that may be an
//! f-string). Long tokens (not in the trie) are scored one by one.

use espalier_grammar::{Recognizer, TokenParser};

use crate::finishing::Finisher;
use crate::fstring_quotes::may_be_fstring;
use crate::lexer_walk::{LexWalker, Push};
use crate::{Recognizer as _, TokTrie, TokenSet};

/// Per anchor depth: the trie node it was set at, and the costs memoised under it
/// by lexer DFA state.
#[derive(Clone, Debug, Default)]
struct AnchorMemo {
    node: usize,
    /// The anchor's full state is read per node (line start, maybe an f-string).
    exact_only: bool,
    maybe_fstring: bool,
    costs: Vec<(u32, Option<u32>)>,
}

/// Appends `(token, remaining cost after it)` to `scored` for every token of `allowed`
/// in the trie or among its long tokens, `None` for a token `state` refuses (none, if
/// `allowed` is its exact mask). Duplicate ids are not scored (they share their first
/// id's bytes: [`TokTrie::add_duplicates`] gives them its verdict).
pub(crate) fn score_along_trie<P: TokenParser>(
    state: &Recognizer<P>,
    allowed: &TokenSet,
    trie: &TokTrie,
    f: &mut Finisher<'_>,
    scored: &mut Vec<(usize, Option<u32>)>,
) {
    let lang = state.language().clone();
    let string = lang.python.as_ref().and_then(|py| py.string);
    let mut walker = LexWalker::new(state);
    walker.reset(state);
    // Trie node at each depth of the current path (the root at depth 0).
    let mut nodes: Vec<usize> = vec![0];
    let mut memos: Vec<AnchorMemo> = vec![AnchorMemo::default()];
    set_anchor(&mut memos, 0, 0, walker.full_at(0));
    let end = trie.node_count();
    let mut i = 1;
    while i < end {
        let (byte, tok, size, pops) = trie.node_info(i);
        let kind = walker.push_kind(byte);
        if kind == Push::Rejected {
            walker.pop_bytes(pops - 1);
            i += size;
            continue;
        }
        let d = walker.depth();
        nodes.truncate(d);
        nodes.push(i);
        if memos.len() <= d {
            memos.resize_with(d + 1, AnchorMemo::default);
        }
        if matches!(kind, Push::Heavy(_)) {
            set_anchor(&mut memos, d, i, walker.full_at(d));
        }
        if tok != u32::MAX && allowed.contains(tok as usize) {
            let cost = match walker.top_full() {
                Some(full) => f.remaining(full),
                None => {
                    let (q, a) = walker.top_frame();
                    let m = &memos[a];
                    debug_assert_eq!(m.node, nodes[a], "the memo belongs to the anchor");
                    let stringy = m.maybe_fstring && string.is_some_and(|t| lang.dfa.reachable(q).contains(t));
                    let memo = !(m.exact_only || stringy);
                    if let Some(&(_, c)) = m.costs.iter().find(|(mq, _)| memo && *mq == q) {
                        c
                    } else {
                        match walker.materialize_top() {
                            Some(full) => {
                                let c = f.remaining(full);
                                // The top is now its own anchor: its children read memos[d].
                                set_anchor(&mut memos, d, i, walker.full_at(d));
                                if memo {
                                    memos[a].costs.push((q, c));
                                }
                                c
                            }
                            None => None, // not in an exact mask: refused
                        }
                    }
                }
            };
            scored.push((tok as usize, cost));
        }
        if size == 1 {
            walker.pop_bytes(pops);
        }
        i += 1;
    }
    for (id, bytes) in trie.long_tokens() {
        if allowed.contains(*id as usize) {
            let mut s = state.clone();
            let cost = if s.try_push_bytes(bytes) { f.remaining(&s) } else { None };
            scored.push((*id as usize, cost));
        }
    }
}

/// Makes depth `d` an anchor at trie node `node` with full state `full`.
fn set_anchor<P: TokenParser>(memos: &mut [AnchorMemo], d: usize, node: usize, full: &Recognizer<P>) {
    let m = &mut memos[d];
    m.node = node;
    m.exact_only = full.at_line_start();
    m.maybe_fstring = full.language().python.is_some() && may_be_fstring(full.remainder_bytes());
    m.costs.clear();
}
