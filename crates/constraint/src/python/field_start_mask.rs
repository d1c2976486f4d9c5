//! The nested mask at a fresh f-string replacement field: right after a level-0 `{`
//! the field's nested recognizer is always the same state
//! ([`espalier_grammar::Recognizer::field_start`], fed `(`), so the exact mask of
//! that recognizer (the first part of a field's mask, see [`super::fstring_layer`])
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
//! itself and so leaves out of the nested mask. Both spots are kept. Built with the
//! kit ([`crate::MaskKit`]: one per language and vocabulary), by
//! [`super::fstring_layer::FStringData::build`]; this file holds the data only.

use crate::TokenSet;

/// The nested masks at a fresh field, for one-quote and triple-quoted literals, and
/// the walker `W` that computed them.
#[derive(Debug)]
pub(crate) struct FieldStartMasks<W> {
    /// Indexed by `triple as usize`.
    masks: [TokenSet; 2],
    /// The child walker that computed the masks and then one mask inside a name (the
    /// usual state in a field), so its scratch (held lexeme ends, pool slots,
    /// per-mask caches) is grown: a constraint starts its fields' walker as a clone
    /// of it ([`Self::warm_child`]), at setup. A fresh constraint's first mask at
    /// `f'Object of type {o.__cl` took 163-200 us before, against 105 us once the
    /// walker's scratch was grown (same probe, before the field memos).
    child: W,
}

impl<W: Clone> FieldStartMasks<W> {
    /// The masks (one-quote, triple-quoted) and the walker that computed them.
    pub(crate) fn new(masks: [TokenSet; 2], child: W) -> Self {
        FieldStartMasks { masks, child }
    }

    /// The nested mask at a fresh field of a literal (`triple`: triple-quoted).
    pub(crate) fn get(&self, triple: bool) -> &TokenSet {
        &self.masks[usize::from(triple)]
    }

    /// A child walker with its scratch grown (a clone of the one kept).
    pub(crate) fn warm_child(&self) -> W {
        self.child.clone()
    }
}
