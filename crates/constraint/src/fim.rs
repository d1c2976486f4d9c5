//! [`FimConstraint`]: fill-in-the-middle as a [`Constraint`]. The text generated is
//! the middle `m`; a byte is allowed iff some continuation of `m` joins the suffix,
//! and EOS iff `prefix + m + suffix` is a complete program.
//!
//! The reduction behind it is proven in `espalier_grammar::quotient` (module doc):
//! for Python, "some continuation of `prefix + m` joins the suffix" holds iff
//! `prefix + m` is a viable prefix and the suffix is the tail of some program, the
//! latter established once per request (a cheap witness, else substring
//! parsing of the suffix). So per token only the
//! left side advances, and the mask is the exact viable-prefix mask of
//! `prefix + m`: the same [`ExactWalker`] trie walk as [`crate::GrammarConstraint`]
//! (lexeme summaries, reused as they are). EOS runs the suffix from the left state
//! through the memoized [`SuffixQuotient::joins`].
//!
//! Construction ([`FimConstraint::new`]) is the one-time cost of a request: the
//! prefix through the recognizer, the suffix analysis (a cheap witness, else the
//! suffix Earley recognizer over the cursor layouts), and the
//! walker's scratch state; the vocabulary trie and its lexeme summaries are the
//! kit's ([`MaskKit`]), shared across requests.
//!
//! Over 600 lines only with its unit tests (the last ~180: the constraint on small
//! vocabularies, where each verdict can be read by hand); the code is one type and
//! the helpers of its finishing plan.

use std::sync::Arc;

use espalier_grammar::quotient::left_state;
use espalier_grammar::{FimError, Language, LrParser, LrRecognizer, SuffixQuotient};

use crate::cost_cache::CostCache;
use crate::exact::ExactWalker;
use crate::fim_needs::SuffixNeeds;
use crate::fim_reentry::Reentry;
use crate::mask_kit::MaskKit;
use crate::{ByteState, Commit, Constraint, Inspection, Rejected, TokTrie, TokenSet, Vocab};

/// Fill-in-the-middle over a grammar language (Python): see the module doc.
#[derive(Clone)]
pub struct FimConstraint {
    left: LrRecognizer,
    suffix: Arc<SuffixQuotient>,
    witness: Option<Vec<u8>>,
    /// What the suffix expects to follow, read off the prefix once ([`Reentry`]).
    reentry: Arc<Reentry>,
    /// The language's trie, summaries, layer data and cost cache.
    kit: MaskKit,
    walker: ExactWalker<LrParser>,
    middle: Vec<u8>,
    /// The finishing mask's plan: the rest of a bridge to joining the suffix
    /// ([`crate::fim_bridge`]), kept while the middle follows it.
    plan: Option<Vec<u8>>,
    /// The plan the last token left (it did not follow it): its tails are tried as
    /// bridges first by the next distance probe.
    stale_plan: Option<Vec<u8>>,
    /// A plan and, for each `r`, the most tokens the finishing mask may take to write
    /// its last `r` bytes ([`worst_tokens`]): valid while `plan` is a tail of it.
    worst: (Vec<u8>, Vec<usize>),
    /// The middle's length when a bridge search last found nothing (the next search
    /// waits for [`RETRY_AFTER`] more bytes), and how many searches failed.
    failed_at: Option<usize>,
    failures: usize,
    /// Whether the one extra search at a statement boundary, after the searches
    /// failed, has run (see [`Constraint::fill_finishing_mask`]).
    searched_at_boundary: bool,
    /// The middle's length when a distance probe ([`Constraint::finishing_distance`])
    /// last found no bridge, and how many probes failed (kept apart from the finishing
    /// mask's searches, so probing before the wrap-up leaves the wrap-up its own).
    probe_failed_at: Option<usize>,
    probe_failures: usize,
    /// What the suffix needs from the middle, in words (the inspector's).
    needs: Arc<SuffixNeeds>,
}

/// Bytes of middle written after a failed bridge search before the next search.
const RETRY_AFTER: usize = 8;
/// Failed bridge searches after which a request stops searching (each costs up to
/// ~1-3 s at [`crate::fim_bridge::MAX_EXPANSIONS`] on a loaded 2-core machine).
const MAX_FAILURES: usize = 2;
/// Tails of a stale plan a distance probe tries before searching.
const MAX_STALE_TRIES: usize = 12;
/// Failed distance probes after which a request stops probing (the decoder then
/// falls back to its fixed wrap-up window).
const MAX_PROBE_FAILURES: usize = 3;

impl FimConstraint {
    /// Prepares a request in `kit`'s language and vocabulary: `prefix` must be a
    /// viable prefix, and some middle must join `suffix` (both UTF-8). Errors name
    /// the offending byte.
    pub fn new(kit: &MaskKit, prefix: &[u8], suffix: &[u8]) -> Result<Self, FimError> {
        let lang: &Arc<Language> = kit.language();
        let left = left_state(lang, prefix)?;
        let quotient = SuffixQuotient::new(lang, suffix)?;
        let witness = quotient.establish(&left)?;
        let walker = kit.walker(&left);
        let reentry = Arc::new(Reentry::new(lang, prefix, suffix));
        let needs = Arc::new(SuffixNeeds::of(lang, suffix));
        Ok(Self {
            left,
            suffix: Arc::new(quotient),
            witness,
            reentry,
            kit: kit.clone(),
            walker,
            middle: Vec::new(),
            plan: None,
            worst: (Vec::new(), Vec::new()),
            stale_plan: None,
            failed_at: None,
            failures: 0,
            searched_at_boundary: false,
            probe_failed_at: None,
            probe_failures: 0,
            needs,
        })
    }

    /// Shares `cache` (a kit's, for the same language) for the finishing masks of the
    /// left side, instead of this constraint's own.
    pub fn with_cost_cache(mut self, cache: CostCache) -> Self {
        self.kit = self.kit.with_cost_cache(cache);
        self
    }

    /// The middle generated so far.
    pub fn middle(&self) -> &[u8] {
        &self.middle
    }

    /// The cheap witness found when preparing, if any: a middle (empty or a newline)
    /// that joins the suffix from the prefix. `None` when the suffix was shown
    /// joinable by the suffix recognizer instead.
    pub fn witness(&self) -> Option<&[u8]> {
        self.witness.as_deref()
    }

    /// The suffix side (memo counters, explanations).
    pub fn suffix(&self) -> &SuffixQuotient {
        &self.suffix
    }

    /// The re-entry texts read off the prefix (for the bridge search).
    pub fn reentry(&self) -> &Reentry {
        &self.reentry
    }

    /// The recognizer state after prefix + middle.
    pub fn left(&self) -> &LrRecognizer {
        &self.left
    }

    /// Whether `t` then `rest`, written after prefix + middle, joins the suffix.
    fn substitute_joins(&self, t: &[u8], rest: &[u8]) -> bool {
        let mut s = self.left.clone();
        s.try_push_bytes(t) && s.try_push_bytes(rest) && self.suffix.joins(&s)
    }

    /// Whether `rest` written after prefix + middle joins the suffix.
    fn rest_joins(&self, rest: &[u8]) -> bool {
        let mut s = self.left.clone();
        s.try_push_bytes(rest) && self.suffix.joins(&s)
    }

    /// Searches a new bridge when the plan is spent and a search is due: at the
    /// statement boundary after a failure, or a few bytes after the last failure
    /// while failures stay few.
    fn search_bridge_if_due(&mut self) {
        let boundary = self.failures > 0 && !self.searched_at_boundary && self.left.is_complete();
        self.searched_at_boundary |= boundary;
        let retry = boundary
            || (self.failures < MAX_FAILURES
                && self.failed_at.is_none_or(|at| self.middle.len() >= at + RETRY_AFTER));
        if self.plan.as_ref().is_none_or(|p| p.is_empty()) && retry {
            self.plan = crate::fim_bridge::shortest_bridge(&self.left, &self.suffix, &self.reentry)
                .filter(|p| !p.is_empty());
            self.failed_at = self.plan.is_none().then_some(self.middle.len());
            self.failures += usize::from(self.plan.is_none());
        }
    }

    /// Adds substitutes for the plan's short names (`i` where the shortest bridge
    /// wrote `a`): the bridge's name is arbitrary, the model's is not
    /// (HumanEval/109/L3 single-line: `left_shift_index=a` failed the tests where
    /// `=i` passes). Each one is as long as the plan token in `mask` it stands for and
    /// the plan's rest is checked to join after it, so the distance
    /// ([`Constraint::finishing_distance`]) still bounds the steps.
    fn add_substitutes(&self, plan: &[u8], vocab: &Vocab, mask: &mut TokenSet) {
        let short: Vec<&[u8]> = mask
            .iter()
            .map(|id| vocab.bytes(id as u32))
            .filter(|b| b.len() <= MAX_SUBSTITUTE)
            .collect();
        for id in 0..vocab.len() as u32 {
            let t = vocab.bytes(id);
            if vocab.is_special(id) || mask.contains(id as usize) || t.len() > MAX_SUBSTITUTE {
                continue;
            }
            if short.iter().any(|p| substitutes(p, t))
                && self.allows(t)
                && self.substitute_joins(t, &plan[t.len()..])
            {
                mask.insert(id as usize);
            }
        }
    }

    /// No bridge: steers the left side to the end of its statement (the plain
    /// finishing mask of prefix + middle: close the open f-string, brackets, block
    /// header), where one more search starts from a fresh line; a middle astray
    /// inside a deepening literal (`f'({{[{[{[...`, measured on RandomSpan
    /// HumanEval/1) otherwise writes on to the budget. Where that does not steer:
    /// the exact mask.
    fn fill_steered(&mut self, vocab: &Vocab, mask: &mut TokenSet) {
        let mut allowed = TokenSet::empty(vocab.len());
        self.fill_mask(vocab, &mut allowed);
        let (left, kit) = (&self.left, &self.kit);
        let steered = !left.is_complete()
            && kit
                .cost_cache()
                .with(left.language(), |memo| {
                    crate::finishing::finishing_among(
                        left,
                        &allowed,
                        vocab,
                        kit,
                        mask,
                        crate::finishing::Scoring::Trie,
                        memo,
                    )
                })
                .steered;
        if !steered || mask.is_empty() {
            *mask = allowed;
        }
    }
}

/// The tokens along `plan` (a non-empty prefix of it), at least half as long as the
/// longest one: the budget left may be tight, and a bridge taken byte by byte would
/// not fit it.
fn fill_along_plan(plan: &[u8], vocab: &Vocab, mask: &mut TokenSet) {
    let along = |id: u32| {
        !vocab.is_special(id) && !vocab.bytes(id).is_empty() && plan.starts_with(vocab.bytes(id))
    };
    let longest = (0..vocab.len() as u32)
        .filter(|&id| along(id))
        .map(|id| vocab.bytes(id).len())
        .max()
        .unwrap_or(0);
    for id in
        (0..vocab.len() as u32).filter(|&id| along(id) && 2 * vocab.bytes(id).len() >= longest)
    {
        mask.insert(id as usize);
    }
}

/// The longest plan token a substitute is looked for (the bridge's own names and
/// numbers are one byte: `a`, `0`; the re-entry lines copy short names of the prefix).
const MAX_SUBSTITUTE: usize = 3;

/// Whether token bytes `t` may stand for the plan's bytes `p`: as long, and differing
/// only where both have a name character (`a` for `i`, `x0` for `n1`). Whether the
/// plan's rest still joins after it is checked apart.
fn substitutes(p: &[u8], t: &[u8]) -> bool {
    let name = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    p.len() == t.len() && p != t && p.iter().zip(t).all(|(&a, &b)| a == b || (name(a) && name(b)))
}

impl Constraint for FimConstraint {
    fn is_complete(&self) -> bool {
        self.suffix.joins(&self.left)
    }

    fn allows(&self, bytes: &[u8]) -> bool {
        !bytes.is_empty() && self.left.clone().try_push_bytes(bytes)
    }

    fn fill_mask(&mut self, vocab: &Vocab, mask: &mut TokenSet) {
        if mask.capacity() != vocab.len() {
            *mask = TokenSet::empty(vocab.len());
        }
        if vocab.len() != self.kit.vocab_len() {
            // Another vocabulary than the trie's (see `vocab_width`): nothing is allowed.
            mask.clear();
            return;
        }
        self.walker.fill(&self.left, self.kit.trie(), mask);
        if self.is_complete() {
            mask.insert(vocab.eos() as usize);
        } else {
            mask.remove(vocab.eos() as usize);
        }
    }

    fn vocab_width(&self) -> Option<usize> {
        Some(self.kit.vocab_len())
    }

    fn commit(&mut self, bytes: &[u8]) -> Result<Commit, Rejected> {
        let mut s = self.left.clone();
        for (i, &b) in bytes.iter().enumerate() {
            if !s.try_push_byte(b) {
                return Err(Rejected {
                    offset: i,
                    expected: format!(
                        "a middle that can still join the suffix (byte {:?} at offset {} of the middle ends every parse)",
                        char::from(b),
                        self.middle.len() + i
                    ),
                });
            }
        }
        self.left = s;
        self.middle.extend_from_slice(bytes);
        let before = self.plan.clone();
        self.plan = self.plan.take().and_then(|p| match p.strip_prefix(bytes) {
            Some(rest) => Some(rest.to_vec()),
            // A substitute for the plan's first bytes (see `substitutes`): the rest of
            // the plan still joins from here.
            None if bytes.len() <= p.len()
                && substitutes(&p[..bytes.len()], bytes)
                && self.rest_joins(&p[bytes.len()..]) =>
            {
                Some(p[bytes.len()..].to_vec())
            }
            None => None,
        });
        self.stale_plan = if self.plan.is_none() { before } else { None };
        Ok(Commit::Accepted)
    }

    /// The finishing mask under FIM: EOS alone once the middle joins the suffix; else
    /// the tokens whose bytes are a non-empty prefix of the shortest bridge to joining
    /// ([`crate::fim_bridge`]) and at least half as long as the longest such token;
    /// where no bridge is found, the plain finishing mask of prefix + middle (to the end
    /// of the statement, where one more search runs), or where that does not steer, the
    /// exact mask.
    fn fill_finishing_mask(&mut self, vocab: &Vocab, mask: &mut TokenSet) -> bool {
        if mask.capacity() != vocab.len() {
            *mask = TokenSet::empty(vocab.len());
        }
        mask.clear();
        if self.is_complete() {
            mask.insert(vocab.eos() as usize);
            return true;
        }
        self.search_bridge_if_due();
        match self.plan.clone() {
            Some(plan) => {
                fill_along_plan(&plan, vocab, mask);
                self.add_substitutes(&plan, vocab, mask);
            }
            None => self.fill_steered(vocab, mask),
        }
        true
    }

    /// The most tokens the finishing mask may take to write its plan, a bridge to
    /// joining the suffix ([`worst_tokens`]; at most the bridge's length in bytes).
    /// The bridge is kept as the finishing mask's plan, so while the middle follows it
    /// (the wrap-up) no new search runs. A token off the plan leaves it stale: the
    /// plan or one of its tails often still joins from the new text (`a)` after
    /// `f(b` then `f(b,`), which a few pushes check; taken when its bound is within
    /// `enough` (measured: a search costs 26-84 ms a step on HumanEval/0/L0 at load 7,
    /// which about doubled a single-line case's time). Otherwise the shortest bridge
    /// is searched; after a failed search none until [`RETRY_AFTER`] more bytes, none
    /// at all after [`MAX_PROBE_FAILURES`] (`None`: unknown). No search when `enough`
    /// is at least [`crate::fim_bridge::MAX_BRIDGE`] (`None`).
    fn finishing_distance(&mut self, _vocab: &Vocab, enough: usize) -> Option<usize> {
        if self.is_complete() {
            return Some(0);
        }
        if let Some(plan) = self.plan.as_ref().filter(|p| !p.is_empty()) {
            if !self.worst.0.ends_with(plan) {
                self.worst = (plan.clone(), worst_tokens(plan, self.kit.trie()));
            }
            return Some(self.worst.1[plan.len()]);
        }
        if enough >= crate::fim_bridge::MAX_BRIDGE {
            // Any bridge a search finds is at most this many bytes, so at most this
            // many tokens: the caller's decision cannot depend on it (the first ~30
            // steps of a 128-token budget search nothing).
            return None;
        }
        if let Some(stale) = self.stale_plan.take() {
            // The whole stale plan, then its tails from the shortest.
            let tails = std::iter::once(0).chain((1..stale.len()).rev()).take(MAX_STALE_TRIES);
            for k in tails {
                let tail = &stale[k..];
                if self.rest_joins(tail) {
                    let worst = worst_tokens(tail, self.kit.trie());
                    if worst[tail.len()] <= enough {
                        self.plan = Some(tail.to_vec());
                        self.worst = (tail.to_vec(), worst);
                        return Some(self.worst.1[tail.len()]);
                    }
                }
            }
        }
        let waiting = self.probe_failed_at.is_some_and(|at| self.middle.len() < at + RETRY_AFTER);
        if waiting || self.probe_failures >= MAX_PROBE_FAILURES {
            return None;
        }
        let plan = crate::fim_bridge::shortest_bridge(&self.left, &self.suffix, &self.reentry)
            .filter(|p| !p.is_empty());
        self.probe_failed_at = plan.is_none().then_some(self.middle.len());
        self.probe_failures += usize::from(plan.is_none());
        let d = plan.as_ref().map(|p| {
            self.worst = (p.clone(), worst_tokens(p, self.kit.trie()));
            self.worst.1[p.len()]
        });
        self.plan = plan;
        d
    }

    fn inspect(&self) -> Inspection {
        let mut out = Inspection { kind: "fim".into(), ..Inspection::default() };
        ByteState::describe(&self.left, &mut out);
        let tail = self.left.remainder_bytes();
        if !tail.is_empty() {
            out.remainder = Some(String::from_utf8_lossy(tail).into_owned());
        }
        out.needs = self.needs.describe(&self.left, self.is_complete());
        out
    }
}

/// `worst[r]`: the most tokens the finishing mask may take to write the last `r` bytes
/// of `plan`, whichever of its tokens (those along the plan at least half as long as
/// the longest, see [`Constraint::fill_finishing_mask`]) the model picks at each step;
/// `r` itself where no token spells the rest. One path down the trie per plan byte
/// (at most [`crate::fim_bridge::MAX_BRIDGE`]).
fn worst_tokens(plan: &[u8], trie: &TokTrie) -> Vec<usize> {
    let n = plan.len();
    let mut worst = vec![0usize; n + 1];
    for r in 1..=n {
        let lengths = trie.prefix_lengths(&plan[n - r..]);
        let longest = lengths.last().copied().unwrap_or(0);
        worst[r] = lengths
            .iter()
            .filter(|&&k| 2 * k >= longest)
            .map(|&k| 1 + worst[r - k])
            .max()
            .unwrap_or(r);
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> Vocab {
        let words = [
            "<eos>", "<bos>", "x", " ", "o", "(", ")", "]", "\n", "    ", "if", " x", ":", "1",
            "'", "fo", "o(", " +", "y", "a",
        ];
        Vocab::new(words.iter().map(|w| w.as_bytes().to_vec()).collect(), &[0, 1], 0)
    }

    /// Takes finishing-mask tokens (the one at `pick(ids)` of the mask's ids) until the
    /// text is complete: every mask is a non-empty part of the exact mask, and the text
    /// completes within `bound` tokens.
    fn finish_within(
        c: &mut FimConstraint,
        vocab: &Vocab,
        bound: usize,
        pick: impl Fn(&[usize]) -> usize,
    ) {
        let (mut mask, mut exact) = (TokenSet::empty(vocab.len()), TokenSet::empty(vocab.len()));
        let mut steps = 0;
        while !c.is_complete() {
            assert!(c.fill_finishing_mask(vocab, &mut mask));
            c.fill_mask(vocab, &mut exact);
            let ids: Vec<usize> = mask.iter().collect();
            assert!(!ids.is_empty() && ids.iter().all(|&i| exact.contains(i)), "{ids:?}");
            c.commit(vocab.bytes(ids[pick(&ids)] as u32)).unwrap();
            steps += 1;
            assert!(
                steps <= bound,
                "{steps} steps past the bound {bound}: {:?}",
                String::from_utf8_lossy(c.middle())
            );
        }
    }

    /// The test vocabulary and Python's kit over it.
    fn python_kit() -> (Vocab, MaskKit) {
        let vocab = vocab();
        let kit = MaskKit::for_vocab(espalier_grammar::python().unwrap(), &vocab);
        (vocab, kit)
    }

    fn brute(c: &FimConstraint, vocab: &Vocab) -> TokenSet {
        let mut m = TokenSet::empty(vocab.len());
        for id in 0..vocab.len() as u32 {
            if !vocab.is_special(id) && c.allows(vocab.bytes(id)) {
                m.insert(id as usize);
            }
        }
        if c.is_complete() {
            m.insert(vocab.eos() as usize);
        }
        m
    }

    #[test]
    fn masks_equal_brute_force_and_eos_is_membership() {
        let (vocab, kit) = python_kit();
        let mut c =
            FimConstraint::new(&kit, b"def f(a):\n    return fo", b"o(a, [1,\n 2])\n").unwrap();
        assert_eq!(c.inspect().kind, "fim");
        let mut mask = TokenSet::empty(vocab.len());
        for step in ["o", "(", "x", ")", " +", " ", "fo"] {
            c.fill_mask(&vocab, &mut mask);
            assert_eq!(mask, brute(&c, &vocab), "after {:?}", String::from_utf8_lossy(c.middle()));
            c.commit(step.as_bytes()).unwrap();
        }
        // `return foo(x) + fo` + `o(a, [1,\n 2])`: complete.
        c.fill_mask(&vocab, &mut mask);
        assert!(mask.contains(0) && c.is_complete());
        let err = c.commit(b")").unwrap_err();
        assert_eq!(err.offset, 0);
    }

    /// Taking only finishing-mask tokens joins the suffix within the bridge's length,
    /// whichever of them is taken, and then the mask is EOS alone.
    #[test]
    fn finishing_mask_joins_the_suffix() {
        let (vocab, kit) = python_kit();
        for pick_last in [false, true] {
            let mut c =
                FimConstraint::new(&kit, b"def f(a):\n    return fo", b"\n    x = a\n").unwrap();
            for step in ["o(", "x", " +", " (", "[1", ",", " y"] {
                let _ = c.commit(step.as_bytes());
            }
            let start = crate::fim_bridge::shortest_bridge(c.left(), c.suffix(), c.reentry())
                .unwrap()
                .len();
            let distance = c.finishing_distance(&vocab, 0).unwrap();
            assert!(distance <= start, "{distance} tokens for a bridge of {start} bytes");
            // Within the distance, so within the bridge's length too.
            finish_within(
                &mut c,
                &vocab,
                distance,
                |ids| if pick_last { ids.len() - 1 } else { 0 },
            );
            let mut mask = TokenSet::empty(vocab.len());
            assert_eq!(c.finishing_distance(&vocab, 0), Some(0));
            assert!(c.fill_finishing_mask(&vocab, &mut mask));
            assert_eq!(mask.iter().collect::<Vec<_>>(), vec![0]);
        }
    }

    /// The bridge's name is one choice: every short name that joins as well may be
    /// taken, and the plan goes on after it.
    #[test]
    fn finishing_mask_takes_any_name_for_the_plans_name() {
        let (vocab, kit) = python_kit();
        let mut c = FimConstraint::new(&kit, b"def f(a):\n    x = ", b"\n    return x\n").unwrap();
        let mut mask = TokenSet::empty(vocab.len());
        assert!(c.fill_finishing_mask(&vocab, &mut mask));
        let texts: Vec<&str> =
            mask.iter().map(|i| std::str::from_utf8(vocab.bytes(i as u32)).unwrap()).collect();
        for name in ["x", "y", "o", "1"] {
            assert!(texts.contains(&name), "{name} missing from {texts:?}");
        }
        assert!(!texts.contains(&"'"), "{texts:?}");
        let d = c.finishing_distance(&vocab, 0).unwrap();
        c.commit(b"y").unwrap();
        assert!(c.finishing_distance(&vocab, 0).unwrap() < d);
        assert!(c.is_complete());
    }

    /// A token off the plan leaves it stale; the next probe reuses a tail of it that
    /// still joins, and the finishing mask then joins within that bound.
    #[test]
    fn a_stale_plan_still_bounds_the_finish() {
        let (vocab, kit) = python_kit();
        let mut c =
            FimConstraint::new(&kit, b"def f(a):\n    return fo", b"\n    x = a\n").unwrap();
        c.commit(b"o(").unwrap();
        assert_eq!(c.finishing_distance(&vocab, 50), Some(1), "the bridge `)`");
        // A longer plan than the shortest, so the probe's answer tells which it used.
        c.plan = Some(b"y)".to_vec());
        c.commit(b" x").unwrap();
        assert!(c.plan.is_none() && c.stale_plan.is_some());
        let bound = c.finishing_distance(&vocab, 50).unwrap();
        assert_eq!(
            (bound, c.plan.as_deref()),
            (2, Some(&b"y)"[..])),
            "the stale plan still joins: no search"
        );
        // No search when the need is past the longest bridge.
        let mut far = c.clone();
        far.plan = None;
        assert_eq!(far.finishing_distance(&vocab, crate::fim_bridge::MAX_BRIDGE), None);
        finish_within(&mut c, &vocab, bound, |_| 0);
    }

    /// The worst case over the finishing mask's choices: at each step any token along
    /// the plan at least half as long as the longest one.
    #[test]
    fn worst_tokens_takes_the_longest_way_the_mask_allows() {
        let trie = TokTrie::new(&vocab());
        assert_eq!(trie.prefix_lengths(b"    if x:"), vec![1, 4]);
        // "    " (not " ": under half of 4), "if", then " " or " x" (" " + "x" is worse), ":".
        let worst = worst_tokens(b"    if x:", &trie);
        assert_eq!(worst[9], 5);
        assert_eq!((worst[1], worst[2], worst[3]), (1, 2, 3));
        // Bytes no token spells count one each.
        assert_eq!(worst_tokens(b"zz", &trie)[2], 2);
    }

    #[test]
    fn bad_requests_are_errors() {
        let (_, kit) = python_kit();
        let e = FimConstraint::new(&kit, b"x = )", b"").err().unwrap();
        assert!(e.to_string().contains("prefix"), "{e}");
        let e = FimConstraint::new(&kit, b"x = 1\n", b"\ny = = 2\n").err().unwrap();
        assert!(e.to_string().contains("no middle joins the suffix"), "{e}");
        let e = FimConstraint::new(&kit, b"x = '\xe9", b"'\n").err().unwrap();
        assert!(e.to_string().contains("offset 5"), "{e}");
    }
}
