//! [`NamesConstraint`]: mode `names` for Python (issue 34): the grammar's exact mask
//! intersected with the names layer of `espalier-names` (a read of a name Python
//! cannot resolve is refused at the first byte every continuation reads it). A token
//! is allowed when the grammar's recognizer and the layer both take all its bytes;
//! EOS when the grammar is complete and the layer lets the text end there.
//!
//! The layer judges the tokens the grammar allows by groups (`espalier_names::layer`'s
//! `VocabMask`): tokens with the same bytes before their trailing identifier run are
//! read once, on a copy of the layer, and the runs are checked against the names in
//! scope through a trie of the vocabulary's runs, built once per vocabulary (with the
//! kit: [`NamesKit`], which also keeps the masks' scratch between requests). A token's
//! verdict is exactly what pushing its bytes through the layer gives (the brute-force
//! suite `tests/it/names_masks.rs`).
//! Forward references are refused (`espalier_names::layer`): generation under the
//! HumanEval stop strings ends at the next top-level statement, so a helper the text
//! has not defined yet would never be.

use std::sync::{Arc, Mutex};

use espalier_constraint::{
    Commit, Constraint, GrammarConstraint, Inspection, Rejected, TokenSet, Vocab,
};
use espalier_names::layer::{NamesLayer, TokenClasses, VocabMask};

use crate::names_keyword_check::KeywordCheck;

/// The grammar constraint and the names layer, read together.
pub struct NamesConstraint {
    grammar: GrammarConstraint,
    layer: NamesLayer,
    /// The vocabulary's groups (the kit's).
    classes: Arc<TokenClasses>,
    /// The kit's pool of scratch the masks reuse.
    pool: Arc<Mutex<Vec<VocabMask>>>,
    /// Reused by the masks (taken from `pool` at the first mask, given back on
    /// drop).
    mask: Option<VocabMask>,
    /// The tokens the layer refuses at the position (reused).
    refused: TokenSet,
    /// The dead-end check of the keywords the layer leaves (its keyword parts: the
    /// kit's).
    keywords: KeywordCheck,
    /// The wrap-up's way out being followed (`crate::names_finish`): the bytes still
    /// to write, once the grammar's finishing mask was refused by the layer; dropped
    /// when a commit leaves it.
    plan: Option<Vec<u8>>,
}

/// Mode `names`' per-vocabulary state, a kit's part: the vocabulary's groups (built
/// now, in setup, so that no first mask does) and the masks' scratch of constraints
/// dropped (a fresh one fills its copies of the layer on its first masks: ~1 ms, the
/// first step of every request otherwise).
#[derive(Clone)]
pub struct NamesKit {
    classes: Arc<TokenClasses>,
    pool: Arc<Mutex<Vec<VocabMask>>>,
    keywords: KeywordCheck,
}

/// How many scratches a kit's pool keeps.
const SCRATCH_KEPT: usize = 4;

impl NamesKit {
    /// Builds `vocab`'s groups.
    pub fn new(vocab: &Vocab) -> Self {
        Self {
            classes: Arc::new(TokenClasses::new(vocab.tokens())),
            pool: Arc::new(Mutex::new(Vec::new())),
            keywords: KeywordCheck::new(vocab),
        }
    }
}

impl Drop for NamesConstraint {
    fn drop(&mut self) {
        if let Some(m) = self.mask.take() {
            let mut kept = self.pool.lock().unwrap_or_else(|e| e.into_inner());
            if kept.len() < SCRATCH_KEPT {
                kept.push(m);
            }
        }
    }
}

impl Clone for NamesConstraint {
    /// A copy takes its masks' scratch from the kit's pool too.
    fn clone(&self) -> Self {
        Self {
            grammar: self.grammar.clone(),
            layer: self.layer.clone(),
            classes: self.classes.clone(),
            pool: self.pool.clone(),
            mask: None,
            refused: self.refused.clone(),
            keywords: self.keywords.clone(),
            plan: self.plan.clone(),
        }
    }
}

impl NamesConstraint {
    /// `grammar` (nothing committed yet) with a fresh names layer, reading `kit`'s
    /// groups (the vocabulary's).
    pub fn new(grammar: GrammarConstraint, kit: &NamesKit) -> Self {
        Self {
            grammar,
            layer: NamesLayer::new(),
            classes: kit.classes.clone(),
            pool: kit.pool.clone(),
            mask: None,
            refused: TokenSet::empty(0),
            keywords: KeywordCheck::from_parts(kit.keywords.parts().clone()),
            plan: None,
        }
    }

    /// The grammar constraint inside.
    pub fn grammar(&self) -> &GrammarConstraint {
        &self.grammar
    }

    /// The names a read sees at the end of the text, innermost scope first, builtins
    /// left out (what the inspector lists: [`Inspection::names_in_scope`]).
    pub fn names_in_scope(&self) -> Vec<String> {
        self.layer.names_in_scope()
    }

    /// Removes from `mask` the tokens the layer refuses, and EOS where the layer does
    /// not let the text end.
    fn filter(&mut self, vocab: &Vocab, mask: &mut TokenSet) {
        if self.classes.len() != vocab.len() {
            // Not the kit's vocabulary: its own groups, not shared.
            self.classes = Arc::new(TokenClasses::new(vocab.tokens()));
            self.keywords = KeywordCheck::new(vocab);
        }
        let classes = self.classes.clone();
        let eos = vocab.eos() as usize;
        if self.refused.capacity() != mask.capacity() {
            self.refused = TokenSet::empty(mask.capacity());
        }
        let pool = &self.pool;
        let scratch = self.mask.get_or_insert_with(|| {
            pool.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default()
        });
        scratch.refused(
            &self.layer,
            &classes,
            vocab.tokens(),
            mask.words(),
            Some(eos),
            self.refused.words_mut(),
        );
        mask.subtract(&self.refused);
        self.keywords.remove_dead_ends(&self.grammar, &self.layer, vocab, mask);
        if mask.contains(eos) && !self.layer.may_end() {
            mask.remove(eos);
        }
    }
}

impl NamesConstraint {
    /// The way out after `bytes` were committed: its rest when they began it, else
    /// none.
    fn follow_plan(&mut self, bytes: &[u8]) {
        match &mut self.plan {
            Some(p) if p.starts_with(bytes) => {
                p.drain(..bytes.len());
            }
            _ => self.plan = None,
        }
    }

    /// Fills `mask` with the tokens whose bytes start the way out (each a prefix of
    /// the plan: the grammar and the layer read them all when it was made); `false`
    /// when there is no plan or no such token (then `mask` is empty).
    fn along_plan(&self, vocab: &Vocab, mask: &mut TokenSet) -> bool {
        if mask.capacity() != vocab.len() {
            *mask = TokenSet::empty(vocab.len());
        }
        mask.clear();
        let Some(plan) = self.plan.as_deref() else { return false };
        for id in 0..vocab.len() as u32 {
            let bytes = vocab.bytes(id);
            if !vocab.is_special(id) && !bytes.is_empty() && plan.starts_with(bytes) {
                mask.insert(id as usize);
            }
        }
        if plan.is_empty() {
            mask.insert(vocab.eos() as usize);
        }
        !mask.is_empty()
    }
}

impl Constraint for NamesConstraint {
    fn is_complete(&self) -> bool {
        self.grammar.is_complete() && self.layer.may_end()
    }

    fn allows(&self, bytes: &[u8]) -> bool {
        self.grammar.allows(bytes)
            && self.layer.clone().push_bytes(bytes)
            && KeywordCheck::keeps(&self.grammar, &self.layer, bytes)
    }

    fn fill_mask(&mut self, vocab: &Vocab, mask: &mut TokenSet) {
        self.grammar.fill_mask(vocab, mask);
        self.filter(vocab, mask);
    }

    fn commit(&mut self, bytes: &[u8]) -> Result<Commit, Rejected> {
        let mut layer = self.layer.clone();
        if let Some(i) = bytes.iter().position(|&b| !layer.push_byte(b)) {
            return Err(Rejected {
                offset: i,
                expected: format!(
                    "a name bound at this point (byte {:?} at offset {} reads a name no scope binds)",
                    char::from(bytes[i]),
                    self.grammar.bytes_fed() + i
                ),
            });
        }
        let commit = self.grammar.commit(bytes)?;
        layer.settle();
        self.layer = layer;
        self.follow_plan(bytes);
        Ok(commit)
    }

    /// The grammar's inspection, of kind `python-names`, with the names in scope
    /// ([`NamesConstraint::names_in_scope`]).
    fn inspect(&self) -> Inspection {
        let mut out = self.grammar.inspect();
        out.kind = "python-names".to_string();
        out.names_in_scope = Some(self.names_in_scope());
        out
    }

    /// The grammar's finishing mask less what the layer refuses; where that leaves
    /// nothing (every shortest way out reads a name the layer holds open), the tokens
    /// along the way out of `crate::names_finish`, followed to the end once begun;
    /// where no way out is found, every allowed token.
    fn fill_finishing_mask(&mut self, vocab: &Vocab, mask: &mut TokenSet) -> bool {
        if self.plan.as_ref().is_some_and(|p| !p.is_empty()) && self.along_plan(vocab, mask) {
            return true;
        }
        if !self.grammar.fill_finishing_mask(vocab, mask) {
            return false;
        }
        self.filter(vocab, mask);
        if !mask.is_empty() {
            return true;
        }
        self.plan = crate::names_finish::way_out(&self.grammar, &self.layer);
        if !self.along_plan(vocab, mask) {
            self.plan = None;
            self.fill_mask(vocab, mask);
        }
        true
    }

    /// The grammar's remaining cost, or where the layer owes a name the length of the
    /// way out (`crate::names_finish`), which settles it first.
    fn finishing_distance(&mut self, vocab: &Vocab, enough: usize) -> Option<usize> {
        let grammar = self.grammar.finishing_distance(vocab, enough);
        if self.layer.owed() == 0 {
            return grammar;
        }
        crate::names_finish::way_out(&self.grammar, &self.layer).map(|p| p.len()).or(grammar)
    }

    fn vocab_width(&self) -> Option<usize> {
        self.grammar.vocab_width()
    }
}

#[cfg(test)]
mod tests {
    use espalier_constraint::{MaskKit, Strategy};

    use super::*;

    fn vocab() -> Vocab {
        let words = [
            "<eos>", "def", " f", "(", "a", ")", ":", "\n", "    ", "return", " a", " b", " zz",
            " len", "(a", "))", " +", " 1", "\n\n", "x", " =", "print", "x)", " x",
        ];
        Vocab::new(words.iter().map(|w| w.as_bytes().to_vec()).collect(), &[0], 0)
    }

    fn constraint(v: &Vocab) -> NamesConstraint {
        let kit = MaskKit::for_vocab(espalier_grammar::python().unwrap(), v);
        NamesConstraint::new(
            GrammarConstraint::new(&kit, Strategy::Exact, "python-lr"),
            &NamesKit::new(v),
        )
    }

    #[test]
    fn the_mask_is_the_grammars_less_the_unbound_reads() {
        let v = vocab();
        let mut c = constraint(&v);
        c.commit(b"def f(a):\n    return").unwrap();
        let mut mask = TokenSet::empty(v.len());
        c.fill_mask(&v, &mut mask);
        let id = |w: &str| (0..v.len()).find(|&i| v.bytes(i as u32) == w.as_bytes()).unwrap();
        assert!(mask.contains(id(" a")) && mask.contains(id(" len")));
        // ` b` starts builtins (`bool`, `bytes`): allowed until it ends; ` zz` starts none.
        assert!(mask.contains(id(" b")));
        assert!(!mask.contains(id(" zz")));
        c.commit(b" a +").unwrap();
        let err = c.commit(b" zz").unwrap_err();
        assert_eq!(err.offset, 2, "the layer refuses the second `z` on commit too");
        let inspection = c.inspect();
        assert_eq!(inspection.kind, "python-names");
        assert_eq!(inspection.names_in_scope, Some(vec!["a".to_string(), "f".to_string()]));
        assert_eq!(c.names_in_scope(), ["a", "f"]);
    }

    #[test]
    fn a_keyword_only_the_layer_leaves_must_be_one_the_grammar_takes() {
        let words =
            ["<eos>", "x", " =", " 1", "\n", " and", " +", " yi", "eld", " yield", " no", " not"];
        let v = Vocab::new(words.iter().map(|w| w.as_bytes().to_vec()).collect(), &[0], 0);
        let kit = MaskKit::for_vocab(espalier_grammar::python().unwrap(), &v);
        let id = |w: &str| words.iter().position(|x| *x == w).unwrap();
        let mask_after = |text: &[u8]| {
            let grammar = GrammarConstraint::new(&kit, Strategy::Exact, "python-lr");
            let mut c = NamesConstraint::new(grammar, &NamesKit::new(&v));
            c.commit(text).unwrap();
            let mut mask = TokenSet::empty(v.len());
            c.fill_mask(&v, &mut mask);
            (c, mask)
        };
        // `x = yield` is Python: every way to it stays.
        let (_, m) = mask_after(b"x = 1\nx =");
        assert!(m.contains(id(" yi")) && m.contains(id(" yield")) && m.contains(id(" not")));
        // After `and`, `not` goes on but `yield` does not (MBPP/298's dead end).
        let (c, m) = mask_after(b"x = 1\nx = x and");
        assert!(!m.contains(id(" yi")) && !m.contains(id(" yield")), "yield after and");
        assert!(m.contains(id(" no")) && m.contains(id(" not")));
        assert!(!c.allows(b" yi") && c.allows(b" no"));
        // After `+`, neither.
        let (_, m) = mask_after(b"x = 1\nx = x +");
        assert!(!m.contains(id(" no")) && !m.contains(id(" not")) && !m.contains(id(" yi")));
        assert!(m.contains(id(" 1")) && m.contains(id("x")));
    }

    #[test]
    fn eos_waits_for_the_last_statements_names() {
        let v = vocab();
        let mut c = constraint(&v);
        c.commit(b"x = 1\nx").unwrap();
        assert!(c.is_complete());
        let mut d = constraint(&v);
        d.commit(b"x = 1\ny").unwrap();
        assert!(!d.is_complete(), "`y` alone would read an unbound name");
        let mut mask = TokenSet::empty(v.len());
        d.fill_mask(&v, &mut mask);
        assert!(!mask.contains(0));
        assert!(mask.contains(v.len() - 4), "` =` makes `y` a target");
    }
}
