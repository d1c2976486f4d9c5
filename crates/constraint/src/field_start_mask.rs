//! The nested mask at a fresh f-string replacement field: right after a level-0 `{`
//! the field's nested recognizer is always the same state
//! ([`espalier_grammar::Recognizer::field_start`], fed `(`), so the exact mask of
//! that recognizer (the first part of a field's mask, see [`crate::fstring_fields`])
//! is always the same too, for one trie and one language. It is computed once, at
//! setup, and copied at every field's first byte afterwards.
//!
//! Why: it is an expression start, the most expensive kind of exact mask, and a
//! field's first byte was the slowest step of `syncode` (which falls back to the
//! exact mask inside fields) on the mask benchmark files. Measured at
//! `f'Object of type {` in `json/encoder.py` (SmolLM2 vocabulary, `cargo run
//! --release -p espalier-constraint --example field_mask_probe --
//! /usr/lib/python3.11/json/encoder.py "f'Object of type {"`, two runs each, load
//! 1.3): the whole mask took 370-492 us as a constraint's first there, 97-123 us
//! warm; with the kept mask 83-131 us and 49-82 us. The cost moves to setup: the
//! first constraint over a trie builds these masks (0.45-0.5 ms, beside the ~190 ms
//! of lexeme-start summaries), each constraint clones the warm child walker (below:
//! `GrammarConstraint::new` 42-64 us instead of ~1 us).
//!
//! What it depends on: the recognizer (language), the trie, and the parent field's
//! spot ([`Spot::field_start`]: depth 0, not in a string, after `{`; only whether
//! the literal is triple-quoted varies), which says which tokens the parent re-checks
//! itself and so leaves out of the nested mask. Both spots are kept. Held by the trie
//! per language (weakly, like the lexeme-start summaries), not a global cache.

use std::sync::Arc;

use espalier_grammar::{Language, LrParser, Recognizer as GrammarRecognizer};

use crate::exact::ExactWalker;
use crate::fstring_fields::Spot;
use crate::{TokTrie, TokenSet};

/// The nested masks at a fresh field, for one-quote and triple-quoted literals, and
/// the walker that computed them.
#[derive(Debug)]
pub(crate) struct FieldStartMasks {
    /// Indexed by `triple as usize`.
    masks: [TokenSet; 2],
    /// The child walker that computed the masks and then one mask inside a name (the
    /// usual state in a field), so its scratch (held lexeme ends, pool slots,
    /// per-mask caches) is grown: a constraint starts its fields' walker as a clone
    /// of it ([`Self::warm_child`]), at setup. A fresh constraint's first mask at
    /// `f'Object of type {o.__cl` took 163-200 us before, against 105 us once the
    /// walker's scratch was grown (same probe, before the field memos).
    child: ExactWalker<LrParser>,
}

impl FieldStartMasks {
    /// Computes both masks (the child walk [`crate::fstring_fields::FieldMasks`]
    /// would make at a field's first byte, representatives only).
    pub(crate) fn build(trie: &TokTrie, lang: &Arc<Language>) -> Self {
        let fresh = GrammarRecognizer::field_start(lang);
        let mut child = ExactWalker::new(&fresh, trie.lexeme_starts(&lang.dfa));
        let mut mask = TokenSet::empty(trie.vocab_len());
        let masks = [false, true].map(|triple| {
            child.parent_spot = Some(Spot::field_start(triple));
            child.fill_reps(&fresh, trie, &mut mask);
            mask.clone()
        });
        let mut name = fresh.clone();
        if name.try_push_bytes(b"x") {
            child.parent_spot = Some(Spot::in_expression(false));
            child.fill_reps(&name, trie, &mut mask);
        }
        FieldStartMasks { masks, child }
    }

    /// The nested mask at a fresh field of a literal (`triple`: triple-quoted).
    pub(crate) fn get(&self, triple: bool) -> &TokenSet {
        &self.masks[usize::from(triple)]
    }

    /// A child walker with its scratch grown (a clone of the one kept).
    pub(crate) fn warm_child(&self) -> ExactWalker<LrParser> {
        self.child.clone()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use espalier_grammar::Recognizer as GrammarRecognizer;

    use crate::exact::ExactWalker;
    use crate::fstring_fields::Spot;
    use crate::{GrammarConstraint, Strategy, TokTrie, TokenSet, Vocab};

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
        let kept = trie.field_start_masks(&lang);
        assert!(
            Arc::ptr_eq(&kept, &trie.field_start_masks(&lang)),
            "built once per trie and language"
        );
        let fresh = GrammarRecognizer::field_start(&lang);
        for triple in [false, true] {
            let mut walker = ExactWalker::new(&fresh, trie.lexeme_starts(&lang.dfa));
            walker.parent_spot = Some(Spot::field_start(triple));
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
        let trie = Arc::new(TokTrie::new(&vocab));
        let texts = [
            "z = f'{a}{ab!r} {x:>{y}}' + f\"{(x)}\"\n",
            "z = f\"\"\"{a\n}{\nx} {f'{ab}'}\"\"\" + rf'{x}'\n",
            "z = f'{self}' f\"{[1, f'{x}']}\"\n",
        ];
        for text in texts {
            let mut c = GrammarConstraint::new(
                lang.recognizer(),
                trie.clone(),
                Strategy::Exact,
                "python-lr",
            );
            crate::grammar_constraint::assert_exact_is_check_along(&mut c, &vocab, text.as_bytes());
        }
    }
}
