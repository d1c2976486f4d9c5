//! [`GrammarConstraint`]: the [`Constraint`] of a grammar (Python, Go), over any
//! byte-level recognizer, with the mask strategy chosen at run time.
//!
//! The constraint keeps one recognizer state (the text so far). `exact` walks the
//! vocabulary trie through it ([`crate::exact`]); `syncode` asks the recognizer for
//! its accept sequences and remainder and unions rows of a precomputed mask store
//! ([`crate::mask_store`]); `check` pushes one token's bytes through a copy of the
//! state. EOS is allowed exactly when the recognizer says the text is complete.
//! An exact mask is often one computed before (inside a lexeme, the last one): the
//! constraint keeps the last 64 ([`crate::mask_memo`]); the first, from the empty
//! text, is the kit's, computed once per language and vocabulary
//! ([`crate::start_mask`]). Everything derived from the vocabulary (trie, summaries,
//! layer data, store, cost cache) comes from the [`MaskKit`] it is made from.

use std::sync::Arc;

use espalier_grammar::{LrParser, Recognizer as GrammarRecognizer, TokenParser};

use crate::cost_cache::CostCache;
use crate::exact::ExactWalker;
use crate::finishing::Finishing;
use crate::mask_kit::MaskKit;
use crate::mask_memo::MaskMemo;
use crate::mask_store::MaskStore;
use crate::start_mask::StartMask;
use crate::{
    ByteState, Commit, Constraint, Inspection, Rejected, Strategy, TokTrie, TokenSet, Vocab,
};

/// Masks computed by [`GrammarConstraint::warm_up`].
const WARM_UP_MASKS: usize = 3;

/// A grammar as a [`Constraint`]: see the module doc. `P` is the parser behind the
/// recognizer (LR by default; the Earley recognizer works too).
#[derive(Clone)]
pub struct GrammarConstraint<P: TokenParser = LrParser> {
    state: GrammarRecognizer<P>,
    strategy: Strategy,
    /// The trie, summaries, layer data, SynCode store and cost cache of the
    /// language and vocabulary.
    kit: MaskKit,
    walker: ExactWalker<P>,
    /// The last exact masks (EOS decided), reused where the state accepts the same
    /// continuations as at one of them ([`crate::mask_memo`]).
    memo: MaskMemo<P>,
    /// A spare recognizer state, reused by the completeness check of every mask and
    /// by commits (no allocation per step once warm).
    scratch: GrammarRecognizer<P>,
    kind: String,
    text: Vec<u8>,
    /// The empty text's exact mask (the kit's, see [`crate::start_mask`]) when the
    /// constraint starts from the empty text; used while nothing is read.
    start_mask: Option<Arc<StartMask>>,
}

impl GrammarConstraint<LrParser> {
    /// A constraint from the empty text of `kit`'s language, over `kit`'s vocabulary
    /// (LR parser). `kind` names it in [`Inspection::kind`] (e.g. `python-lr`). The
    /// `syncode` strategy uses the kit's store ([`MaskKit::with_store`], or
    /// [`Self::with_store`]).
    pub fn new(kit: &MaskKit, strategy: Strategy, kind: impl Into<String>) -> Self {
        Self::from_start(kit.language().recognizer(), kit, strategy, kind)
    }
}

impl<P: TokenParser> GrammarConstraint<P> {
    /// A constraint starting from `start`, a recognizer of `kit`'s language (another
    /// parser than LR, e.g. Earley, or a state already fed), over `kit`'s vocabulary.
    pub fn from_start(
        start: GrammarRecognizer<P>,
        kit: &MaskKit,
        strategy: Strategy,
        kind: impl Into<String>,
    ) -> Self {
        let walker = kit.walker(&start);
        let start_mask = kit.start_mask_of(&start);
        let scratch = start.clone();
        Self {
            state: start,
            strategy,
            kit: kit.clone(),
            walker,
            memo: MaskMemo::new(),
            scratch,
            kind: kind.into(),
            text: Vec::new(),
            start_mask,
        }
    }

    /// Uses `cache` for the finishing masks' costs instead of the kit's (e.g. a
    /// fresh one: every context costed from scratch).
    pub fn with_cost_cache(mut self, cache: CostCache) -> Self {
        self.kit = self.kit.with_cost_cache(cache);
        self
    }

    /// Attaches the SynCode mask store (built for the same grammar and vocabulary)
    /// instead of the kit's.
    pub fn with_store(mut self, store: Arc<MaskStore>) -> Self {
        self.kit = self.kit.with_store(store);
        self
    }

    /// The strategy in use.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Switches strategy (e.g. a benchmark comparing them on one text).
    pub fn set_strategy(&mut self, strategy: Strategy) {
        self.strategy = strategy;
    }

    /// The recognizer state after the text so far.
    pub fn state(&self) -> &GrammarRecognizer<P> {
        &self.state
    }

    /// How many bytes have been committed.
    pub fn bytes_fed(&self) -> usize {
        self.text.len()
    }

    /// The committed text.
    pub fn text(&self) -> &[u8] {
        &self.text
    }

    /// Work counters of the last exact walk: (trie nodes offered, full recognizer
    /// steps), for benchmarks; (0, 0) when the last mask was a reused one.
    pub fn last_walk_work(&self) -> (usize, usize) {
        (self.walker.last_nodes, self.walker.last_heavy)
    }

    /// How many exact masks were a kept mask of an earlier step, reused
    /// ([`crate::mask_memo`]): a work counter for tests and benchmarks.
    pub fn reused_masks(&self) -> usize {
        self.memo.reused
    }

    /// Whether a SynCode store is attached.
    pub fn has_store(&self) -> bool {
        self.kit.store().is_some()
    }

    /// Computes a few throwaway masks (the state stays as it was), so that first-call
    /// costs fall here rather than on a decoder's first steps (the kit's summaries
    /// and layer data were built with the kit): in wasm, the engine compiling the
    /// mask's functions on their first call (V8 compiles lazily: node's first mask
    /// took 1.2-4 ms against 0.3 ms once compiled; see `results/masks/README.md`).
    /// The first mask is the current state's; the others follow the longest allowed
    /// token from there, so that a mask inside a lexeme (the usual case, another
    /// code path) is met too. Then one mask after each byte of the language's
    /// warm-up text ([`crate::warm_up_sample`], read from this state as far as it is
    /// accepted), for the paths a file meets later. Call it once after building a
    /// constraint, in setup.
    pub fn warm_up(&mut self, vocab: &Vocab) {
        let mut mask = TokenSet::empty(vocab.len());
        self.fill_mask(vocab, &mut mask);
        let mut probe = self.clone();
        for _ in 1..WARM_UP_MASKS {
            let longest = mask
                .iter()
                .filter(|&t| t != vocab.eos() as usize)
                .max_by_key(|&t| vocab.bytes(t as u32).len());
            match longest {
                Some(t) if probe.commit(vocab.bytes(t as u32)).is_ok() => {
                    probe.fill_mask(vocab, &mut mask)
                }
                _ => break,
            }
        }
        if let Some(text) = crate::warm_up_sample::sample(self.state.language()) {
            let mut probe = self.clone();
            for &b in text {
                if probe.commit(&[b]).is_err() {
                    break;
                }
                probe.fill_mask(vocab, &mut mask);
            }
        }
    }

    /// The exact mask, whatever the strategy (the oracle the others are measured
    /// against). Does not set EOS or special tokens.
    pub fn exact_mask(&mut self, mask: &mut TokenSet) {
        if let Some(start) = self.start_mask.as_ref().filter(|_| self.state.offset() == 0) {
            mask.clone_from(start.mask());
            (self.walker.last_nodes, self.walker.last_heavy) = (0, 0);
            return;
        }
        self.walker.fill(&self.state, self.kit.trie(), mask);
    }

    /// The SynCode mask (sound over-approximation). Does not set EOS. Falls back to
    /// the exact mask when no store is attached, or the remainder may still split
    /// into several lexemes (see `remainder_may_split`), and says so by returning
    /// `false`.
    pub fn syncode_mask(&mut self, mask: &mut TokenSet) -> bool {
        if let Some(store) = self.kit.store() {
            if !self.remainder_may_split() && store.fill(&self.state, mask) {
                return true;
            }
        }
        self.exact_mask(mask);
        false
    }

    /// Whether the remainder is not itself a complete lexeme but has one as a proper
    /// prefix (e.g. `..`, read as `.` `.` unless a third `.` comes): the lexer may
    /// then end a lexeme inside the remainder and re-read the rest, which SynCode's
    /// accept sequences do not describe, so the store is not consulted (O(remainder
    /// length) DFA steps).
    fn remainder_may_split(&self) -> bool {
        let rem = self.state.remainder();
        let dfa = &self.state.language().dfa;
        if rem.len < 2 || !dfa.winners(rem.dfa_state).is_empty() {
            return false;
        }
        let tail = self.state.remainder_bytes();
        let mut q = espalier_grammar::LexerDfa::START;
        for &b in &tail[..tail.len().saturating_sub(1)] {
            q = dfa.next(q, b);
            if !dfa.winners(q).is_empty() {
                return true;
            }
        }
        false
    }

    /// The finishing mask (see [`crate::finishing`]): the allowed tokens that strictly
    /// lower the remaining cost to a complete program, EOS alone once complete.
    /// `None` (mask untouched) for parsers without LR stacks (Earley).
    pub fn finishing_mask(&mut self, vocab: &Vocab, mask: &mut TokenSet) -> Option<Finishing> {
        crate::finishing::finishing_mask(self, vocab, mask, crate::finishing::Scoring::Trie)
    }

    /// [`Self::finishing_mask`] scoring each allowed token on its own copy of the
    /// recognizer, with no cost cache: the slow reference the trie-walk scoring (and
    /// the cached costs) are tested against.
    #[doc(hidden)]
    pub fn finishing_mask_per_token(
        &mut self,
        vocab: &Vocab,
        mask: &mut TokenSet,
    ) -> Option<Finishing> {
        crate::finishing::finishing_mask(self, vocab, mask, crate::finishing::Scoring::PerToken)
    }

    /// The bytes that strictly lower the remaining cost ([`Self::finishing_cost`]) of
    /// the text, with the cost after each, fewest first, into `out`; returns the cost
    /// now (`None`: no plan, or no LR stacks). For constraints that check more than
    /// the grammar and plan their wrap-up byte by byte (mode `names`).
    pub fn lowering_bytes(&self, out: &mut Vec<(u8, u32)>) -> Option<u32> {
        crate::finishing::lowering_bytes(self, out)
    }

    /// The vocabulary's trie.
    pub fn trie(&self) -> &Arc<TokTrie> {
        self.kit.trie()
    }

    /// The kit the constraint was made from.
    pub fn kit(&self) -> &MaskKit {
        &self.kit
    }

    /// The finishing masks' cache of costs.
    pub fn cost_cache(&self) -> &CostCache {
        self.kit.cost_cache()
    }

    /// The remaining cost of the text so far: how many bytes, under the cost model of
    /// [`espalier_grammar::CompletionCosts`], still separate it from a complete
    /// program (0 when complete). Taking only finishing-mask tokens ends the program
    /// within this many tokens. `None` when the model finds no plan or the parser has
    /// no LR stacks.
    pub fn finishing_cost(&self) -> Option<u32> {
        crate::remaining_cost::remaining_cost(&self.state)
    }

    /// The token mask by checking every token on its own (what adaptive rejection
    /// would conclude for each token). Does not set EOS.
    pub fn check_mask(&self, vocab: &Vocab, mask: &mut TokenSet) {
        mask.clear();
        for id in 0..vocab.len() as u32 {
            if !vocab.is_special(id) && self.allows(vocab.bytes(id)) {
                mask.insert(id as usize);
            }
        }
    }
}

impl<P: TokenParser> Constraint for GrammarConstraint<P> {
    fn is_complete(&self) -> bool {
        self.state.is_complete()
    }

    fn allows(&self, bytes: &[u8]) -> bool {
        if bytes.is_empty() {
            return false;
        }
        let mut s = self.state.clone();
        s.try_push_bytes(bytes)
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
        let exact = self.strategy == Strategy::Exact;
        if exact && self.memo.recall(&self.state, mask) {
            (self.walker.last_nodes, self.walker.last_heavy) = (0, 0);
            return;
        }
        match self.strategy {
            Strategy::Exact => self.exact_mask(mask),
            Strategy::Syncode => {
                self.syncode_mask(mask);
            }
            Strategy::Check => self.check_mask(vocab, mask),
        }
        // Special tokens never come from a grammar: the trie and the store hold none,
        // and `check_mask` skips them.
        if self.state.is_complete_using(&mut self.scratch) {
            mask.insert(vocab.eos() as usize);
        } else {
            mask.remove(vocab.eos() as usize);
        }
        if exact {
            self.memo.keep(&self.state, mask);
        }
    }

    fn vocab_width(&self) -> Option<usize> {
        Some(self.kit.vocab_len())
    }

    fn commit(&mut self, bytes: &[u8]) -> Result<Commit, Rejected> {
        let s = &mut self.scratch;
        s.clone_from(&self.state);
        for (i, &b) in bytes.iter().enumerate() {
            if !s.try_push_byte(b) {
                return Err(Rejected {
                    offset: i,
                    expected: format!(
                        "a continuation of a valid {} program (byte {:?} at offset {} of the \
                         token ends every parse)",
                        self.kind,
                        char::from(b),
                        self.text.len() + i
                    ),
                });
            }
        }
        std::mem::swap(&mut self.state, &mut self.scratch);
        self.text.extend_from_slice(bytes);
        Ok(Commit::Accepted)
    }

    fn fill_finishing_mask(&mut self, vocab: &Vocab, mask: &mut TokenSet) -> bool {
        self.finishing_mask(vocab, mask).is_some()
    }

    /// The remaining cost ([`GrammarConstraint::finishing_cost`]): each finishing-mask
    /// token lowers it by at least one.
    fn finishing_distance(&mut self, _vocab: &Vocab, _enough: usize) -> Option<usize> {
        self.finishing_cost().map(|c| c as usize)
    }

    fn inspect(&self) -> Inspection {
        let mut out = Inspection { kind: self.kind.clone(), ..Inspection::default() };
        self.state.describe(&mut out);
        let tail = self.state.remainder_bytes();
        if !tail.is_empty() {
            out.remainder = Some(String::from_utf8_lossy(tail).into_owned());
        }
        out
    }
}

/// Test helper: commits `text` byte by byte from `c`'s state, asserting before each
/// byte that the exact mask equals checking every token on its own (`Strategy::Check`).
#[cfg(test)]
pub(crate) fn assert_exact_is_check_along(c: &mut GrammarConstraint, vocab: &Vocab, text: &[u8]) {
    let (mut exact, mut check) = (TokenSet::empty(vocab.len()), TokenSet::empty(vocab.len()));
    for &byte in text {
        c.fill_mask(vocab, &mut exact);
        c.set_strategy(Strategy::Check);
        c.fill_mask(vocab, &mut check);
        c.set_strategy(Strategy::Exact);
        assert_eq!(exact, check, "after {:?}", String::from_utf8_lossy(c.text()));
        c.commit(&[byte]).expect("the text is accepted");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use espalier_grammar::Language;

    /// A small expression language: brute-force checks stay cheap.
    fn lang() -> Arc<Language> {
        crate::toy::toy_language()
    }

    fn vocab() -> Vocab {
        crate::toy::toy_vocab(
            &["<eos>", "<bos>"],
            &["return", " return", "retur", "n ", "x;", "x=1;", "\u{e9}"],
        )
    }

    #[test]
    fn exact_and_check_masks_agree_and_eos_marks_completion() {
        let vocab = vocab();
        let kit = MaskKit::for_vocab(lang(), &vocab);
        let mut c = GrammarConstraint::new(&kit, Strategy::Exact, "toy");
        let mut exact = TokenSet::empty(vocab.len());
        let mut check = TokenSet::empty(vocab.len());
        for step in b"x = (1 + ab) + ret; return (x);retur".iter() {
            c.fill_mask(&vocab, &mut exact);
            c.set_strategy(Strategy::Check);
            c.fill_mask(&vocab, &mut check);
            c.set_strategy(Strategy::Exact);
            assert_eq!(exact, check, "after {:?}", String::from_utf8_lossy(c.text()));
            assert_eq!(exact.contains(0), c.is_complete());
            assert!(!exact.contains(1), "special tokens are never allowed");
            assert!(!exact.is_empty());
            assert_eq!(c.commit(&[*step]), Ok(Commit::Accepted));
        }
    }

    #[test]
    fn warm_up_leaves_the_state_and_the_masks_as_they_were() {
        let vocab = vocab();
        let kit = MaskKit::for_vocab(lang(), &vocab);
        let mut cold = GrammarConstraint::new(&kit, Strategy::Exact, "toy");
        let mut warm = cold.clone();
        warm.warm_up(&vocab);
        let (mut a, mut b) = (TokenSet::empty(vocab.len()), TokenSet::empty(vocab.len()));
        for token in [&b"x = "[..], b"(1", b" + ab", b");"] {
            warm.warm_up(&vocab);
            assert_eq!(warm.text(), cold.text());
            cold.fill_mask(&vocab, &mut a);
            warm.fill_mask(&vocab, &mut b);
            assert_eq!(a, b, "after {:?}", String::from_utf8_lossy(cold.text()));
            assert_eq!(cold.commit(token), warm.commit(token));
        }
    }

    #[test]
    fn commit_refuses_at_the_first_bad_byte_and_keeps_the_state() {
        let vocab = vocab();
        let kit = MaskKit::for_vocab(lang(), &vocab);
        let mut c = GrammarConstraint::new(&kit, Strategy::Check, "toy");
        c.commit(b"x = ab").unwrap();
        let err = c.commit(b"+;").unwrap_err();
        assert_eq!(err.offset, 1);
        assert!(err.to_string().contains("offset 7"), "{err}");
        assert_eq!(c.bytes_fed(), 6);
        assert!(c.allows(b";"));
        let inspection = c.inspect();
        assert_eq!(inspection.kind, "toy");
        assert_eq!(inspection.remainder.as_deref(), Some("ab"));
        assert!(!inspection.accept_sequences.is_empty());
        assert_eq!(
            inspection.stack.first().map(String::as_str),
            Some("0"),
            "{:?}",
            inspection.stack
        );
        assert!(inspection.stack.iter().any(|e| e.starts_with("NAME:")), "{:?}", inspection.stack);
    }
}
