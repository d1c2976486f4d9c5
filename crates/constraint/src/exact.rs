//! The `exact` strategy: the vocabulary trie walked through the grammar's byte-level
//! recognizer, so a token is allowed iff every byte keeps the text a viable prefix
//! (sound and complete by construction; the recognizer handles lexemes spanning
//! tokens, whitespace, comments and indentation inside tokens).
//!
//! Three layers keep it cheap:
//! 1. [`LexWalker`]: inside a lexeme only the lexer DFA steps; the full recognizer
//!    (cloned into reused slots) runs only where a lexeme starts or ends.
//! 2. [`LexemeStarts`]: where a new lexeme starts exactly at a trie node, the whole
//!    subtree below is decided from precomputed lists (tokens staying in that lexeme,
//!    grouped by their reachable-terminal set, big groups as dense bitsets; boundary
//!    nodes where the lexeme ends), recursively — no per-node work for the bulk of
//!    the vocabulary.
//! 3. At a boundary the lexeme is ended once per parent node (one parser step on a
//!    recognizer copy, or none at all for whitespace and comments, which the parser
//!    never sees), and every sibling's first byte is then decided by one DFA lookup
//!    and one set test: outside Python's line starts the first byte of a lexeme does
//!    not change the acceptable set. Verdicts "reachable set x acceptable set" are
//!    cached per mask, since few distinct acceptable sets occur in one mask. The
//!    state after a lexeme end is also held per mask, keyed by the state the lexeme
//!    was read from and its winners (see [`HeldEnd`]): at an expression start
//!    hundreds of NAME-prefix nodes in sibling subtrees end their lexeme as NAME.
//!
//! Measured on the benchmark files (`espalier bench mask`, 17,961 steps): a mask
//! visits ~180 lexeme starts and allows ~38k tokens on average.
//!
//! The exactness test checks the result against pushing every sampled token's bytes
//! through the full recognizer.
//!
//! Why this file is one unit (over 600 lines): everything in it is [`ExactWalker`],
//! one recursion (`summarize` -> `unusual` -> `summarize`) over one pool of full
//! recognizer states whose slot numbers are a single invariant (`pool[2l + 1]`,
//! `pool[2l + 2]` per level, `HELD + k` for held lexeme ends, generations in `gen`
//! that keep held ends valid), with per-mask caches (acceptable-set verdicts, held
//! ends, the root re-read) that the recursion reads and fills at every boundary. A
//! split would put the slot arithmetic on one side and its only users on the other,
//! and the forced inlining below (measured in wasm) depends on these private
//! methods staying together. The lexeme-start lists it reads are in
//! `lexeme_starts.rs`, the node-by-node walk in `lexer_walk.rs` (with its cheap
//! refusal test); a language's lexical layer takes part through the hooks of
//! [`MaskLayer`] (`mask_layer.rs`; Python's f-strings in `python/`).

use std::sync::Arc;

use espalier_grammar::{
    Language, LexerDfa, Recognizer as GrammarRecognizer, TermSet, TerminalId, TokenParser,
};

use crate::lexeme_starts::{
    state_of, LexemeStarts, Lists, FIRST_DEAD, NO_ACCEPT, ROOT_REREAD, UNUSUAL,
};
use crate::lexer_walk::{LexWalker, Push};
use crate::mask_layer::{AnyLayer, MaskLayer};
use crate::{Recognizer, TokTrie, TokenSet};

/// Scratch state for exact masks, reused across steps; `L` is the language's lexical
/// layer (see [`MaskLayer`]), any of them by default.
#[derive(Clone, Debug)]
pub struct ExactWalker<P: TokenParser, L: MaskLayer<P> = AnyLayer<P>> {
    walker: LexWalker<P>,
    fallback: LexWalker<P>,
    starts: Option<Arc<LexemeStarts>>,
    /// Full states: `pool[0]` the top anchor; at recursion level `l`, `pool[2l + 1]`
    /// the state after the lexeme ending at the current boundary parent, and
    /// `pool[2l + 2]` a scratch state (line starts, unusual boundaries).
    pool: Vec<GrammarRecognizer<P>>,
    /// How many times each `pool` slot was overwritten (a held lexeme end is valid
    /// while its anchor slot keeps the generation it had).
    gen: Vec<u32>,
    /// Lexeme ends kept for reuse in this mask (the first `n_held`), addressed as
    /// slot `HELD + k` (see [`ExactWalker::summarize`]).
    held: Vec<GrammarRecognizer<P>>,
    held_keys: Vec<HeldEnd>,
    n_held: usize,
    /// Acceptable sets met in this mask (the first `n_accs`), each with its verdict
    /// per reachable-set id: 0 unknown, 1 disjoint, 2 meets.
    accs: Vec<(TermSet, Vec<u8>)>,
    n_accs: usize,
    path: Vec<u8>,
    /// The mask's state with its lexeme ended at its last accepting point (see
    /// [`ROOT_REREAD`]), and whether that was refused: `None` until a boundary asks.
    reread: GrammarRecognizer<P>,
    reread_refused: Option<bool>,
    /// The language's lexical layer, called at the mask's fixed points.
    pub(crate) layer: L,
    /// The layer's [`MaskLayer::checked_terminal`], read once per mask.
    checked: Option<TerminalId>,
    /// Lexeme starts summarized by the last walk (plus trie nodes offered one by
    /// one, when the text ends between lexemes).
    pub last_nodes: usize,
    /// Full recognizer byte steps of the last walk (the expensive part).
    pub last_heavy: usize,
}

/// Slot numbers from `HELD` on address [`ExactWalker::held`] (the pool has a few
/// slots per level of a token's length, far fewer).
const HELD: usize = 1 << 24;
/// At most this many lexeme ends are held per mask: the worst masks (expression
/// starts) hold ~110; chains of one-byte lexemes (`====`), each read from the last
/// one's end, take a slot per byte (with 64 they filled the slots before the
/// letters' NAME ends were met).
const MAX_HELD: usize = 256;

/// Names the state a lexeme is read from, for held lexeme ends: a slot and its
/// generation, or (with `LINE_START` added to the slot) the state after any first
/// content byte at a line start read from that slot (the layer decides INDENT /
/// DEDENT before it reads the byte, so the byte itself only starts the lexeme).
type AnchorKey = (usize, u32);
const LINE_START: usize = 1 << 25;
/// The key of the mask's own state after any first content byte at a line start
/// (the first byte of a token read from the root when the text ends between
/// lexemes, as at the start of a file).
const BASE_CONTENT: usize = LINE_START - 1;

/// Whether `byte`, read at a Python line start, is content (decides INDENT / DEDENT)
/// rather than indentation, a blank line or a comment.
fn is_content(byte: u8) -> bool {
    !matches!(byte, b' ' | b'\t' | b'\x0c' | b'\r' | b'\n' | b'#')
}

/// The key and outcome of a held lexeme end: the key of the state the lexeme was
/// read from, the id of the lexeme's winners ([`LexemeStarts::winners_id`]), the
/// acceptable-set id and line-start flag after it.
#[derive(Clone, Copy, Debug)]
struct HeldEnd {
    key: AnchorKey,
    wid: u32,
    acc: usize,
    line_start: bool,
}

/// What ending the lexeme at a boundary's parent gave (see [`ExactWalker::summarize`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// The lexeme cannot end there: every boundary below the parent is refused.
    Refused,
    /// An ignored lexeme (whitespace, comment) ended: nothing changed for the
    /// parser, the anchor still describes the state.
    Virtual,
    /// `pool[2l + 1]` holds the state after the lexeme.
    Real,
}

impl<P: TokenParser, L: MaskLayer<P> + Clone> ExactWalker<P, L> {
    /// A walker for recognizers like `start`; `starts` (built for the same trie and
    /// lexer) enables subtree summaries; `layer` is the language's lexical layer
    /// ([`AnyLayer::none`] for none).
    pub fn new(start: &GrammarRecognizer<P>, starts: Option<Arc<LexemeStarts>>, layer: L) -> Self {
        Self {
            walker: LexWalker::new(start),
            fallback: LexWalker::new(start),
            starts,
            pool: vec![start.clone()],
            gen: vec![0],
            held: Vec::new(),
            held_keys: Vec::new(),
            n_held: 0,
            accs: Vec::new(),
            n_accs: 0,
            path: Vec::new(),
            reread: start.clone(),
            reread_refused: None,
            layer,
            checked: None,
            last_nodes: 0,
            last_heavy: 0,
        }
    }

    /// Sets `mask` to exactly the non-special tokens whose bytes keep `state` viable.
    pub fn fill(&mut self, state: &GrammarRecognizer<P>, trie: &TokTrie, mask: &mut TokenSet) {
        self.fill_reps(state, trie, mask);
        trie.add_duplicates(mask);
    }

    /// [`Self::fill`] without the duplicate ids (tokens whose bytes another id has).
    pub(crate) fn fill_reps(
        &mut self,
        state: &GrammarRecognizer<P>,
        trie: &TokTrie,
        mask: &mut TokenSet,
    ) {
        mask.clear();
        // Hook 1: the layer decides this mask itself (Python: inside an f-string's
        // replacement field).
        if self.layer.decides(state) {
            self.last_heavy = self.layer.fill_inside(state, trie, self.starts.as_ref(), mask);
            self.last_nodes = 0;
            return;
        }
        // Hook 2: lexeme ends of this terminal are not held (see `summarize`).
        self.checked = self.layer.checked_terminal();
        self.walker.reset(state);
        self.last_heavy = 0;
        self.last_nodes = 0;
        self.n_accs = 0;
        self.n_held = 0;
        self.reread_refused = None;
        self.gen[0] += 1;
        let q = state.remainder().dfa_state;
        // Passed down rather than taken from a slot in every summary (an Arc clone).
        let lang = state.language().clone();
        match self.starts.clone() {
            Some(starts) if q != LexerDfa::START && starts.root(q).is_some() => {
                // The text ends inside a lexeme (the usual case): the root is one more
                // lexeme start, summarized per remainder state. `pool[0]` keeps the
                // mask's state throughout (see `reread_refused`).
                self.pool[0].clone_from(state);
                let acc = self.intern(0, &starts);
                if let Some(part) = starts.root(q) {
                    let key = self.key_of(0);
                    self.summarize(0, part.lists(), 0, 0, key, acc, trie, &lang, &starts, mask);
                }
            }
            Some(_) if q != LexerDfa::START => {
                self.last_nodes = trie.walk(&mut self.walker, mask);
                self.last_heavy = self.walker.heavy_steps;
            }
            None => {
                self.last_nodes = trie.walk(&mut self.walker, mask);
                self.last_heavy = self.walker.heavy_steps;
            }
            Some(starts) => self.walk_from_start(state, trie, &lang, &starts, mask),
        }
        // Hook 3: the layer re-checks what the light paths could not judge.
        self.last_heavy += self.layer.after_walk(state, trie, mask);
        for (id, bytes) in trie.long_tokens() {
            let mut s = state.clone();
            if s.try_push_bytes(bytes) {
                mask.insert(*id as usize);
            }
        }
    }

    /// The walk of a mask at the lexer's start state (the text ends between lexemes):
    /// the trie's first bytes node by node, each lexeme start below summarized.
    fn walk_from_start(
        &mut self,
        state: &GrammarRecognizer<P>,
        trie: &TokTrie,
        lang: &Arc<Language>,
        starts: &Arc<LexemeStarts>,
        mask: &mut TokenSet,
    ) {
        let end = trie.node_count();
        let mut i = 1;
        let mut nodes = 0;
        while i < end {
            let (byte, tok, size, pops) = trie.node_info(i);
            nodes += 1;
            match self.walker.push_kind(byte) {
                Push::Rejected => {
                    self.walker.pop_bytes(pops - 1);
                    i += size;
                }
                Push::Heavy(true) => {
                    if let Some(f) = self.walker.top_full() {
                        self.pool[0].clone_from(f);
                        self.gen[0] += 1;
                    }
                    let acc = self.intern(0, starts);
                    // At a line start (a file's first mask), every first content
                    // byte leaves the same parser and layer state behind it.
                    let key = if starts.parent(i) == 0 && state.at_line_start() && is_content(byte)
                    {
                        (BASE_CONTENT, 0)
                    } else {
                        self.key_of(0)
                    };
                    self.summarize(0, starts.lists(i), 0, i, key, acc, trie, lang, starts, mask);
                    self.walker.pop_bytes(pops);
                    i += size;
                }
                Push::Light | Push::Heavy(false) => {
                    if tok != u32::MAX {
                        mask.insert(tok as usize);
                    }
                    if size == 1 {
                        self.walker.pop_bytes(pops);
                    }
                    i += 1;
                }
            }
        }
        self.last_nodes += nodes;
        self.last_heavy += self.walker.heavy_steps;
    }

    /// The id of `pool[slot]`'s acceptable set among those met in this mask.
    #[inline(always)]
    fn intern(&mut self, slot: usize, starts: &LexemeStarts) -> usize {
        let set = if slot >= HELD { &self.held[slot - HELD] } else { &self.pool[slot] }
            .acceptable_terminals();
        if let Some(k) = self.accs[..self.n_accs].iter().position(|(s, _)| s == set) {
            return k;
        }
        let k = self.n_accs;
        if k == self.accs.len() {
            self.accs.push((*set, Vec::new()));
        } else {
            self.accs[k].0.clone_from(set);
        }
        let verdicts = &mut self.accs[k].1;
        verdicts.clear();
        verdicts.resize(starts.sets.len(), 0);
        self.n_accs += 1;
        k
    }

    /// Whether ending the mask's own lexeme at its last accepting point (and
    /// re-reading the rest of it) is refused, which refuses every [`ROOT_REREAD`]
    /// boundary: the recognizer does exactly that there before it reads the path.
    /// Decided once per mask, on `pool[0]` (the mask's state in a root walk, the
    /// only one whose lists carry the flag).
    fn reread_refused(&mut self) -> bool {
        if let Some(refused) = self.reread_refused {
            return refused;
        }
        self.reread.clone_from(&self.pool[0]);
        self.last_heavy += 1;
        let refused = !self.reread.end_lexeme();
        self.reread_refused = Some(refused);
        refused
    }

    /// Whether reachable set `sid` meets acceptable set `acc` (cached).
    #[inline]
    fn meets(&mut self, acc: usize, sid: u16, starts: &LexemeStarts) -> bool {
        let (set, verdicts) = &mut self.accs[acc];
        let v = &mut verdicts[sid as usize];
        if *v == 0 {
            *v = 1 + u8::from(starts.sets[sid as usize].intersects(set));
        }
        *v == 2
    }

    /// Makes `pool[dst]` the full state at trie node `to`: `pool[anchor]` (the state
    /// at node `anchor_node`) plus the path bytes down to `to`. `false` if the
    /// recognizer refuses them (only an f-string's closing quote over invalid fields,
    /// which the light reasoning cannot see; treated as refused).
    // Forced inline, with `copy_slot`, `intern` and `LexemeStarts::lists` /
    // `path_bytes`: V8 inlines no wasm call, and LLVM left these out of `summarize`
    // (in node they cost 2-2.7x native; forced: node steady p99 -5%, p99 ratio
    // 1.39-1.42 -> 1.28-1.32, results/masks/README.md).
    #[inline(always)]
    fn materialize(
        &mut self,
        dst: usize,
        anchor: usize,
        anchor_node: usize,
        to: usize,
        starts: &LexemeStarts,
    ) -> bool {
        self.copy_slot(dst, anchor);
        self.path.clear();
        starts.path_bytes(anchor_node, to, &mut self.path);
        self.last_heavy += self.path.len();
        let path = std::mem::take(&mut self.path);
        let ok = self.slot_mut(dst).try_push_bytes(&path);
        self.path = path;
        debug_assert!(
            ok || self.path.iter().any(|&b| b == b'"' || b == b'\''),
            "light path refused by the recognizer"
        );
        ok
    }

    /// Makes `pool[dst]` the state at trie node `to` of a root walk whose boundary
    /// below `to` is [`ROOT_REREAD`], minus the re-reading that boundary's byte would
    /// start: the recognizer would read the path's bytes inside the mask's lexeme,
    /// end that lexeme at its last accepting point (none on the path) and re-read
    /// the rest of it plus the path; `reread` (computed once per mask by
    /// [`Self::reread_refused`], which must have said `false`) is the state after the
    /// first part of that re-reading, so only the path is read here. Inside a
    /// docstring, where `"" "..."` keeps such boundaries alive, this replaced a
    /// re-reading of the whole string per boundary. `false` if the path is refused.
    #[inline(never)]
    fn after_reread(&mut self, dst: usize, to: usize, starts: &LexemeStarts) -> bool {
        debug_assert_eq!(self.reread_refused, Some(false));
        self.gen[dst] += 1;
        self.pool[dst].clone_from(&self.reread);
        self.path.clear();
        starts.path_bytes(0, to, &mut self.path);
        self.last_heavy += self.path.len();
        let path = std::mem::take(&mut self.path);
        let ok = self.pool[dst].try_push_bytes(&path);
        self.path = path;
        ok
    }

    /// The state in slot `i` (a `pool` slot, or `HELD + k`).
    fn slot(&self, i: usize) -> &GrammarRecognizer<P> {
        if i >= HELD {
            &self.held[i - HELD]
        } else {
            &self.pool[i]
        }
    }

    /// The state in slot `i`, to overwrite (a `pool` slot's generation moves on).
    fn slot_mut(&mut self, i: usize) -> &mut GrammarRecognizer<P> {
        if i >= HELD {
            &mut self.held[i - HELD]
        } else {
            self.gen[i] += 1;
            &mut self.pool[i]
        }
    }

    /// Copies slot `src` into slot `dst` (`dst != src`).
    #[inline(always)]
    fn copy_slot(&mut self, dst: usize, src: usize) {
        fn two<T>(v: &mut [T], dst: usize, src: usize) -> (&mut T, &T) {
            if src < dst {
                let (lo, hi) = v.split_at_mut(dst);
                (&mut hi[0], &lo[src])
            } else {
                let (lo, hi) = v.split_at_mut(src);
                (&mut lo[dst], &hi[0])
            }
        }
        match (dst >= HELD, src >= HELD) {
            (false, false) => {
                self.gen[dst] += 1;
                let (d, s) = two(&mut self.pool, dst, src);
                d.clone_from(s);
            }
            (false, true) => {
                self.gen[dst] += 1;
                self.pool[dst].clone_from(&self.held[src - HELD]);
            }
            (true, false) => self.held[dst - HELD].clone_from(&self.pool[src]),
            (true, true) => {
                let (d, s) = two(&mut self.held, dst - HELD, src - HELD);
                d.clone_from(s);
            }
        }
    }

    /// The key of the state in slot `i` for held lexeme ends: the slot and its
    /// generation.
    fn key_of(&self, i: usize) -> AnchorKey {
        (i, if i >= HELD { 0 } else { self.gen[i] })
    }

    /// The slot holding the end, with winners `wid`, of the lexeme read from the
    /// anchor with key `key`, if held (see [`Self::summarize`]).
    fn find_held(&self, key: AnchorKey, wid: u32) -> Option<(usize, HeldEnd)> {
        self.held_keys[..self.n_held]
            .iter()
            .position(|h| h.key == key && h.wid == wid)
            .map(|k| (HELD + k, self.held_keys[k]))
    }

    /// Decides the subtree below a node `n` where a lexeme starts, from `n`'s
    /// `lists`; the full state after `n`'s byte is `pool[anchor]` plus the path bytes
    /// from `anchor_node` down to `n` (light steps: the acceptable set is
    /// `accs[acc]`).
    ///
    /// Over 80 lines on purpose (issue 32): the exact walk's recursive core, run for
    /// every lexeme-start node a mask reaches (thousands per mask); its loop carries
    /// the boundary parent in hand and what ending its lexeme gave (five locals)
    /// from one boundary to the next, which a split would pass back and forth by
    /// reference on every boundary.
    #[allow(clippy::too_many_arguments)]
    fn summarize(
        &mut self,
        level: usize,
        lists: Lists<'_>,
        anchor: usize,
        anchor_node: usize,
        key: AnchorKey,
        acc: usize,
        trie: &TokTrie,
        lang: &Language,
        starts: &LexemeStarts,
        mask: &mut TokenSet,
    ) {
        self.last_nodes += 1;
        while self.pool.len() < 2 * level + 3 {
            let s = self.pool[0].clone();
            self.pool.push(s);
            self.gen.push(0);
        }
        // Tokens staying in the lexeme come grouped by reachable set: one test per
        // group, big groups as one bitset union.
        for g in lists.g0..lists.g1 {
            if self.meets(acc, lists.groups.sid(g), starts) {
                lists.groups.add_to(g, mask);
            }
        }
        if lists.bound_node.is_empty() {
            return;
        }
        let (e_slot, scratch) = (2 * level + 1, 2 * level + 2);
        let dfa = &*lang.dfa;
        let string = self.checked;
        let anchor_at_line_start = self.slot(anchor).at_line_start();
        // The boundary parent whose lexeme end is in hand, and what it gave.
        let mut cur = usize::MAX;
        let mut ended = Ended::Refused;
        let mut e_acc = acc;
        let mut e_line_start = false;
        // At a line start: the acceptable set after the first content byte (the same
        // for every content byte: indentation is decided before the byte is read).
        let mut content_acc: Option<usize> = None;
        // The slot holding the state after the lexeme end in hand.
        let mut e_src = e_slot;
        for (&m, &entry) in lists.bound_node.iter().zip(lists.bound_state) {
            if entry & NO_ACCEPT != 0 {
                continue; // nothing to end the lexeme at: refused
            }
            let pq = state_of(entry);
            // The light path down to the parent must be viable.
            if !self.meets(acc, starts.set_of(pq), starts) {
                continue;
            }
            let m = m as usize;
            let p = starts.parent(m);
            if entry & UNUSUAL != 0 {
                let reread = entry & ROOT_REREAD != 0;
                if reread && self.reread_refused() {
                    continue;
                }
                // The lexer would back up and re-read: let the recognizer decide.
                self.unusual(level, m, p, anchor, anchor_node, reread, trie, lang, starts, mask);
                continue;
            }
            if entry & FIRST_DEAD != 0 {
                // No lexeme starts with the boundary byte (checked before ending the
                // lexeme at the parent, which this boundary then does not need).
                continue;
            }
            let byte = starts.byte_of(m);
            if p != cur {
                let winners = dfa.winners(pq);
                cur = p;
                content_acc = None;
                let acceptable = &self.accs[acc].0;
                // Held lexeme ends: ending the lexeme read from one anchor at another
                // parent with the same winners gives an equivalent state (the parser
                // and the layer see only the terminals; the lexer is back at START
                // with nothing pending, as the boundary is clean: the DFA dies on
                // the next byte). Not held: the layer's checked terminal (Python's
                // STRING: its f-string fields are checked on the text) and ignored lexemes, NL included (at a line start the
                // layer counts the indentation's columns). At an expression start
                // this saves a path replay and a parser step for each of hundreds of
                // NAME-prefix parents, across sibling summaries too.
                let wid = starts.winners_id(pq);
                ended = if let Some((k, h)) = self.find_held(key, wid) {
                    e_src = k;
                    e_acc = h.acc;
                    e_line_start = h.line_start;
                    Ended::Real
                } else if !winners.iter().any(|&t| acceptable.contains(t)) {
                    Ended::Refused
                } else if !anchor_at_line_start
                    && winners
                        .iter()
                        .all(|&t| lang.ignored.contains(t) && !lang.is_layout_newline(t))
                {
                    e_acc = acc;
                    e_line_start = false;
                    Ended::Virtual
                } else {
                    let hold = self.n_held < MAX_HELD
                        && !winners.iter().any(|&t| {
                            Some(t) == string
                                || lang.is_layout_newline(t)
                                || lang.ignored.contains(t)
                        });
                    e_src = if hold { HELD + self.n_held } else { e_slot };
                    if hold && self.held.len() == self.n_held {
                        let s = self.pool[0].clone();
                        self.held.push(s);
                        self.held_keys.push(HeldEnd {
                            key: (0, 0),
                            wid: 0,
                            acc: 0,
                            line_start: false,
                        });
                    }
                    if self.materialize(e_src, anchor, anchor_node, p, starts)
                        && self.slot_mut(e_src).end_lexeme()
                    {
                        self.last_heavy += 1;
                        e_acc = self.intern(e_src, starts);
                        e_line_start = self.slot(e_src).at_line_start();
                        if hold {
                            self.held_keys[self.n_held] =
                                HeldEnd { key, wid, acc: e_acc, line_start: e_line_start };
                            self.n_held += 1;
                        }
                        Ended::Real
                    } else {
                        Ended::Refused
                    }
                };
            }
            if ended == Ended::Refused {
                continue;
            }
            let first = dfa.next(LexerDfa::START, byte);
            let content = is_content(byte);
            if e_line_start && content {
                // Python's indentation decides INDENT / DEDENT now.
                if let Some(c) = content_acc {
                    if !dfa.reachable(first).intersects(&self.accs[c].0) {
                        continue;
                    }
                }
                self.copy_slot(scratch, e_src);
                self.last_heavy += 1;
                if !self.slot_mut(scratch).try_push_byte(byte) {
                    continue;
                }
                let a2 = self.intern(scratch, starts);
                content_acc.get_or_insert(a2);
                let (src, gen) = self.key_of(e_src);
                self.summarize(
                    level + 1,
                    starts.lists(m),
                    scratch,
                    m,
                    (src + LINE_START, gen),
                    a2,
                    trie,
                    lang,
                    starts,
                    mask,
                );
                continue;
            }
            if !dfa.reachable(first).intersects(&self.accs[e_acc].0) {
                continue;
            }
            let (a, an, k) = if ended == Ended::Virtual {
                (anchor, anchor_node, key)
            } else {
                (e_src, p, self.key_of(e_src))
            };
            self.summarize(level + 1, starts.lists(m), a, an, k, e_acc, trie, lang, starts, mask);
        }
    }

    /// A boundary the lists cannot decide alone (the lexer backs up and re-reads
    /// bytes there): the full recognizer takes the boundary byte; the subtree below is
    /// summarized if a lexeme starts exactly there, else walked node by node.
    /// `reread`: a [`ROOT_REREAD`] boundary (root summary, not refused).
    #[allow(clippy::too_many_arguments)]
    fn unusual(
        &mut self,
        level: usize,
        m: usize,
        p: usize,
        anchor: usize,
        anchor_node: usize,
        reread: bool,
        trie: &TokTrie,
        lang: &Language,
        starts: &LexemeStarts,
        mask: &mut TokenSet,
    ) {
        let scratch = 2 * level + 2;
        let ready = if reread {
            self.after_reread(scratch, p, starts)
        } else {
            self.materialize(scratch, anchor, anchor_node, p, starts)
        };
        if !ready {
            return;
        }
        let (byte, tok, _, _) = trie.node_info(m);
        self.last_heavy += 1;
        if !self.slot_mut(scratch).try_push_byte(byte) {
            return;
        }
        if self.pool[scratch].remainder().len == 1 {
            let a2 = self.intern(scratch, starts);
            let key = self.key_of(scratch);
            self.summarize(
                level + 1,
                starts.lists(m),
                scratch,
                m,
                key,
                a2,
                trie,
                lang,
                starts,
                mask,
            );
        } else {
            if tok != u32::MAX {
                mask.insert(tok as usize);
            }
            self.fallback.reset(&self.pool[scratch]);
            trie.walk_below(m, &mut self.fallback, mask);
            self.last_heavy += self.fallback.heavy_steps;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::{GrammarConstraint, MaskKit, Strategy, TokTrie, Vocab};

    /// Tokens that end a NAME (or keyword) under many first bytes, as at an
    /// expression start, plus indentation, strings, f-strings and comments: where
    /// held lexeme ends and the eagerly built root summaries are used.
    fn vocab() -> Vocab {
        let mut tokens: Vec<Vec<u8>> = vec![b"<eos>".to_vec()];
        let heads = [
            "a", "ab", "b", "if", "in", "is", "not", "x", "self", "f", "rb", "return", "y", " x",
            " a",
        ];
        let tails = [
            "", "(", ".", " ", ")", ":", ",", " =", "\n", "\n    ", "'", "\"\"\"", " +", "[", "(x",
            "}'",
        ];
        for h in heads {
            for t in tails {
                tokens.push(format!("{h}{t}").into_bytes());
            }
        }
        for w in [
            "'", "'ab'", "f'", "{", "}", "'''", "\"", "\"\"\"", "\\", "#c\n", " ", "    ",
            "        ", "\n", "\n\n", "=", "+", "1", "1)", "(1", "d", "e", "def",
        ] {
            tokens.push(w.as_bytes().to_vec());
        }
        // Bytes that end a string unusually (no UTF-8 text has them, or not there):
        // inside `"""d` the lexer backs up to `""` and re-reads (see `ROOT_REREAD`).
        for w in [&b"\xff"[..], b"d\xff", b"x\"\xc3", b"\xc3\"", b"d\"\"\xff", b"\n\xff"] {
            tokens.push(w.to_vec());
        }
        Vocab::new(tokens, &[0], 0)
    }

    #[test]
    fn exact_masks_equal_checking_each_token_on_python() {
        let lang = espalier_grammar::python().expect("the Python grammar compiles");
        let vocab = vocab();
        let kit = MaskKit::new(lang, Arc::new(TokTrie::new(&vocab)));
        // One root summary per class of equivalent lexer states, all built at once:
        // the count is checked against Hopcroft's classes in `tests/it/root_summaries.rs`.
        let starts = kit.lexeme_starts().expect("summaries");
        assert!(starts.roots_built() > 0);
        let mut c = GrammarConstraint::new(&kit, Strategy::Exact, "python-lr");
        let text = "def f(a, b):\n    x = a + b\n    if x:\n        return f'{x}'\n    y = [self.x, (1), 'ab', \"\"\"d\"\"\"]  #c\n\n    return y\n";
        crate::grammar_constraint::assert_exact_is_check_along(&mut c, &vocab, text.as_bytes());
    }
}
