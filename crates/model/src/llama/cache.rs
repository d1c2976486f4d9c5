//! The key/value cache for incremental decoding, with rollback.
//!
//! Per layer it keeps the keys and values of every position seen so far, in one of two
//! stores chosen by the model's weight format:
//! - host (the CPU formats, where attention runs on the host, see `host_attention`):
//!   `Vec<f32>` rows that grow geometrically;
//! - device (the burn path: wgpu, cuda, `burn-f32`): tensors `[kv_heads, capacity,
//!   head_dim]` with spare capacity, new rows written in with `slice_assign` and the
//!   capacity doubled when full; attention reads the first `len` rows.
//!
//! Either way appending costs the new rows only (the old cache concatenated the whole
//! history every step), and `truncate(len)` is O(1): the decoder uses it for token
//! healing and prefix reuse (drop the last positions, run others) without recomputing
//! the prompt.

use burn::tensor::{Device, Tensor};

use super::ModelError;
use espalier_kernels::{Heads, HostKv};

/// Keys and values of the positions already run through the model.
#[derive(Clone, Debug)]
pub struct KvCache {
    store: Store,
    len: usize,
}

#[derive(Clone, Debug)]
pub(crate) enum Store {
    Host { heads: Heads, layers: Vec<HostKv> },
    Device { max: usize, layers: Vec<Option<DeviceKv>> },
}

impl KvCache {
    /// An empty host-side cache (CPU weight formats) for `layers` blocks.
    pub(crate) fn host(layers: usize, heads: Heads) -> Self {
        Self { store: Store::Host { heads, layers: vec![HostKv::default(); layers] }, len: 0 }
    }

    /// An empty device-side cache (burn path) for `layers` blocks; capacity never
    /// grows past `max` positions (the context length).
    pub(crate) fn device(layers: usize, max: usize) -> Self {
        Self { store: Store::Device { max, layers: vec![None; layers] }, len: 0 }
    }

    /// Number of positions cached (the position of the next token).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no position is cached.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Rolls back to the first `len` positions (no-op when `len >= self.len()`). O(1)
    /// for the device store (later rows are ignored and overwritten); the host store
    /// shortens its vectors and keeps their capacity.
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        self.len = len;
        self.drop_uncommitted();
    }

    /// Forgets every position (memory is kept for reuse).
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    /// Whether this cache was made for a model with `layers` blocks and the given store
    /// kind (a cache from another model would index out of its layers).
    pub(crate) fn fits(&self, layers: usize, host: Option<Heads>) -> bool {
        match (&self.store, host) {
            (Store::Host { heads, layers: l }, Some(h)) => *heads == h && l.len() == layers,
            (Store::Device { layers: l, .. }, None) => l.len() == layers,
            _ => false,
        }
    }

    /// The host store of `layer` (the caller checked [`KvCache::fits`]).
    pub(crate) fn host_layer(&mut self, layer: usize) -> Result<&mut HostKv, ModelError> {
        match &mut self.store {
            Store::Host { layers, .. } => Ok(&mut layers[layer]),
            Store::Device { .. } => Err(mismatch()),
        }
    }

    /// Writes a layer's new keys and values (`[kv_heads, t, head_dim]`) at positions
    /// `len..len + t` of the device store and returns the keys and values of positions
    /// `0..len + t` (views of the store, no copy on the GPU backends).
    pub(crate) fn append_device(
        &mut self,
        layer: usize,
        k: Tensor<3>,
        v: Tensor<3>,
    ) -> Result<(Tensor<3>, Tensor<3>), ModelError> {
        let at = self.len;
        let kv = self.append_device_layer(layer, k, v)?;
        let n = at + kv.added;
        Ok((kv.k.clone().narrow(1, 0, n), kv.v.clone().narrow(1, 0, n)))
    }

    /// [`KvCache::append_device`] returning the whole stores, `[kv_heads, capacity,
    /// head_dim]` (rows past `len + t` stale or zero): for a kernel that reads the
    /// positions it needs in place (`gpu_attention.rs`).
    #[cfg_attr(
        not(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion"))),
        allow(dead_code)
    )]
    pub(crate) fn append_device_store(
        &mut self,
        layer: usize,
        k: Tensor<3>,
        v: Tensor<3>,
    ) -> Result<(Tensor<3>, Tensor<3>), ModelError> {
        let kv = self.append_device_layer(layer, k, v)?;
        Ok((kv.k.clone(), kv.v.clone()))
    }

    /// Writes a layer's new rows at `len..` and returns its store.
    fn append_device_layer(
        &mut self,
        layer: usize,
        k: Tensor<3>,
        v: Tensor<3>,
    ) -> Result<&DeviceKv, ModelError> {
        let at = self.len;
        match &mut self.store {
            Store::Device { max, layers } => {
                let slot = &mut layers[layer];
                let kv = match slot.take() {
                    Some(kv) => kv.append(at, k, v, *max),
                    None => DeviceKv::first(k, v, *max),
                };
                Ok(slot.insert(kv))
            }
            Store::Host { .. } => Err(mismatch()),
        }
    }

    /// Cuts every layer back to the committed length (after a failed step, or a
    /// truncation). The device store needs nothing: rows past `len` are never read.
    pub(crate) fn drop_uncommitted(&mut self) {
        if let Store::Host { heads, layers } = &mut self.store {
            layers.iter_mut().for_each(|l| l.truncate(self.len, *heads));
        }
    }

    /// Commits `n` positions appended to every layer.
    pub(crate) fn advance(&mut self, n: usize) {
        self.len += n;
    }
}

fn mismatch() -> ModelError {
    ModelError::CacheMismatch
}

/// One layer's device store: `[kv_heads, capacity, head_dim]` keys and values, the
/// first `at + added` rows valid after an append at `at`.
#[derive(Clone, Debug)]
pub(crate) struct DeviceKv {
    k: Tensor<3>,
    v: Tensor<3>,
    /// Rows written by the latest append.
    added: usize,
}

impl DeviceKv {
    /// Initial capacity: enough for the first call and some decode steps.
    const MIN_CAPACITY: usize = 64;

    fn first(k: Tensor<3>, v: Tensor<3>, max: usize) -> Self {
        let [kvh, t, d] = k.dims();
        let cap = t.max(Self::MIN_CAPACITY).next_power_of_two().min(max.max(t));
        let device = k.device();
        let store =
            |x: Tensor<3>| empty([kvh, cap, d], &device).slice_assign([0..kvh, 0..t, 0..d], x);
        Self { k: store(k), v: store(v), added: t }
    }

    /// Writes rows `at..at + t`, growing (doubling, at most to `max`) when full; the
    /// rows kept on growth are the first `at` (anything later was never committed).
    fn append(self, at: usize, k: Tensor<3>, v: Tensor<3>, max: usize) -> Self {
        let [kvh, t, d] = k.dims();
        let cap = self.k.dims()[1];
        let (mut sk, mut sv) = (self.k, self.v);
        if at + t > cap {
            let new_cap = (at + t).next_power_of_two().max(2 * cap).min(max.max(at + t));
            let device = sk.device();
            let grow = |old: Tensor<3>| {
                let fresh = empty([kvh, new_cap, d], &device);
                if at == 0 {
                    fresh
                } else {
                    fresh.slice_assign([0..kvh, 0..at, 0..d], old.narrow(1, 0, at))
                }
            };
            sk = grow(sk);
            sv = grow(sv);
        }
        Self {
            k: sk.slice_assign([0..kvh, at..at + t, 0..d], k),
            v: sv.slice_assign([0..kvh, at..at + t, 0..d], v),
            added: t,
        }
    }
}

fn empty(shape: [usize; 3], device: &Device) -> Tensor<3> {
    Tensor::zeros(shape, device)
}

#[cfg(test)]
mod tests {
    use burn::tensor::TensorData;

    use super::*;

    const H: Heads = Heads { heads: 4, kv_heads: 2, head_dim: 4 };

    #[allow(deprecated)]
    fn device() -> Device {
        #[cfg(feature = "ndarray")]
        return Device::ndarray();
        #[cfg(all(not(feature = "ndarray"), feature = "flex"))]
        return Device::flex();
        #[cfg(all(not(feature = "ndarray"), not(feature = "flex")))]
        return Device::default();
    }

    /// `[kv_heads, t, head_dim]` whose element (h, r, x) is `base + 100 h + 10 r + x`.
    fn rows(t: usize, base: f32) -> (Tensor<3>, Vec<f32>) {
        let mut data = Vec::new();
        for h in 0..H.kv_heads {
            for r in 0..t {
                for x in 0..H.head_dim {
                    data.push(base + 100.0 * h as f32 + 10.0 * r as f32 + x as f32);
                }
            }
        }
        (
            Tensor::from_data(
                TensorData::new(data.clone(), [H.kv_heads, t, H.head_dim]),
                &device(),
            ),
            data,
        )
    }

    fn read(x: Tensor<3>) -> Vec<f32> {
        x.into_data().try_to_vec::<f32>().unwrap()
    }

    /// Expected `[kv_heads, n, head_dim]` from per-head row lists.
    fn stack(parts: &[(&[f32], usize)]) -> Vec<f32> {
        let mut out = Vec::new();
        for h in 0..H.kv_heads {
            for &(data, t) in parts {
                let per = t * H.head_dim;
                out.extend_from_slice(&data[h * per..(h + 1) * per]);
            }
        }
        out
    }

    #[test]
    fn device_store_append_truncate_append() {
        let mut cache = KvCache::device(1, 1 << 12);
        // 70 rows: past the initial capacity, so the store grows with rows kept.
        let (k1, d1) = rows(40, 0.0);
        let (v1, e1) = rows(40, 0.5);
        cache.append_device(0, k1, v1).unwrap();
        cache.advance(40);
        let (k2, d2) = rows(30, 1000.0);
        let (v2, e2) = rows(30, 1000.5);
        let (k, v) = cache.append_device(0, k2, v2).unwrap();
        cache.advance(30);
        assert_eq!(read(k), stack(&[(&d1, 40), (&d2, 30)]));
        assert_eq!(read(v), stack(&[(&e1, 40), (&e2, 30)]));
        // Roll back into the first append, then write different rows.
        cache.truncate(25);
        let (k3, d3) = rows(50, 5000.0);
        let (v3, e3) = rows(50, 5000.5);
        let (k, v) = cache.append_device(0, k3, v3).unwrap();
        cache.advance(50);
        assert_eq!(cache.len(), 75);
        // The first 25 rows of each head of the first append.
        let first = |d: &[f32]| {
            d.chunks(40 * H.head_dim)
                .flat_map(|c| c[..25 * H.head_dim].to_vec())
                .collect::<Vec<_>>()
        };
        let (kd1, ve1) = (first(&d1), first(&e1));
        assert_eq!(read(k), stack(&[(&kd1, 25), (&d3, 50)]));
        assert_eq!(read(v), stack(&[(&ve1, 25), (&e3, 50)]));
    }

    /// The whole store: the initial capacity, the appended rows first.
    #[test]
    fn device_store_is_the_whole_store() {
        let mut cache = KvCache::device(1, 1 << 12);
        let (k1, d1) = rows(3, 0.0);
        let (v1, e1) = rows(3, 0.5);
        let (k, v) = cache.append_device_store(0, k1, v1).unwrap();
        assert_eq!(k.dims(), [H.kv_heads, DeviceKv::MIN_CAPACITY, H.head_dim]);
        assert_eq!(read(k.narrow(1, 0, 3)), stack(&[(&d1, 3)]));
        assert_eq!(read(v.narrow(1, 0, 3)), stack(&[(&e1, 3)]));
    }

    #[test]
    fn host_store_uncommitted_rows_are_dropped() {
        let mut cache = KvCache::host(2, H);
        let qkv = vec![1f32; 3 * H.qkv_width()];
        for l in 0..2 {
            cache.host_layer(l).unwrap().append_from_qkv(&qkv, 3, H);
        }
        cache.advance(3);
        // A step that appended to layer 0 only, then failed.
        cache.host_layer(0).unwrap().append_from_qkv(&qkv, 2, H);
        cache.drop_uncommitted();
        assert_eq!(cache.host_layer(0).unwrap().positions(H), 3);
        cache.truncate(1);
        assert_eq!((cache.len(), cache.host_layer(1).unwrap().positions(H)), (1, 1));
        assert!(cache.append_device(0, rows(1, 0.0).0, rows(1, 0.0).0).is_err());
    }
}
