//! Exact masks inside Python f-strings, whose replacement fields the grammar crate's
//! recognizer checks byte by byte (`layers/python/fstring_field.rs` there): the trie
//! walk's light paths ([`crate::lexer_walk`], [`crate::lexeme_starts`]) decide bytes
//! inside a lexeme from the lexer DFA alone, which knows nothing of fields.
//!
//! Where the text stands decides the method ([`FieldView`]):
//! - inside a field's expression (or right after a level-0 `{`): the expression is
//!   Python again, so the exact mask of the field's nested recognizer (`(` and the
//!   expression, walked with the usual summaries; right after the `{`, where that
//!   recognizer is always the same, a copy of the mask the kit keeps:
//!   [`super::field_start_mask`]) decides every token whose bytes
//!   only feed that recognizer. The few that can do more ([`Spot::special`]: quotes, `\`,
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
//! The outside-field re-check of closing quotes is in [`super::quote_ends`]. All of it
//! reaches the generic walk through the hooks of [`MaskLayer`], implemented here by
//! [`FStringLayer`]; what it reads per language and vocabulary is [`FStringData`],
//! built once with the kit ([`crate::MaskKit`]).
//!
//! The oracle test is `tests/it/fstring_masks.rs` (every token's bytes pushed through
//! the recognizer, at every byte of real f-strings and at broken fields).

use std::sync::Arc;

use espalier_grammar::layers::python::fstring_closer::closers;
use espalier_grammar::{FieldExprView, FieldView};
use espalier_grammar::{
    Language, LrParser, Recognizer as GrammarRecognizer, TerminalId, TokenParser,
};

use super::field_start_mask::FieldStartMasks;
use super::field_tokens::{
    class, surely_refused, FieldTokens, Spot, BACKSLASH, CLOSE_BRACE, NONE, OPEN_BRACE,
};
use super::quote_ends::{may_be_fstring, QuoteEnds};
use crate::exact::ExactWalker;
use crate::lexeme_starts::LexemeStarts;
use crate::lexer_walk::LexWalker;
use crate::mask_layer::{FinishingLayer, MaskLayer};
use crate::mask_memo::MaskMemo;
use crate::{StackRecognizer, TokTrie, TokenSet};

/// The walker of a field's nested recognizer (its own f-string layer included:
/// f-strings nest in fields).
type Child = ExactWalker<LrParser, FStringLayer<LrParser>>;

/// What the f-string layer reads for one language and vocabulary, built once (with
/// the kit) and shared by every constraint's layer.
#[derive(Clone, Debug)]
pub(crate) struct FStringData {
    /// The tokens ending in a quote ([`super::quote_ends`]).
    quote_ends: Arc<QuoteEnds>,
    /// The tokens a field may decide apart from its nested recognizer.
    tokens: Arc<FieldTokens>,
    /// The nested masks at a fresh field and a warm child walker (`None` only while
    /// they are being built).
    start_masks: Option<Arc<FieldStartMasks<Child>>>,
    /// The language's STRING terminal (lexemes whose fields are checked on the text).
    string: Option<TerminalId>,
}

impl FStringData {
    /// Builds the token lists (one pass over the trie each, ~1-2 ms with SmolLM2) and
    /// the nested masks at a fresh field (0.45-0.5 ms, see
    /// [`super::field_start_mask`]); `starts` are the kit's lexeme-start summaries.
    pub(crate) fn build(
        trie: &TokTrie,
        lang: &Arc<Language>,
        starts: Option<Arc<LexemeStarts>>,
    ) -> Self {
        let mut data = FStringData {
            quote_ends: Arc::new(QuoteEnds::new(trie)),
            tokens: Arc::new(FieldTokens::new(trie)),
            start_masks: None,
            string: lang.python().and_then(|py| py.string),
        };
        // The child walk a field's first byte would make (representatives only).
        let fresh = GrammarRecognizer::field_start(lang);
        let mut child = ExactWalker::new(&fresh, starts, FStringLayer::new(data.clone()));
        let mut mask = TokenSet::empty(trie.vocab_len());
        let masks = [false, true].map(|triple| {
            child.layer.parent_spot = Some(Spot::field_start(triple));
            child.fill_reps(&fresh, trie, &mut mask);
            mask.clone()
        });
        let mut name = fresh.clone();
        if name.try_push_bytes(b"x") {
            child.layer.parent_spot = Some(Spot::in_expression(false));
            child.fill_reps(&name, trie, &mut mask);
        }
        data.start_masks = Some(Arc::new(FieldStartMasks::new(masks, child)));
        data
    }
}

/// Python's f-strings in finishing masks: the STRING lexemes that are f-strings.
impl FinishingLayer for FStringData {
    fn checked_terminal(&self) -> Option<TerminalId> {
        self.string
    }

    fn may_become_checked(&self, lexeme: &[u8]) -> bool {
        may_be_fstring(lexeme)
    }

    fn closable(&self, lexeme: &[u8]) -> bool {
        !closers(lexeme).is_empty()
    }

    /// At most 6 bytes, starting with a byte a closer or its filler starts with.
    fn may_close(&self, token: &[u8]) -> bool {
        token.len() <= 6 && token.first().is_some_and(|b| b"}])'\"0a".contains(b))
    }
}

/// Python's f-strings as a [`MaskLayer`]: the masks inside replacement fields, and
/// the re-checks after a walk outside them.
#[derive(Clone, Debug)]
pub(crate) struct FStringLayer<P: TokenParser> {
    fields: FieldMasks<P>,
    /// Set when this layer's walker computes a field's nested mask for a parent field
    /// that re-checks some tokens itself (see [`FieldMasks::fill_inside`]).
    parent_spot: Option<Spot>,
    quote_scratch: Option<GrammarRecognizer<P>>,
}

impl<P: TokenParser> FStringLayer<P> {
    /// A layer over `data`, its scratch empty but for a warm child walker.
    pub(crate) fn new(data: FStringData) -> Self {
        FStringLayer { fields: FieldMasks::new(data), parent_spot: None, quote_scratch: None }
    }
}

impl<P: TokenParser> MaskLayer<P> for FStringLayer<P> {
    /// A field's expression, or elsewhere in a field.
    fn decides(&self, state: &GrammarRecognizer<P>) -> bool {
        matches!(state.fstring_view(), FieldView::Expr(_) | FieldView::Other)
    }

    fn fill_inside(
        &mut self,
        state: &GrammarRecognizer<P>,
        trie: &TokTrie,
        starts: Option<&Arc<LexemeStarts>>,
        mask: &mut TokenSet,
    ) -> usize {
        self.fields.fill_inside(state, trie, starts, self.parent_spot, mask);
        self.fields.last_rechecks
    }

    fn after_walk(
        &mut self,
        state: &GrammarRecognizer<P>,
        _trie: &TokTrie,
        mask: &mut TokenSet,
    ) -> usize {
        let scratch = self.quote_scratch.get_or_insert_with(|| state.clone());
        if self.parent_spot.is_none() {
            // (A parent field re-checks every token holding a quote itself.)
            self.fields.data.quote_ends.recheck(state, scratch, mask);
        }
        // f-string bytes the walk's light steps cannot judge.
        self.fields.recheck_after_walk(state, self.parent_spot, mask);
        self.fields.last_rechecks
    }

    fn checked_terminal(&self) -> Option<TerminalId> {
        self.fields.data.string
    }

    fn boxed_clone(&self) -> Box<dyn MaskLayer<P>> {
        Box::new(self.clone())
    }
}

/// Scratch for masks inside f-strings, kept by an [`FStringLayer`].
#[derive(Clone, Debug)]
struct FieldMasks<P: TokenParser> {
    data: FStringData,
    /// The exact walk of a field's nested recognizer (and so on, for f-strings
    /// nested in fields).
    child: Option<Box<Child>>,
    prefix_walker: Option<LexWalker<LrParser>>,
    full_outer: Option<StackRecognizer<GrammarRecognizer<P>>>,
    full_nested: Option<StackRecognizer<GrammarRecognizer<LrParser>>>,
    scratch: Option<GrammarRecognizer<P>>,
    head: Option<GrammarRecognizer<P>>,
    fresh: Option<GrammarRecognizer<LrParser>>,
    /// The child's last masks per spot (most recent last), reused where the nested
    /// recognizer accepts the same continuations as at one of them.
    memos: Vec<(Spot, MaskMemo<LrParser>)>,
    pmask: TokenSet,
    /// Full recognizer re-checks of the last mask.
    last_rechecks: usize,
}

impl<P: TokenParser> FieldMasks<P> {
    /// Scratch over `data`: a child walker with its scratch grown where `data` has
    /// one (see [`super::field_start_mask`]).
    fn new(data: FStringData) -> Self {
        let child = data.start_masks.as_ref().map(|m| Box::new(m.warm_child()));
        FieldMasks {
            data,
            child,
            prefix_walker: None,
            full_outer: None,
            full_nested: None,
            scratch: None,
            head: None,
            fresh: None,
            memos: Vec::new(),
            pmask: TokenSet::empty(0),
            last_rechecks: 0,
        }
    }

    /// The mask (representatives only: no duplicates added) for a state inside a
    /// field (see [`FStringLayer::decides`]).
    /// `parent`: the mask is a field's nested recognizer's, for a parent field that
    /// re-checks the tokens special at this spot itself (their verdicts here are not
    /// used, so they are left out).
    fn fill_inside(
        &mut self,
        state: &GrammarRecognizer<P>,
        trie: &TokTrie,
        starts: Option<&Arc<LexemeStarts>>,
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

    /// The mask inside a field's expression: the nested recognizer's mask (recalled,
    /// computed, or the fresh field's), then each f-string-special token re-checked on
    /// the full recognizer, sharing the walk of heads between neighbours.
    ///
    /// Over 80 lines on purpose (issue 32): the loop runs over every special token of
    /// every mask inside a field, and `nested` borrows either the view or
    /// `self.fresh` while the loop uses the other scratch fields: one body holds
    /// those disjoint borrows, a method returning `nested` could not.
    fn fill_expr(
        &mut self,
        state: &GrammarRecognizer<P>,
        v: FieldExprView<'_>,
        trie: &TokTrie,
        starts: Option<&Arc<LexemeStarts>>,
        parent: Option<Spot>,
        mask: &mut TokenSet,
    ) {
        let spot = Spot::of(&v);
        let tokens = self.data.tokens.clone();
        let nested: &GrammarRecognizer<LrParser> = match v.nested_recognizer() {
            Some(n) => {
                // Inside a name, and at the same expression state in another field, the
                // child's mask is one computed before (see `memo_for`).
                let memo = memo_for(&mut self.memos, spot);
                if !memo.recall(n, mask) {
                    let child = child_of(&mut self.child, &self.data, n, starts);
                    child.layer.parent_spot = Some(spot);
                    child.fill_reps(n, trie, mask);
                    memo.keep(n, mask);
                }
                n
            }
            None => {
                // A fresh field: the nested recognizer's mask is always the same
                // (computed with the kit, see `field_start_mask`).
                debug_assert_eq!(spot, Spot::field_start(spot.triple));
                let lang = state.language();
                let fresh = self.fresh.get_or_insert_with(|| GrammarRecognizer::field_start(lang));
                match &self.data.start_masks {
                    Some(masks) => mask.clone_from(masks.get(spot.triple)),
                    None => {
                        // (Only while the kit builds those masks: walked here.)
                        let child = child_of(&mut self.child, &self.data, fresh, starts);
                        child.layer.parent_spot = Some(spot);
                        child.fill_reps(fresh, trie, mask);
                    }
                }
                fresh
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
    fn recheck_after_walk(
        &mut self,
        state: &GrammarRecognizer<P>,
        parent: Option<Spot>,
        mask: &mut TokenSet,
    ) {
        self.last_rechecks = 0;
        let view = state.fstring_view();
        let (first, second, after_backslash) = match view {
            FieldView::Literal { after_backslash } => {
                (Which::Literal, Which::Nothing, after_backslash)
            }
            FieldView::None if may_be_fstring(state.remainder_bytes()) => {
                (Which::Own, Which::Lead, false)
            }
            FieldView::None => (Which::Own, Which::Nothing, false),
            _ => return,
        };
        let tokens = self.data.tokens.clone();
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

/// The child walker in `slot`, made for states like `like` (with an f-string layer
/// over `data`) if there is none yet.
fn child_of<'a>(
    slot: &'a mut Option<Box<Child>>,
    data: &FStringData,
    like: &GrammarRecognizer<LrParser>,
    starts: Option<&Arc<LexemeStarts>>,
) -> &'a mut Child {
    slot.get_or_insert_with(|| {
        Box::new(ExactWalker::new(like, starts.cloned(), FStringLayer::new(data.clone())))
    })
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use espalier_grammar::Recognizer as GrammarRecognizer;

    use super::{FStringData, FStringLayer, Spot};
    use crate::exact::ExactWalker;
    use crate::lexeme_starts::LexemeStarts;
    use crate::{GrammarConstraint, MaskKit, Strategy, TokTrie, TokenSet, Vocab};

    /// Tokens that end, break or continue a field in many ways: names, brackets,
    /// `}` with literal text and quotes after it, `:` `!` `=`, newlines (allowed in a
    /// triple-quoted literal's field only), nested strings and f-strings.
    fn vocab() -> Vocab {
        let mut tokens: Vec<Vec<u8>> = vec![b"<eos>".to_vec()];
        let heads = ["", "a", "ab", "x", " x", "(", "[", "f", "self", "1", "lambda"];
        let tails = [
            "", "}", "})", "}'", "}\"", "}\"\"\"", ":", ":>", "!r", "!", "=", "==", ")", "]", "\n",
            " ", ".", "{", "'", "\"", "f'", "(x", ",", "#",
        ];
        for h in heads {
            for t in tails {
                tokens.push(format!("{h}{t}").into_bytes());
            }
        }
        for w in [
            "f'", "f\"", "f\"\"\"", "rf'", "{", "{{", "}}", "\\", "\\N", "\n", " ", "(", ")", "'",
            "\"", "=", "y", "\n)", "+", "z = ",
        ] {
            tokens.push(w.as_bytes().to_vec());
        }
        Vocab::new(tokens, &[0], 0)
    }

    #[test]
    fn kept_masks_equal_a_fresh_child_walk() {
        let lang = espalier_grammar::python().expect("the Python grammar compiles");
        let vocab = vocab();
        let trie = TokTrie::new(&vocab);
        let starts = LexemeStarts::build(&trie, &lang.dfa).map(Arc::new);
        let data = FStringData::build(&trie, &lang, starts.clone());
        let kept = data.start_masks.as_ref().expect("built with the data");
        let fresh = GrammarRecognizer::field_start(&lang);
        for triple in [false, true] {
            // A walker without the kept masks (its layer's data has none).
            let mut bare = data.clone();
            bare.start_masks = None;
            let mut walker = ExactWalker::new(&fresh, starts.clone(), FStringLayer::new(bare));
            walker.layer.parent_spot = Some(Spot::field_start(triple));
            let mut mask = TokenSet::empty(vocab.len());
            walker.fill_reps(&fresh, &trie, &mut mask);
            assert_eq!(&mask, kept.get(triple), "triple: {triple}");
        }
    }

    /// The masks at every byte of texts with fields of every kind (first fields of
    /// one-quote and triple-quoted literals, later fields, format-spec fields, fields
    /// nested in a field's f-string) equal checking each token on the recognizer.
    #[test]
    fn masks_at_fresh_fields_equal_checking_each_token() {
        let lang = espalier_grammar::python().expect("the Python grammar compiles");
        let vocab = vocab();
        let kit = MaskKit::for_vocab(lang.clone(), &vocab);
        let texts = [
            "z = f'{a}{ab!r} {x:>{y}}' + f\"{(x)}\"\n",
            "z = f\"\"\"{a\n}{\nx} {f'{ab}'}\"\"\" + rf'{x}'\n",
            "z = f'{self}' f\"{[1, f'{x}']}\"\n",
        ];
        for text in texts {
            let mut c = GrammarConstraint::new(&kit, Strategy::Exact, "python-lr");
            crate::grammar_constraint::assert_exact_is_check_along(&mut c, &vocab, text.as_bytes());
        }
    }
}
