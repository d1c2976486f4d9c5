//! The fast [`Recognizer`] behind `exact` masks for grammar recognizers: lexer-DFA
//! steps inside a lexeme, the full recognizer only where a lexeme ends.
//!
//! Why: inside a lexeme, `espalier_grammar::Recognizer::push_byte` only steps the
//! lexer DFA and checks that some terminal still reachable from the new DFA state is
//! acceptable to the parser; the acceptable set cannot change until a lexeme ends.
//! So a trie walk needs the full recognizer (parser stacks, indentation, a clone per
//! node) only at lexeme boundaries, and at the start of a lexeme (where Python's
//! indentation is decided). Every other trie node costs one table lookup and one
//! bitset intersection. Each frame on the walk stack remembers its DFA state and the
//! *anchor*: the nearest depth whose full recognizer state is materialized; a
//! boundary below a frame without a full state replays the path bytes from the anchor
//! once and keeps the result for the frame's other children.
//!
//! This relies on one property of the grammar crate's recognizer (stated in its
//! module doc): the fast path of `push_byte` (DFA state not START, next state not
//! DEAD) depends only on `(remainder().dfa_state, acceptable_terminals())`, but inside
//! Python f-strings (the closing quote over invalid fields, and the replacement fields
//! scanned byte by byte), which `exact` leaves to the language's layer (`python/quote_ends.rs`,
//! `python/fstring_layer.rs`).
//! The exactness test (`tests/it/exactness.rs`) checks the result against pushing every
//! token's bytes through the full recognizer.

use std::sync::Arc;

use espalier_grammar::{DfaState, LexerDfa, Recognizer as GrammarRecognizer, TokenParser};

use crate::Recognizer;

#[derive(Clone, Copy, Debug)]
struct Frame {
    /// Lexer DFA state after the path to this depth.
    q: DfaState,
    /// Depth whose slot holds a full recognizer state in the same lexeme (or this
    /// depth itself when `full`).
    anchor: u32,
    /// Whether `slots[depth]` holds this depth's full state.
    full: bool,
}

/// Walk state for exact masks over a grammar recognizer (see the module doc).
#[derive(Clone, Debug)]
pub struct LexWalker<P: TokenParser> {
    dfa: Arc<LexerDfa>,
    frames: Vec<Frame>,
    path: Vec<u8>,
    slots: Vec<GrammarRecognizer<P>>,
    /// Full recognizer steps taken by the last walk (boundaries, lexeme starts).
    pub heavy_steps: usize,
}

impl<P: TokenParser> LexWalker<P> {
    /// A walker for recognizers of the same language as `base`.
    pub fn new(base: &GrammarRecognizer<P>) -> Self {
        Self {
            dfa: base.language().dfa.clone(),
            frames: Vec::with_capacity(64),
            path: Vec::with_capacity(64),
            slots: vec![base.clone()],
            heavy_steps: 0,
        }
    }

    /// Starts a walk from `base` (depth 0).
    pub fn reset(&mut self, base: &GrammarRecognizer<P>) {
        self.slots[0].clone_from(base);
        self.frames.clear();
        self.frames.push(Frame { q: base.remainder().dfa_state, anchor: 0, full: true });
        self.path.clear();
        self.heavy_steps = 0;
    }

    /// Makes `slots[d]` hold the full state at depth `d` (the top of the stack);
    /// `false` when the recognizer refuses the path (an f-string's closing quote over
    /// invalid fields, see below): the depth then stays light, so every byte pushed
    /// below it is refused.
    #[inline(never)]
    fn materialize(&mut self, d: usize) -> bool {
        let f = self.frames[d];
        if f.full {
            return true;
        }
        let a = f.anchor as usize;
        while self.slots.len() <= d {
            let s = self.slots[0].clone();
            self.slots.push(s);
        }
        let (lo, hi) = self.slots.split_at_mut(d);
        hi[0].clone_from(&lo[a]);
        // These bytes were accepted on the fast path from the anchor, so the full
        // recognizer accepts them too (see the module doc), but for the quote that
        // closes an f-string with invalid fields (`python/quote_ends.rs` re-checks tokens
        // ending on it).
        let ok = hi[0].try_push_bytes(&self.path[a..d]);
        debug_assert!(
            ok || self.path[a..d].iter().any(|&b| b == b'"' || b == b'\''),
            "fast path and recognizer disagree"
        );
        self.heavy_steps += d - a;
        if ok {
            self.frames[d] = Frame { q: f.q, anchor: d as u32, full: true };
        }
        ok
    }
}

/// How [`LexWalker::push_kind`] took a byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Push {
    /// Refused.
    Rejected,
    /// Taken inside the current lexeme (lexer DFA step only).
    Light,
    /// Taken by the full recognizer; `true` when a new lexeme starts exactly at this
    /// byte (the remainder is this one byte), so [`LexemeStarts`] summarizes the
    /// subtree below.
    Heavy(bool),
}

impl<P: TokenParser> LexWalker<P> {
    /// Pushes `byte` and says how (see [`Push`]).
    #[inline]
    pub(crate) fn push_kind(&mut self, byte: u8) -> Push {
        let d = self.path.len();
        let f = self.frames[d];
        if f.q != LexerDfa::START {
            let next = self.dfa.next(f.q, byte);
            if next != LexerDfa::DEAD && next != LexerDfa::START {
                let acceptable = self.slots[f.anchor as usize].acceptable_terminals();
                if !self.dfa.reachable(next).intersects(acceptable) {
                    return Push::Rejected;
                }
                self.frames.push(Frame { q: next, anchor: f.anchor, full: false });
                self.path.push(byte);
                return Push::Light;
            }
        }
        // A lexeme starts or ends here: the full recognizer decides, unless a cheap
        // test shows it would refuse.
        if f.q != LexerDfa::START
            && surely_refused(&self.slots[f.anchor as usize], &self.dfa, f.q, byte)
        {
            return Push::Rejected;
        }
        if !self.materialize(d) {
            return Push::Rejected;
        }
        if self.slots.len() <= d + 1 {
            let s = self.slots[d].clone();
            self.slots.push(s);
        } else {
            let (lo, hi) = self.slots.split_at_mut(d + 1);
            hi[0].clone_from(&lo[d]);
        }
        self.heavy_steps += 1;
        let next = &mut self.slots[d + 1];
        if !next.try_push_byte(byte) {
            return Push::Rejected;
        }
        let rem = next.remainder();
        self.frames.push(Frame { q: rem.dfa_state, anchor: d as u32 + 1, full: true });
        self.path.push(byte);
        Push::Heavy(rem.len == 1)
    }

    /// The full recognizer state at the current depth, if materialized.
    pub(crate) fn top_full(&self) -> Option<&GrammarRecognizer<P>> {
        let d = self.path.len();
        self.frames[d].full.then(|| &self.slots[d])
    }

    /// The current depth's lexer DFA state and its anchor: the depth whose full state
    /// plus the (in-lexeme) path bytes after it make the current state.
    pub(crate) fn top_frame(&self) -> (DfaState, usize) {
        let f = self.frames[self.path.len()];
        (f.q, f.anchor as usize)
    }

    /// The full state at depth `d` (an anchor of the current path).
    pub(crate) fn full_at(&self, d: usize) -> &GrammarRecognizer<P> {
        debug_assert!(self.frames[d].full);
        &self.slots[d]
    }

    /// The full state at the current depth, materialized from its anchor if needed
    /// (the current depth then anchors the bytes pushed below it).
    pub(crate) fn materialize_top(&mut self) -> Option<&GrammarRecognizer<P>> {
        let d = self.path.len();
        self.materialize(d).then(|| &self.slots[d])
    }

    /// Bytes pushed.
    pub(crate) fn depth(&self) -> usize {
        self.path.len()
    }
}

impl<P: TokenParser> Recognizer for LexWalker<P> {
    #[inline]
    fn try_push_byte(&mut self, byte: u8) -> bool {
        self.push_kind(byte) != Push::Rejected
    }

    #[inline]
    fn pop_bytes(&mut self, n: usize) {
        let d = self.path.len() - n;
        self.path.truncate(d);
        self.frames.truncate(d + 1);
    }
}

/// Whether the full recognizer, in a state whose lexer is at `q` (inside the
/// lexeme of `state`, same acceptable set), surely refuses `byte` when the DFA dies
/// there: a cheap test that avoids a recognizer clone and step (and the error value
/// it builds) for most boundary bytes. Exact reasoning, conservative where unsure:
/// - the lexeme ends as the winners of `q` (when `q` has none, pending bytes would be
///   re-read: unsure); if none of them is acceptable, the parser refuses it;
/// - if they are ignored terminals other than a layout newline (Python's NL, Go's
///   newlines, see `Language::is_layout_newline`), the parser does not move,
///   so unless INDENT / DEDENT may come (the indentation layer can change the
///   acceptable set), the next lexeme starting with `byte` must meet the same set.
fn surely_refused<P: TokenParser>(
    state: &GrammarRecognizer<P>,
    dfa: &LexerDfa,
    q: DfaState,
    byte: u8,
) -> bool {
    let winners = dfa.winners(q);
    if winners.is_empty() || q == LexerDfa::START || dfa.next(q, byte) != LexerDfa::DEAD {
        return false;
    }
    let acceptable = state.acceptable_terminals();
    if !winners.iter().any(|&t| acceptable.contains(t)) {
        return true;
    }
    let lang = state.language();
    let layout = lang
        .layer
        .layout()
        .is_some_and(|l| acceptable.contains(l.indent) || acceptable.contains(l.dedent));
    if layout || !winners.iter().all(|&t| lang.ignored.contains(t) && !lang.is_layout_newline(t)) {
        return false;
    }
    let s = dfa.next(LexerDfa::START, byte);
    s == LexerDfa::DEAD || !dfa.reachable(s).intersects(acceptable)
}
