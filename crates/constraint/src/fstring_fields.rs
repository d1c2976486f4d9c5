//! Exact masks inside Python f-strings, whose replacement fields the grammar crate's
//! recognizer checks byte by byte (`recognizer/fstring_field.rs` there): the trie
//! walk's light paths ([`crate::lexer_walk`], [`crate::lexeme_starts`]) decide bytes
//! inside a lexeme from the lexer DFA alone, which knows nothing of fields.
//!
//! Where the text stands decides the method ([`FieldView`]):
//! - inside a field's expression (or right after a level-0 `{`): the expression is
//!   Python again, so the exact mask of the field's nested recognizer (`(` and the
//!   expression, walked with the usual summaries; right after the `{`, where that
//!   recognizer is always the same, a copy of the mask the trie keeps:
//!   [`crate::field_start_mask`]) decides every token whose bytes
//!   only feed that recognizer. The few that can do more ([`special`]: quotes, `\`,
//!   `#`, a newline in a one-quote literal, and where they can reach the field's
//!   bracket depth 0 `:` `!` `=` `}` `)` `]`) are decided by the full recognizer,
//!   after two cheap refusals: the bytes before their first such byte must be
//!   viable for the nested recognizer (one walk over a small trie of those
//!   prefixes), and some first bytes are refused outright (`\`, `#`, `)` at depth 0);
//! - in literal text: the usual walk, then the tokens holding `{`, `}` or `\` (and
//!   `N` first after a `\`) re-checked in full;
//! - elsewhere in a field (after `!`, `=`, a conversion, `\N`, a single `}`): a walk
//!   node by node on the full recognizer, which refuses nearly every first byte there;
//! - outside f-strings: the tokens that open one and hold field bytes after its
//!   quote, re-checked in full (and those starting with a quote after a text ending in
//!   a possible prefix, `f` or `rf`).
//!
//! The oracle test is `tests/fstring_masks.rs` (every token's bytes pushed through
//! the recognizer, at every byte of real f-strings and at broken fields).

use std::sync::Arc;

use espalier_grammar::recognizer::{FieldExprView, FieldView};
use espalier_grammar::{LrParser, Recognizer as GrammarRecognizer, TokenParser};

use crate::exact::ExactWalker;
use crate::field_start_mask::FieldStartMasks;
use crate::lexeme_starts::LexemeStarts;
use crate::lexer_walk::LexWalker;
use crate::mask_memo::MaskMemo;
use crate::{StackRecognizer, TokTrie, TokenSet, Vocab};

/// Byte classes that can make a field refuse what its nested recognizer takes.
const QUOTE: u8 = 1;
const BACKSLASH: u8 = 2;
const HASH: u8 = 4;
const NEWLINE: u8 = 8;
const OPEN_BRACE: u8 = 16;
const CLOSE_BRACE: u8 = 32;
const CLOSER: u8 = 64; // `)` `]`
const BREAK: u8 = 128; // `:` `!` `=`

fn class(b: u8) -> u8 {
    match b {
        b'"' | b'\'' => QUOTE,
        b'\\' => BACKSLASH,
        b'#' => HASH,
        b'\n' | b'\r' => NEWLINE,
        b'{' => OPEN_BRACE,
        b'}' => CLOSE_BRACE,
        b')' | b']' => CLOSER,
        b':' | b'!' | b'=' => BREAK,
        _ => 0,
    }
}

/// A token with a byte of some class.
#[derive(Clone, Copy, Debug)]
struct Cand {
    id: u32,
    start: u32,
    bits: u8,
    /// The largest count of closers minus openers before a byte that acts at the
    /// field's depth 0 (`:` `!` `=` `}` `)` `]`): the token can reach depth 0 with
    /// such a byte from depth `d` iff `reach >= d` (`i16::MIN`: no such byte).
    reach: i16,
    /// Index of its bytes before the first classed byte in `prefixes` (`NONE` when
    /// that part is empty).
    prefix: u32,
    /// Opens an f-string (a quote after `f`-prefix letters) with classed bytes after.
    own: bool,
    /// Starts with up to two prefix letters and a quote, with `{` `}` `\` after it.
    lead_quote: bool,
    /// Starts with `N`.
    n_first: bool,
}

const NONE: u32 = u32::MAX;

/// The vocabulary's tokens that f-string fields may decide differently from their
/// nested recognizer (built from the trie on the first mask inside an f-string).
#[derive(Debug)]
pub(crate) struct FieldTokens {
    cands: Vec<Cand>,
    bytes: Vec<u8>,
    /// The distinct bytes before the first classed byte, as a trie.
    prefixes: TokTrie,
    n_prefixes: usize,
    /// Indices into `cands`: tokens with `{` `}` `\` or `N` first (literal text),
    /// tokens opening an f-string with field bytes, tokens starting with a quote
    /// (after at most two prefix letters) with field bytes.
    literal: Vec<u32>,
    own: Vec<u32>,
    lead: Vec<u32>,
}

impl FieldTokens {
    pub(crate) fn new(trie: &TokTrie) -> Self {
        let mut cands = Vec::new();
        let mut bytes = Vec::new();
        let mut prefix_ids: std::collections::HashMap<Vec<u8>, u32> =
            std::collections::HashMap::new();
        let mut prefix_list: Vec<Vec<u8>> = Vec::new();
        let mut add = |id: u32, tok: &[u8]| {
            let bits = tok.iter().fold(0u8, |a, &b| a | class(b));
            if bits == 0 && tok.first() != Some(&b'N') {
                return; // (`N` first: after a `\\` in literal text, `\\N` needs `{`)
            }
            let first = tok.iter().position(|&b| class(b) != 0).unwrap_or(tok.len());
            let prefix = if first == 0 || first == tok.len() {
                NONE
            } else {
                let p = tok[..first].to_vec();
                let n = prefix_list.len() as u32;
                *prefix_ids.entry(p.clone()).or_insert_with(|| {
                    prefix_list.push(p);
                    n
                })
            };
            let (mut r, mut reach) = (0i16, i16::MIN);
            for &b in tok {
                if class(b) & (CLOSE_BRACE | CLOSER | BREAK) != 0 {
                    reach = reach.max(r);
                }
                match b {
                    b')' | b']' | b'}' => r += 1,
                    b'(' | b'[' | b'{' => r -= 1,
                    _ => {}
                }
            }
            let field_bytes = |from: usize| {
                tok[from..].iter().any(|&b| class(b) & (OPEN_BRACE | CLOSE_BRACE | BACKSLASH) != 0)
            };
            let own = (0..tok.len()).any(|i| {
                is_quote(tok[i]) && fstring_prefix_before(&tok[..i]) && field_bytes(i + 1)
            });
            let letters = tok.iter().take_while(|&&b| is_prefix_letter(b)).count();
            let lead_quote = letters <= 2
                && tok.get(letters).copied().is_some_and(is_quote)
                && field_bytes(letters + 1);
            let n_first = tok.first() == Some(&b'N');
            cands.push(Cand {
                id,
                start: bytes.len() as u32,
                bits,
                reach,
                prefix,
                own,
                lead_quote,
                n_first,
            });
            bytes.extend_from_slice(tok);
        };
        for (id, tok) in trie_tokens(trie) {
            add(id, &tok);
        }
        let sentinel = bytes.len() as u32;
        cands.push(Cand {
            id: NONE,
            start: sentinel,
            bits: 0,
            reach: 0,
            prefix: NONE,
            own: false,
            lead_quote: false,
            n_first: false,
        });
        let pick = |f: &dyn Fn(&Cand) -> bool| {
            (0..cands.len() - 1).filter(|&k| f(&cands[k])).map(|k| k as u32).collect::<Vec<u32>>()
        };
        let literal = pick(&|c| c.bits & (OPEN_BRACE | CLOSE_BRACE | BACKSLASH) != 0 || c.n_first);
        let own = pick(&|c| c.own);
        let lead = pick(&|c| c.lead_quote);
        let n_prefixes = prefix_list.len();
        let prefixes = TokTrie::new(&Vocab::new(prefix_list, &[], u32::MAX));
        FieldTokens { cands, bytes, prefixes, n_prefixes, literal, own, lead }
    }

    fn bytes_of(&self, k: usize) -> &[u8] {
        &self.bytes[self.cands[k].start as usize..self.cands[k + 1].start as usize]
    }

    fn len(&self) -> usize {
        self.cands.len() - 1
    }
}

/// Every (id, bytes) of the trie's tokens (duplicates aside: one id per byte string)
/// that hold a classed byte or start with `N`: one preorder pass, copying only those.
fn trie_tokens(trie: &TokTrie) -> Vec<(u32, Vec<u8>)> {
    let mut out = Vec::new();
    let mut path: Vec<u8> = Vec::new();
    // Per depth: subtree end and the classes of the path down to it.
    let mut ends: Vec<(usize, u8)> = Vec::new();
    let n = trie.node_count();
    for i in 1..n {
        while ends.last().is_some_and(|&(e, _)| e <= i) {
            ends.pop();
            path.pop();
        }
        let (byte, tok, size, _) = trie.node_info(i);
        let bits = ends.last().map_or(0, |&(_, b)| b) | class(byte);
        path.push(byte);
        ends.push((i + size, bits));
        if tok != u32::MAX && (bits != 0 || path[0] == b'N') {
            out.push((tok, path.clone()));
        }
    }
    out.extend(trie.long_tokens().iter().cloned());
    out
}

fn is_quote(b: u8) -> bool {
    b == b'"' || b == b'\''
}

fn is_prefix_letter(b: u8) -> bool {
    matches!(b, b'f' | b'F' | b'r' | b'R')
}

/// Whether the bytes before a quote end in string prefix letters holding an `f`.
fn fstring_prefix_before(before: &[u8]) -> bool {
    let letters = before.iter().rev().take_while(|&&b| is_prefix_letter(b)).count().min(2);
    before[before.len() - letters..].iter().any(|&b| b == b'f' || b == b'F')
}

/// Where a field's expression stands, for [`Spot::special`] (a [`FieldExprView`]
/// without its recognizer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Spot {
    depth: u32,
    in_string: bool,
    open_brace: bool,
    triple: bool,
}

impl Spot {
    fn of(v: &FieldExprView<'_>) -> Self {
        Spot { depth: v.depth, in_string: v.in_string, open_brace: v.open_brace, triple: v.triple }
    }

    /// The spot right after a level-0 `{` (where the nested recognizer is fresh), in
    /// a one-quote or (`triple`) a triple-quoted literal.
    pub(crate) fn field_start(triple: bool) -> Self {
        Spot { depth: 0, in_string: false, open_brace: true, triple }
    }

    /// The spot inside a field's expression at bracket depth 0, outside strings.
    pub(crate) fn in_expression(triple: bool) -> Self {
        Spot { depth: 0, in_string: false, open_brace: false, triple }
    }

    /// Whether candidate `c` may be decided differently by the field than by the
    /// nested recognizer here.
    fn special(&self, c: &Cand) -> bool {
        c.bits & (QUOTE | BACKSLASH) != 0
            || (!self.triple && c.bits & NEWLINE != 0)
            || (self.open_brace && c.bits & OPEN_BRACE != 0)
            || (!self.in_string && (c.bits & HASH != 0 || c.reach >= self.depth as i16))
    }
}

/// Whether `c`'s first classed byte (after its prefix) surely makes the field refuse it.
fn surely_refused(c: &Cand, bytes: &[u8], v: &Spot) -> bool {
    let Some(k) = bytes.iter().position(|&b| class(b) != 0) else { return false };
    if !v.triple && c.bits & NEWLINE != 0 {
        // A newline in a one-quote literal, before any quote could have closed it.
        let q = bytes.iter().position(|&b| is_quote(b)).unwrap_or(bytes.len());
        if bytes[..q].iter().any(|&b| class(b) == NEWLINE) {
            return true;
        }
    }
    let openers = bytes[..k].iter().filter(|&&b| matches!(b, b'(' | b'[' | b'{')).count();
    match class(bytes[k]) {
        BACKSLASH => true,
        HASH => !v.in_string,
        NEWLINE => !v.triple,
        CLOSER => !v.in_string && v.depth == 0 && openers == 0,
        _ => false,
    }
}

/// Scratch for masks inside f-strings, kept by an [`ExactWalker`].
#[derive(Clone, Debug)]
pub(crate) struct FieldMasks<P: TokenParser> {
    tokens: Option<Arc<FieldTokens>>,
    /// The exact walk of a field's nested recognizer (and so on, for f-strings
    /// nested in fields).
    child: Option<Box<ExactWalker<LrParser>>>,
    prefix_walker: Option<LexWalker<LrParser>>,
    full_outer: Option<StackRecognizer<GrammarRecognizer<P>>>,
    full_nested: Option<StackRecognizer<GrammarRecognizer<LrParser>>>,
    scratch: Option<GrammarRecognizer<P>>,
    head: Option<GrammarRecognizer<P>>,
    fresh: Option<GrammarRecognizer<LrParser>>,
    /// The nested masks at a fresh field (the trie's, see [`crate::field_start_mask`]).
    start_masks: Option<Arc<FieldStartMasks>>,
    /// The child's last masks per spot (most recent last), reused where the nested
    /// recognizer accepts the same continuations as at one of them.
    memos: Vec<(Spot, MaskMemo<LrParser>)>,
    pmask: TokenSet,
    /// Full recognizer re-checks of the last mask.
    pub(crate) last_rechecks: usize,
}

impl<P: TokenParser> FieldMasks<P> {
    pub(crate) fn new() -> Self {
        FieldMasks {
            tokens: None,
            child: None,
            prefix_walker: None,
            full_outer: None,
            full_nested: None,
            scratch: None,
            head: None,
            fresh: None,
            start_masks: None,
            memos: Vec::new(),
            pmask: TokenSet::empty(0),
            last_rechecks: 0,
        }
    }

    /// Scratch made ready at setup (Python constraints): the trie's masks at a fresh
    /// field and a child walker with its scratch grown (see [`crate::field_start_mask`]).
    pub(crate) fn prepared(trie: &TokTrie, lang: &Arc<espalier_grammar::Language>) -> Self {
        let masks = trie.field_start_masks(lang);
        let mut fields = Self::new();
        fields.tokens = Some(trie.quote_ends().field_tokens(trie));
        fields.child = Some(Box::new(masks.warm_child()));
        fields.start_masks = Some(masks);
        fields
    }

    fn tokens(&mut self, trie: &TokTrie) -> Arc<FieldTokens> {
        // Once per trie (the trie keeps it with its quote-ending tokens).
        self.tokens.get_or_insert_with(|| trie.quote_ends().field_tokens(trie)).clone()
    }

    /// Whether `state` is where only this module decides (a field's expression, or
    /// elsewhere in a field): then [`Self::fill_inside`] computes the whole mask.
    pub(crate) fn decides(state: &GrammarRecognizer<P>) -> bool {
        matches!(state.fstring_view(), FieldView::Expr(_) | FieldView::Other)
    }

    /// The mask (representatives only: no duplicates added) for a state inside a
    /// field (see [`Self::decides`]).
    /// `parent`: the mask is a field's nested recognizer's, for a parent field that
    /// re-checks the tokens special at this spot itself (their verdicts here are not
    /// used, so they are left out).
    pub(crate) fn fill_inside(
        &mut self,
        state: &GrammarRecognizer<P>,
        trie: &TokTrie,
        starts: Option<Arc<LexemeStarts>>,
        parent: Option<Spot>,
        mask: &mut TokenSet,
    ) {
        self.last_rechecks = 0;
        match state.fstring_view() {
            FieldView::Expr(v) if v.depth < 150 => {
                self.fill_expr(state, v, trie, starts, parent, mask)
            }
            _ => self.fill_full(state, trie, mask),
        }
    }

    /// Node by node on the full recognizer (exact, no light path).
    fn fill_full(&mut self, state: &GrammarRecognizer<P>, trie: &TokTrie, mask: &mut TokenSet) {
        mask.clear();
        let w = self.full_outer.get_or_insert_with(|| StackRecognizer::new(state.clone()));
        w.reset(state);
        self.last_rechecks += trie.walk(w, mask);
        let scratch = self.scratch.get_or_insert_with(|| state.clone());
        for (id, bytes) in trie.long_tokens() {
            scratch.clone_from(state);
            if scratch.try_push_bytes(bytes) {
                mask.insert(*id as usize);
            }
        }
    }

    fn fill_expr(
        &mut self,
        state: &GrammarRecognizer<P>,
        v: FieldExprView<'_>,
        trie: &TokTrie,
        starts: Option<Arc<LexemeStarts>>,
        parent: Option<Spot>,
        mask: &mut TokenSet,
    ) {
        let spot = Spot::of(&v);
        let tokens = self.tokens(trie);
        let nested: &GrammarRecognizer<LrParser> = match v.nested {
            Some(n) => {
                // Inside a name, and at the same expression state in another field, the
                // child's mask is one computed before (see `memo_for`).
                let memo = memo_for(&mut self.memos, spot);
                if !memo.recall(n, mask) {
                    // (A clone of the trie's warm walker where the masks at a fresh field
                    // were fetched: a field of an f-string nested in a field.)
                    let warm = &self.start_masks;
                    let child = self.child.get_or_insert_with(|| {
                        Box::new(
                            warm.as_ref()
                                .map_or_else(|| ExactWalker::new(n, starts), |m| m.warm_child()),
                        )
                    });
                    child.parent_spot = Some(spot);
                    child.fill_reps(n, trie, mask);
                    memo.keep(n, mask);
                }
                n
            }
            None => {
                // A fresh field: the nested recognizer's mask is always the same
                // (computed at setup, see `field_start_mask`).
                debug_assert_eq!(spot, Spot::field_start(spot.triple));
                let lang = state.language();
                let masks = self.start_masks.get_or_insert_with(|| trie.field_start_masks(lang));
                mask.clone_from(masks.get(spot.triple));
                self.fresh.get_or_insert_with(|| GrammarRecognizer::field_start(lang))
            }
        };
        // The prefixes' verdicts, walked only if some special token needs them.
        let mut prefixes_walked = false;
        let scratch = self.scratch.get_or_insert_with(|| state.clone());
        // The state after the last head (the bytes up to the first classed byte):
        // tokens sharing a head are neighbours in byte order (`None`: refused).
        let head = self.head.get_or_insert_with(|| state.clone());
        let mut last_head: &[u8] = &[];
        let mut head_ok = false;
        for k in 0..tokens.len() {
            let c = &tokens.cands[k];
            if parent.is_some_and(|p| p.special(c)) {
                mask.remove(c.id as usize); // the parent decides it
                continue;
            }
            if !spot.special(c) {
                continue;
            }
            mask.remove(c.id as usize);
            let bytes = tokens.bytes_of(k);
            if surely_refused(c, bytes, &spot) {
                continue;
            }
            if c.prefix != NONE {
                if !prefixes_walked {
                    prefixes_walked = true;
                    walk_prefixes(
                        &tokens,
                        nested,
                        &mut self.prefix_walker,
                        &mut self.full_nested,
                        &mut self.pmask,
                    );
                }
                if !self.pmask.contains(c.prefix as usize) {
                    continue;
                }
            }
            let k = bytes.iter().position(|&b| class(b) != 0).unwrap_or(bytes.len() - 1);
            let (h, rest) = bytes.split_at(k + 1);
            if h != last_head {
                last_head = h;
                self.last_rechecks += 1;
                head.clone_from(state);
                head_ok = head.try_push_bytes(h);
            }
            if !head_ok {
                continue;
            }
            if rest.is_empty() {
                mask.insert(c.id as usize);
                continue;
            }
            self.last_rechecks += 1;
            scratch.clone_from(head);
            if scratch.try_push_bytes(rest) {
                mask.insert(c.id as usize);
            }
        }
    }

    /// After the usual walk of a state outside fields (literal text of an f-string,
    /// or no f-string): removes the tokens whose f-string bytes the walk could not
    /// judge and the full recognizer refuses.
    /// `parent`: as for [`Self::fill_inside`].
    pub(crate) fn recheck_after_walk(
        &mut self,
        state: &GrammarRecognizer<P>,
        trie: &TokTrie,
        parent: Option<Spot>,
        mask: &mut TokenSet,
    ) {
        self.last_rechecks = 0;
        let view = state.fstring_view();
        let (first, second, after_backslash) = match view {
            FieldView::Literal { after_backslash } => {
                (Which::Literal, Which::Nothing, after_backslash)
            }
            FieldView::None if crate::fstring_quotes::may_be_fstring(state.remainder_bytes()) => {
                (Which::Own, Which::Lead, false)
            }
            FieldView::None => (Which::Own, Which::Nothing, false),
            _ => return,
        };
        let tokens = self.tokens(trie);
        let scratch = self.scratch.get_or_insert_with(|| state.clone());
        for which in [first, second] {
            let list = match which {
                Which::Literal => &tokens.literal,
                Which::Own => &tokens.own,
                Which::Lead => &tokens.lead,
                Which::Nothing => continue,
            };
            for &k in list {
                let c = &tokens.cands[k as usize];
                if parent.is_some_and(|p| p.special(c)) {
                    mask.remove(c.id as usize); // the parent decides it
                    continue;
                }
                if !mask.contains(c.id as usize)
                    || (c.n_first
                        && c.bits & (OPEN_BRACE | CLOSE_BRACE | BACKSLASH) == 0
                        && !after_backslash)
                {
                    continue;
                }
                self.last_rechecks += 1;
                scratch.clone_from(state);
                if !scratch.try_push_bytes(tokens.bytes_of(k as usize)) {
                    mask.remove(c.id as usize);
                }
            }
        }
    }
}

/// Spots whose child masks are kept ([`FieldMasks::memos`]): a field's expression at
/// bracket depth 0, inside brackets, in a nested string.
const MEMO_SPOTS: usize = 4;
/// Masks kept per spot (each a nested state and a mask: ~7 KB with SmolLM2).
const MEMO_ENTRIES: usize = 16;

/// The memo of the child's masks at `spot`, made (the oldest dropped) if none.
///
/// A child mask is the nested recognizer's exact verdict on every token the parent
/// does not re-check at that spot (the others are left out, or left as the walk
/// found them, and the parent decides them itself), so two nested states that
/// accept the same continuations have the same child mask at the same spot: the
/// condition of [`MaskMemo`]. Measured on the mask benchmark files: a child mask
/// inside a field's name took 35-60 us, once per byte of `o.__class__.__name__`.
fn memo_for(memos: &mut Vec<(Spot, MaskMemo<LrParser>)>, spot: Spot) -> &mut MaskMemo<LrParser> {
    let k = match memos.iter().position(|(s, _)| *s == spot) {
        Some(k) => k,
        None => {
            if memos.len() == MEMO_SPOTS {
                memos.remove(0);
            }
            memos.push((spot, MaskMemo::with_entries(MEMO_ENTRIES)));
            memos.len() - 1
        }
    };
    &mut memos[k].1
}

#[derive(Clone, Copy)]
enum Which {
    Literal,
    Own,
    Lead,
    Nothing,
}

/// Sets `pmask` to the prefixes (of [`FieldTokens::prefixes`]) that `nested` takes.
fn walk_prefixes(
    tokens: &FieldTokens,
    nested: &GrammarRecognizer<LrParser>,
    light: &mut Option<LexWalker<LrParser>>,
    full: &mut Option<StackRecognizer<GrammarRecognizer<LrParser>>>,
    pmask: &mut TokenSet,
) {
    if pmask.capacity() != tokens.n_prefixes {
        *pmask = TokenSet::empty(tokens.n_prefixes);
    }
    pmask.clear();
    if matches!(nested.fstring_view(), FieldView::None) {
        // Prefixes hold no quote, so they cannot enter an f-string's body: the lexer
        // DFA's light steps are exact for them.
        let w = light.get_or_insert_with(|| LexWalker::new(nested));
        w.reset(nested);
        tokens.prefixes.walk(w, pmask);
    } else {
        let w = full.get_or_insert_with(|| StackRecognizer::new(nested.clone()));
        w.reset(nested);
        tokens.prefixes.walk(w, pmask);
    }
    for (id, bytes) in tokens.prefixes.long_tokens() {
        let mut s = nested.clone();
        if s.try_push_bytes(bytes) {
            pmask.insert(*id as usize);
        }
    }
}
