//! The key/value cache for incremental decoding, with rollback.
//!
//! Per layer it keeps the keys and values of every position seen so far, shaped
//! `[kv_heads, len, head_dim]`. `truncate(len)` rolls back to an earlier length: the
//! decoder uses it for token healing (drop the last token, re-sample with a forced
//! prefix) without recomputing the prompt.

use burn::tensor::Tensor;

/// Keys and values of the positions already run through the model.
#[derive(Clone, Debug)]
pub struct KvCache {
    pub(crate) layers: Vec<Option<(Tensor<3>, Tensor<3>)>>,
    len: usize,
}

impl KvCache {
    /// An empty cache for a model of `layers` blocks.
    pub(crate) fn new(layers: usize) -> Self {
        Self { layers: vec![None; layers], len: 0 }
    }

    /// Number of positions cached (the position of the next token).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no position is cached.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Rolls back to the first `len` positions (no-op when `len >= self.len()`).
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        if len == 0 {
            return self.clear();
        }
        for layer in &mut self.layers {
            if let Some((k, v)) = layer.take() {
                *layer = Some((k.narrow(1, 0, len), v.narrow(1, 0, len)));
            }
        }
        self.len = len;
    }

    /// Forgets every position.
    pub fn clear(&mut self) {
        self.layers.iter_mut().for_each(|l| *l = None);
        self.len = 0;
    }

    /// Appends a layer's new keys and values and returns the full ones.
    pub(crate) fn append(&mut self, layer: usize, k: Tensor<3>, v: Tensor<3>) -> (Tensor<3>, Tensor<3>) {
        let (k, v) = match self.layers[layer].take() {
            Some((pk, pv)) => (Tensor::cat(vec![pk, k], 1), Tensor::cat(vec![pv, v], 1)),
            None => (k, v),
        };
        self.layers[layer] = Some((k.clone(), v.clone()));
        (k, v)
    }

    /// Cuts every layer back to the committed length (after a failed step).
    pub(crate) fn drop_uncommitted(&mut self) {
        let len = self.len;
        for layer in &mut self.layers {
            if let Some((k, v)) = layer.take() {
                if len > 0 {
                    *layer = Some((k.narrow(1, 0, len), v.narrow(1, 0, len)));
                }
            }
        }
    }

    pub(crate) fn advance(&mut self, n: usize) {
        self.len += n;
    }
}
