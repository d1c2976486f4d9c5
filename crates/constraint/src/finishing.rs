//! Steering a grammar constraint to a finish: the *finishing mask*, for a decoder that
//! must wrap up before its token budget ends. It keeps the allowed tokens whose
//! remaining cost after them ([`crate::remaining_cost`]: how many bytes still separate
//! the text from a complete program) is strictly lower than now.
//!
//! From every unfinished state some single byte (and thus, in a byte-level BPE
//! vocabulary, some token) lowers the remaining cost by at least one, so taking only
//! the mask's tokens ends the program in at most `cost` tokens; once the text is
//! complete it holds EOS alone. Should no allowed token lower the cost (a state the
//! cost model cannot plan through, e.g. inside an f-string replacement field), the
//! allowed tokens of least cost are kept instead, so the mask is never empty while the
//! exact mask is not.
//!
//! Cost: one exact mask, then the allowed tokens' costs along one trie walk, shared
//! by tokens with a common prefix, one cost per group of tokens that end in
//! equivalent lexer states inside a lexeme ([`crate::finishing_walk`]); inside an
//! f-string, one recognizer copy and cost per closer-like token (name-only tokens
//! skipped where the literal's closer is the best way: they cannot lower the cost).

use espalier_grammar::{Recognizer, TokenParser};

use crate::cost_cache::CostMemo;
use crate::mask_kit::MaskKit;
use crate::remaining_cost::Finisher;
use crate::{Constraint, GrammarConstraint, TokenSet, Vocab};

/// What one finishing mask found (see [`GrammarConstraint::finishing_mask`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finishing {
    /// The remaining cost before the step (`Some(0)` once complete; `None` when the
    /// cost model finds no plan from here).
    pub cost: Option<u32>,
    /// Whether every token of the mask lowers the cost (or the text is complete and
    /// the mask is EOS alone); `false` when the mask fell back to the allowed tokens of
    /// least cost, or to all allowed tokens.
    pub steered: bool,
}

/// How the finishing mask scores the allowed tokens: along one trie walk (the
/// default, [`crate::finishing_walk`]) or token by token (the reference it is tested
/// against).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scoring {
    Trie,
    PerToken,
}

/// Fills `mask` with the finishing mask of `c` (see the module doc); `None` when the
/// constraint's parser has no LR stacks (no cost model: the Earley recognizer).
pub(crate) fn finishing_mask<P: TokenParser>(
    c: &mut GrammarConstraint<P>,
    vocab: &Vocab,
    mask: &mut TokenSet,
    scoring: Scoring,
) -> Option<Finishing> {
    c.state().parser().lr_stacks()?;
    if mask.capacity() != vocab.len() {
        *mask = TokenSet::empty(vocab.len());
    }
    mask.clear();
    if c.is_complete() {
        mask.insert(vocab.eos() as usize);
        return Some(Finishing { cost: Some(0), steered: true });
    }
    let mut allowed = TokenSet::empty(vocab.len());
    c.exact_mask(&mut allowed);
    let state = c.state().clone();
    let kit = c.kit().clone();
    if scoring == Scoring::PerToken {
        // The reference starts from nothing: it checks the cached costs too.
        return Some(finishing_among(
            &state,
            &allowed,
            vocab,
            &kit,
            mask,
            scoring,
            &mut CostMemo::default(),
        ));
    }
    Some(kit.cost_cache().with(state.language(), |memo| {
        finishing_among(&state, &allowed, vocab, &kit, mask, scoring, memo)
    }))
}

/// The bytes that strictly lower the remaining cost of `c`'s text, with the cost
/// after each, fewest first (ties in byte order), into `out` (cleared first); the
/// remaining cost now is returned (`None`: no plan, or no LR stacks; `Some(0)`:
/// complete, `out` empty). For a constraint that layers checks of its own on the
/// grammar (mode `names`) and plans its way out byte by byte. From every unfinished
/// state with a plan some byte lowers the cost (see the module doc).
pub(crate) fn lowering_bytes<P: TokenParser>(
    c: &GrammarConstraint<P>,
    out: &mut Vec<(u8, u32)>,
) -> Option<u32> {
    out.clear();
    c.state().parser().lr_stacks()?;
    let state = c.state();
    c.cost_cache().clone().with(state.language(), |memo| {
        let mut f = Finisher::with_memo(state.language(), std::mem::take(memo));
        let now = f.remaining(state);
        if let Some(n) = now.filter(|&n| n > 0) {
            let mut next = state.clone();
            for b in 0..=255u8 {
                next.clone_from(state);
                if !next.try_push_byte(b) {
                    continue;
                }
                if let Some(cost) = f.remaining(&next).filter(|&x| x < n) {
                    out.push((b, cost));
                }
            }
        }
        out.sort_by_key(|&(b, cost)| (cost, b));
        *memo = f.into_memo();
        now
    })
}

/// The finishing mask of `state` among the `allowed` tokens (its exact mask, without
/// EOS) into `mask` (cleared first); `state` must not be complete. Shared with
/// fill-in-the-middle, whose left side falls back to it when no bridge is found.
pub(crate) fn finishing_among<P: TokenParser>(
    state: &Recognizer<P>,
    allowed: &TokenSet,
    vocab: &Vocab,
    kit: &MaskKit,
    mask: &mut TokenSet,
    scoring: Scoring,
    memo: &mut CostMemo,
) -> Finishing {
    let trie = kit.trie();
    if mask.capacity() != vocab.len() {
        *mask = TokenSet::empty(vocab.len());
    }
    mask.clear();
    let mut f = Finisher::with_memo(state.language(), std::mem::take(memo));
    // The reference takes every way, without the lower-bound cuts.
    f.prune = scoring == Scoring::Trie;
    let now = f.remaining(state);
    let mut scored = crate::finishing_walk::Scored::default();
    // Inside an f-string every candidate's cost re-checks the whole literal (no memo
    // applies: the literal is part of the state), so only short tokens that start like
    // a closer are scored: each one of them that lowers the cost may be taken, and the
    // one-byte closers are among them (measured: a 60-field literal of a HumanEval run
    // took minutes per step when all 48k allowed tokens were scored).
    let in_fstring = state.language().python.is_some()
        && !crate::python::fstring_closer::closers(state.remainder_bytes()).is_empty();
    if in_fstring || scoring == Scoring::PerToken {
        // Names cannot lower the cost when the literal's own closer is the best way
        // (see `names_cannot_lower`): skipped, unless then no token lowers it.
        let skip_names = in_fstring && scoring == Scoring::Trie && f.closer_is_best(state, now);
        score_one_by_one(state, allowed, vocab, &mut f, in_fstring, skip_names, &mut scored);
        if skip_names && !matches!((now, scored.least()), (Some(n), Some(l)) if l < n) {
            scored.tokens.clear();
            score_one_by_one(state, allowed, vocab, &mut f, in_fstring, false, &mut scored);
        }
    } else {
        let starts = kit.lexeme_starts();
        crate::finishing_walk::score_along_trie(
            state,
            allowed,
            trie,
            starts,
            vocab,
            &mut f,
            &mut scored,
        );
    }
    let least = scored.least();
    let steered = matches!((now, least), (Some(n), Some(l)) if l < n);
    scored.insert_kept(mask, |cost| match (now, least, cost) {
        (_, None, _) => true,
        (Some(n), Some(_), Some(x)) if steered => x < n,
        (_, Some(l), Some(x)) => x == l,
        _ => false,
    });
    if !in_fstring && scoring == Scoring::Trie {
        // Duplicate ids were not walked: they take their first id's verdict.
        trie.add_duplicates(mask);
        mask.intersect_with(allowed);
    }
    *memo = f.into_memo();
    Finishing { cost: now, steered }
}

/// Scores the `allowed` tokens one by one into `scored`; inside an f-string only the
/// closer-like ones, and with `skip_names` none made of name characters alone.
fn score_one_by_one<P: TokenParser>(
    state: &Recognizer<P>,
    allowed: &TokenSet,
    vocab: &Vocab,
    f: &mut Finisher<'_>,
    in_fstring: bool,
    skip_names: bool,
    scored: &mut crate::finishing_walk::Scored,
) {
    let mut s2 = state.clone();
    for id in allowed.iter() {
        let bytes = vocab.bytes(id as u32);
        if in_fstring && !crate::python::fstring_closer::may_close(bytes) {
            continue;
        }
        if skip_names && names_cannot_lower(bytes) {
            continue;
        }
        s2.clone_from(state);
        let cost = if s2.try_push_bytes(bytes) { f.remaining(&s2) } else { None };
        scored.tokens.push((id, cost));
    }
}

/// Whether `token` is made of name characters alone (`[A-Za-z0-9_]`), which cannot
/// lower the remaining cost of an unfinished f-string whose own closer (the bytes
/// that close its open fields and the literal, `fstring_closer`) is its best way:
/// such bytes open, close and quote nothing, so the closer after them is the same,
/// every way from there writes at least that closer (with a filler first, or the
/// lexer's shortest path to the quote, which the recognizer takes only when no
/// field is open, the closer then being that quote), and once the literal is closed
/// the parser is where the closer alone left it (it reads the literal as one
/// STRING). Measured (issue 13, finish8): in the 60-level literal of HumanEval/6 the
/// closer-like tokens were ~half names (`a...`, `0...`), each re-checking the fields.
fn names_cannot_lower(token: &[u8]) -> bool {
    token.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
}
