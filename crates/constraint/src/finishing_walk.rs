//! The finishing mask's scores, taken along one trie walk.
//!
//! The finishing mask ([`crate::finishing`]) needs, for every allowed token, the
//! remaining cost of the state after it. Token by token that is a recognizer copy,
//! the token's bytes and a memo lookup keyed on the parser stacks: ~170 ns a token,
//! ~40k allowed tokens, Python p50 6.8 ms / p99 35.9 ms a step (issue 13,
//! `espalier bench mask --finishing`). Here the vocabulary trie is walked once with
//! the exact walk's [`LexWalker`], so tokens share their prefixes' work, and a token
//! whose last bytes stay inside a lexeme started at an *anchor* (a depth whose full
//! state the walk holds) gets the cost that depends only on (anchor, class of its
//! lexer DFA state): the parser stacks and the layout are the anchor's, and the
//! remaining cost reads nothing else of a state inside a lexeme (see `Finisher::key`),
//! and of its DFA state only what equivalent states share (winners, reachable
//! terminals, shortest paths, dead transitions). Those costs are memoised per anchor.
//!
//! Where a lexeme starts exactly at a trie node (and at the root, inside the text's
//! unfinished lexeme), the walk does not descend node by node: the vocabulary's
//! [`LexemeStarts`] summaries list the tokens below that stay in the lexeme, grouped
//! by the class of their final DFA state, and the boundary nodes below, where the
//! walk goes on. A group costs one set test and one memo lookup. Measured (issue 13,
//! finish8): the node-by-node walk stepped ~98k light nodes per mask, ~1.2 ms of a
//! warm 1.5 ms mask after `(` or at a line start.
//!
//! Two cases take the full state instead (materialized once per node): the layout
//! counts columns inside a line's indentation (anchor at a line start), and an
//! f-string's cost reads its bytes (a string state in a lexeme that may be an
//! f-string). Long tokens (not in the trie) are scored one by one.

use std::sync::Arc;

use espalier_grammar::{DfaState, Recognizer, TerminalId, TokenParser};

use crate::lexeme_starts::{state_of, LexemeStarts, Lists, NO_ACCEPT};
use crate::lexer_walk::{LexWalker, Push};
use crate::mask_layer::FinishingLayer;
use crate::remaining_cost::Finisher;
use crate::{Recognizer as _, TokTrie, TokenSet, Vocab};

/// Per anchor depth: the costs memoised under it by class of lexer DFA state.
#[derive(Clone, Debug, Default)]
struct AnchorMemo {
    /// The anchor's full state is read per node (line start, maybe an f-string).
    exact_only: bool,
    maybe_fstring: bool,
    costs: Vec<(DfaState, Option<u32>)>,
}

/// The scores of one walk: single tokens, and whole groups of a summary.
#[derive(Debug, Default)]
pub(crate) struct Scored {
    /// (token, remaining cost after it).
    pub(crate) tokens: Vec<(usize, Option<u32>)>,
    /// (the root's summary or not, group, remaining cost after each of its tokens).
    pub(crate) groups: Vec<(bool, u32, Option<u32>)>,
    starts: Option<Arc<LexemeStarts>>,
    /// The lexer state the root summary was read from.
    root_q: DfaState,
}

impl Scored {
    /// The least cost scored.
    pub(crate) fn least(&self) -> Option<u32> {
        self.tokens.iter().map(|x| x.1).chain(self.groups.iter().map(|x| x.2)).flatten().min()
    }

    /// Adds to `mask` every token whose cost `keep` accepts.
    pub(crate) fn insert_kept(&self, mask: &mut TokenSet, keep: impl Fn(Option<u32>) -> bool) {
        for &(id, cost) in &self.tokens {
            if keep(cost) {
                mask.insert(id);
            }
        }
        let Some(starts) = &self.starts else { return };
        for &(root, g, cost) in &self.groups {
            if keep(cost) {
                let lists = if root {
                    starts.root(self.root_q).map(|p| p.lists())
                } else {
                    Some(starts.lists(0))
                };
                if let Some(l) = lists {
                    l.groups.add_to(g as usize, mask);
                }
            }
        }
    }
}

/// What a walk goes along (the kit's): the trie, its lexeme-start summaries, and the
/// layer's lexemes checked whole.
#[derive(Clone, Copy)]
pub(crate) struct Along<'a> {
    pub(crate) trie: &'a TokTrie,
    pub(crate) starts: Option<&'a Arc<LexemeStarts>>,
    pub(crate) layer: Option<&'a dyn FinishingLayer>,
}

/// One walk: the walker, the anchors' memos and what it scores.
struct Walk<'a, P: TokenParser> {
    walker: LexWalker<P>,
    memos: Vec<AnchorMemo>,
    trie: &'a TokTrie,
    vocab: &'a Vocab,
    allowed: &'a TokenSet,
    starts: Option<Arc<LexemeStarts>>,
    /// The layer's lexemes checked whole (an f-string's cost reads its bytes).
    layer: Option<&'a dyn FinishingLayer>,
    /// Their terminal (Python's STRING).
    string: Option<TerminalId>,
    out: &'a mut Scored,
    path: Vec<u8>,
    /// A recognizer reused to cost a group's token (no allocation per group).
    scratch: Recognizer<P>,
}

/// Adds to `scored` `(token, remaining cost after it)` for every token of `allowed`
/// in the trie or among its long tokens, `None` for a token `state` refuses (none, if
/// `allowed` is its exact mask), and whole groups of summarized tokens (see the module
/// doc). Duplicate ids are not scored (they share their first id's bytes:
/// [`TokTrie::add_duplicates`] gives them its verdict).
pub(crate) fn score_along_trie<P: TokenParser>(
    state: &Recognizer<P>,
    allowed: &TokenSet,
    along: Along<'_>,
    vocab: &Vocab,
    f: &mut Finisher<'_>,
    scored: &mut Scored,
) {
    let Along { trie, starts, layer } = along;
    let starts = starts.cloned();
    scored.starts = starts.clone();
    scored.root_q = state.remainder().dfa_state;
    let mut w = Walk {
        walker: LexWalker::new(state),
        memos: vec![AnchorMemo::default()],
        trie,
        vocab,
        allowed,
        starts,
        string: layer.and_then(|l| l.checked_terminal()),
        layer,
        out: scored,
        path: Vec::new(),
        scratch: state.clone(),
    };
    w.walker.reset(state);
    w.set_anchor(0);
    let root_summary = w
        .starts
        .clone()
        .filter(|_| state.remainder().dfa_state != espalier_grammar::LexerDfa::START);
    let summarized = root_summary
        .as_ref()
        .and_then(|s| s.root(state.remainder().dfa_state))
        .is_some_and(|p| w.summarize(f, p.lists(), 0, true));
    if !summarized {
        w.children(f, 0);
    }
    for (id, bytes) in trie.long_tokens() {
        if allowed.contains(*id as usize) {
            let mut s = state.clone();
            let cost = if s.try_push_bytes(bytes) { f.remaining(&s) } else { None };
            w.out.tokens.push((*id as usize, cost));
        }
    }
}

impl<P: TokenParser> Walk<'_, P> {
    /// Makes the current depth an anchor (its full state is materialized).
    fn set_anchor(&mut self, d: usize) {
        if self.memos.len() <= d {
            self.memos.resize_with(d + 1, AnchorMemo::default);
        }
        let full = self.walker.full_at(d);
        let m = &mut self.memos[d];
        m.exact_only = full.at_line_start();
        m.maybe_fstring = self.layer.is_some_and(|l| l.may_become_checked(full.remainder_bytes()));
        m.costs.clear();
    }

    /// Walks the children of trie node `node` (the walker stands after it).
    fn children(&mut self, f: &mut Finisher<'_>, node: usize) {
        let (_, _, size, _) = self.trie.node_info(node);
        let end = node + size;
        let mut c = node + 1;
        while c < end {
            self.child(f, c);
            c += self.trie.node_info(c).2;
        }
    }

    /// Pushes trie node `c`'s byte (the walker stands at its parent), scores its
    /// token and its subtree, and pops the byte again.
    fn child(&mut self, f: &mut Finisher<'_>, c: usize) {
        let (byte, tok, _, _) = self.trie.node_info(c);
        let kind = self.walker.push_kind(byte);
        if kind == Push::Rejected {
            return;
        }
        let d = self.walker.depth();
        if matches!(kind, Push::Heavy(_)) {
            self.set_anchor(d);
        }
        let starts = self.starts.clone();
        let summarized = kind == Push::Heavy(true)
            && starts.as_ref().is_some_and(|s| self.summarize(f, s.lists(c), c, false));
        if !summarized {
            if tok != u32::MAX && self.allowed.contains(tok as usize) {
                let cost = self.cost_here(f, d);
                self.out.tokens.push((tok as usize, cost));
            }
            self.children(f, c);
        }
        self.walker.pop_bytes(1);
    }

    /// The remaining cost after the current path (depth `d`), memoised per anchor.
    fn cost_here(&mut self, f: &mut Finisher<'_>, d: usize) -> Option<u32> {
        if let Some(full) = self.walker.top_full() {
            return f.remaining(full);
        }
        let (q, a) = self.walker.top_frame();
        let rep = self.starts.as_ref().map_or(q, |s| s.rep_of(q));
        let memo = !self.stringy(a, q);
        if let Some(&(_, c)) = self.memos[a].costs.iter().find(|(mq, _)| memo && *mq == rep) {
            return c;
        }
        let c = f.remaining(self.walker.materialize_top()?);
        // The top is now its own anchor: its children read memos[d].
        self.set_anchor(d);
        if memo {
            self.memos[a].costs.push((rep, c));
        }
        c
    }

    /// Whether a state in lexer state `q` inside the lexeme of anchor `a` may be an
    /// f-string's (its cost then reads the bytes).
    fn stringy(&self, a: usize, q: DfaState) -> bool {
        let m = &self.memos[a];
        m.exact_only
            || (m.maybe_fstring
                && self.string.is_some_and(|t| {
                    self.walker.full_at(a).language().dfa.reachable(q).contains(t)
                }))
    }

    /// Scores the summary `lists` of a lexeme starting at node `n` (the current
    /// depth, an anchor): its groups, then the boundary nodes below, walked. `false`
    /// (nothing scored) when the anchor's full state must be read per node.
    fn summarize(&mut self, f: &mut Finisher<'_>, lists: Lists<'_>, n: usize, root: bool) -> bool {
        let d = self.walker.depth();
        if self.memos[d].exact_only {
            return false;
        }
        for g in lists.g0..lists.g1 {
            let starts = self.starts.clone().expect("a summary comes from the starts");
            if !starts.sets[lists.groups.sid(g) as usize]
                .intersects(self.walker.full_at(d).acceptable_terminals())
            {
                continue;
            }
            let rep = lists.groups.rep(g);
            if self.stringy(d, rep) {
                // Each token's own state: an f-string's cost reads its bytes.
                let mut toks = Vec::new();
                lists.groups.for_each(g, |t| toks.push(t));
                for t in toks {
                    if self.allowed.contains(t as usize) {
                        let cost = self.cost_of_token(f, d, t);
                        self.out.tokens.push((t as usize, cost));
                    }
                }
                continue;
            }
            let cost = match self.memos[d].costs.iter().find(|(mq, _)| *mq == rep) {
                Some(&(_, c)) => c,
                None => {
                    let c = self.cost_of_token(f, d, lists.groups.first_tok(g));
                    self.memos[d].costs.push((rep, c));
                    c
                }
            };
            self.out.groups.push((root, g as u32, cost));
        }
        let starts = self.starts.clone().expect("a summary comes from the starts");
        let acceptable = *self.walker.full_at(d).acceptable_terminals();
        for (&b, &entry) in lists.bound_node.iter().zip(lists.bound_state) {
            // As the exact walk: no lexeme to end at the parent, or the light path
            // down to it is not viable: refused.
            if entry & NO_ACCEPT != 0
                || !starts.sets[starts.set_of(state_of(entry)) as usize].intersects(&acceptable)
            {
                continue;
            }
            let b = b as usize;
            self.path.clear();
            starts.path_bytes(n, starts.parent(b), &mut self.path);
            let mut pushed = 0;
            let path = std::mem::take(&mut self.path);
            for &x in &path {
                if self.walker.push_kind(x) != Push::Light {
                    break;
                }
                pushed += 1;
            }
            if pushed == path.len() {
                self.child(f, b);
            }
            self.walker.pop_bytes(pushed);
            self.path = path;
        }
        true
    }

    /// The remaining cost after token `t`, whose first `d` bytes are the current
    /// path (an anchor's full state).
    fn cost_of_token(&mut self, f: &mut Finisher<'_>, d: usize, t: u32) -> Option<u32> {
        self.scratch.clone_from(self.walker.full_at(d));
        self.scratch
            .try_push_bytes(&self.vocab.bytes(t)[d..])
            .then(|| f.remaining(&self.scratch))
            .flatten()
    }
}
