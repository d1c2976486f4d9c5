//! The exact mask of a language's empty text, for one trie: every constraint that
//! starts from the empty text (a new file, a generation without a code prefix) has
//! the same first mask, so it is computed once, when the first constraint over the
//! trie is built, and copied by the others at their first step.
//!
//! Why: at a file's start every statement can begin, the most expensive kind of
//! exact mask; on the mask benchmark it was the slowest step of three files in five
//! (`espalier bench mask --worst 6` on textwrap, heapq, colorsys, bisect and
//! json/encoder: 256-368 us of CPU at byte 0, AMD EPYC), paid again by every
//! constraint.
//!
//! When it applies: the constraint's start is [`GrammarRecognizer::is_at_text_start`]
//! and its parser's LR stacks are the initial ones (the memo's own test of equal
//! parsers, `mask_memo`, for the same language), and nothing has been read since.
//! A start with another layout (fill in the middle) or a parser fed before does not
//! match, nor does a parser without LR stacks (Earley). The mask is the set of tokens
//! whose bytes keep the empty text viable, whatever parser computed it. Held by the
//! kit ([`crate::MaskKit`], one per language and vocabulary), not a global cache.

use espalier_grammar::{LrParser, LrState, Recognizer as GrammarRecognizer, TokenParser};

use crate::exact::ExactWalker;
use crate::{TokTrie, TokenSet};

/// The empty text's exact mask (no EOS: the constraint decides it) and the parser
/// state it was computed at.
#[derive(Debug)]
pub(crate) struct StartMask {
    /// The initial LR stacks of the language's parser.
    stacks: Vec<Vec<LrState>>,
    mask: TokenSet,
}

impl StartMask {
    /// Walks the trie from `start`, the language's empty text, with `walker` (the
    /// kit's: summaries and layer).
    pub(crate) fn build(
        start: &GrammarRecognizer<LrParser>,
        trie: &TokTrie,
        walker: &mut ExactWalker<LrParser>,
    ) -> Self {
        let mut mask = TokenSet::empty(trie.vocab_len());
        walker.fill(start, trie, &mut mask);
        let stacks = start.parser().lr_stacks().map(<[Vec<LrState>]>::to_vec).unwrap_or_default();
        StartMask { stacks, mask }
    }

    /// Whether `state` is the empty text this mask was computed at.
    pub(crate) fn is_start_of<P: TokenParser>(&self, state: &GrammarRecognizer<P>) -> bool {
        state.is_at_text_start()
            && state.parser().lr_stacks().is_some_and(|s| s == self.stacks.as_slice())
    }

    /// The exact mask of the empty text (without EOS).
    pub(crate) fn mask(&self) -> &TokenSet {
        &self.mask
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::{Constraint, GrammarConstraint, MaskKit, Strategy, TokTrie, TokenSet, Vocab};

    /// Statement starts, expressions, strings, comments, indentation, Go keywords.
    fn vocab() -> Vocab {
        let words = [
            "<eos>", "x", "def", " f", "(", ")", ":", "\n", "    ", "import", " os", "#", " c",
            "'", "\"\"\"", "f'", "{", "}", "1", " =", "=", "package", " main", "func", "@", "if",
            " ", "\t", "\\", "else", "return", ")\n", "\n\n", "x =", "\"", "b'",
        ];
        Vocab::new(words.iter().map(|w| w.as_bytes().to_vec()).collect(), &[0], 0)
    }

    #[test]
    fn the_empty_texts_mask_is_built_once_and_equals_a_fresh_walk() {
        let vocab = vocab();
        let trie = Arc::new(TokTrie::new(&vocab));
        for lang in [
            espalier_grammar::python().expect("Python compiles"),
            espalier_grammar::go().expect("Go compiles"),
        ] {
            let kit = MaskKit::new(lang.clone(), trie.clone());
            let start = lang.recognizer();
            let kept = kit.start_mask_of(&start).expect("the empty text's mask");
            let again = kit.clone().start_mask_of(&start).expect("the empty text's mask");
            assert!(Arc::ptr_eq(&kept, &again), "built once per kit");
            let mut walker = kit.walker(&start);
            let mut mask = TokenSet::empty(vocab.len());
            walker.fill(&start, &trie, &mut mask);
            assert_eq!(&mask, kept.mask());
            assert!(mask.count() > 0 && mask.count() < vocab.len());
        }
    }

    #[test]
    fn only_the_empty_text_with_the_initial_parser_matches() {
        let vocab = vocab();
        let lang = espalier_grammar::python().expect("Python compiles");
        let kit = MaskKit::for_vocab(lang.clone(), &vocab);
        let kept = kit.start_mask_of(&lang.recognizer()).expect("the empty text's mask");
        assert!(kept.is_start_of(&lang.recognizer()));
        let mut read = lang.recognizer();
        assert!(read.try_push_bytes(b"x"));
        assert!(!kept.is_start_of(&read), "a byte read");
        let mut comment = lang.recognizer();
        assert!(comment.try_push_bytes(b"# c\n"));
        assert!(
            !kept.is_start_of(&comment),
            "a whole comment line read: the parser is as it was, the text is not"
        );
        let nested = espalier_grammar::Recognizer::with_layout(
            lang.clone(),
            espalier_grammar::LrParser::new(lang.table.clone()),
            1,
            &[],
            false,
        );
        assert!(!kept.is_start_of(&nested), "inside a bracket");
        let indented = espalier_grammar::Recognizer::with_layout(
            lang.clone(),
            espalier_grammar::LrParser::new(lang.table.clone()),
            0,
            &[0, 4],
            true,
        );
        assert!(!kept.is_start_of(&indented), "inside a block");
        assert!(!kept.is_start_of(&lang.earley_recognizer()), "no LR stacks to compare");
    }

    /// A constraint copies the kept mask at its first step only, and every mask along a
    /// text equals checking each token (the first included, with EOS decided).
    #[test]
    fn constraints_from_the_empty_text_start_with_the_kept_mask() {
        let vocab = vocab();
        let trie = Arc::new(TokTrie::new(&vocab));
        let python = espalier_grammar::python().expect("Python compiles");
        let py_kit = MaskKit::new(python.clone(), trie.clone());
        for text in [
            "x = 1\n",
            "import os\n\n\ndef f():\n    return x\n",
            "# c\nx = f'{x}'\n",
            "\"\"\"\"\"\"\n",
        ] {
            let mut c = GrammarConstraint::new(&py_kit, Strategy::Exact, "python-lr");
            crate::grammar_constraint::assert_exact_is_check_along(&mut c, &vocab, text.as_bytes());
        }
        let go = espalier_grammar::go().expect("Go compiles");
        let go_kit = MaskKit::new(go, trie);
        let mut c = GrammarConstraint::new(&go_kit, Strategy::Exact, "go-lr");
        crate::grammar_constraint::assert_exact_is_check_along(
            &mut c,
            &vocab,
            b"package main\n\nfunc f() {\n\treturn\n}\n",
        );
        // Syncode falls back to the exact mask where it has no store: same first mask.
        let mut s = GrammarConstraint::new(&py_kit, Strategy::Syncode, "python-lr");
        let mut e = GrammarConstraint::new(&py_kit, Strategy::Exact, "python-lr");
        let (mut ms, mut me) = (TokenSet::empty(vocab.len()), TokenSet::empty(vocab.len()));
        s.fill_mask(&vocab, &mut ms);
        e.fill_mask(&vocab, &mut me);
        assert_eq!(ms, me);
        assert!(me.contains(vocab.eos() as usize), "the empty module is complete");
    }
}
