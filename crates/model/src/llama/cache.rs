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

/// Whether a cache's decode steps replay a recorded step ([`KvCache::replay_state`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayState {
    /// No step recorded (not a GPU-kernel model, replay off, not decoded yet, or the
    /// last step was not a replay).
    None,
    /// A step is recorded; `replays` steps replayed it since.
    Recorded { replays: usize },
    /// The backend refused to record (its error); steps run launch by launch.
    Refused(String),
}

/// Keys and values of the positions already run through the model.
#[derive(Clone, Debug)]
pub struct KvCache {
    store: Store,
    len: usize,
    /// The decode step recorded for these stores (`gpu_replay.rs`), if any.
    #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
    pub(crate) replay: super::gpu_replay::StepReplay,
}

#[derive(Clone, Debug)]
pub(crate) enum Store {
    Host { heads: Heads, layers: Vec<HostKv> },
    Device { max: usize, layers: Vec<Option<DeviceKv>> },
}

impl KvCache {
    /// An empty host-side cache (CPU weight formats) for `layers` blocks.
    pub(crate) fn host(layers: usize, heads: Heads) -> Self {
        Self::new(Store::Host { heads, layers: vec![HostKv::default(); layers] })
    }

    /// An empty device-side cache (burn path) for `layers` blocks; capacity never
    /// grows past `max` positions (the context length).
    pub(crate) fn device(layers: usize, max: usize) -> Self {
        Self::new(Store::Device { max, layers: vec![None; layers] })
    }

    fn new(store: Store) -> Self {
        Self {
            store,
            len: 0,
            #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
            replay: Default::default(),
        }
    }

    /// Whether every layer has device stores with room for `rows` positions, held by
    /// this cache alone (a recorded step writes them in place: `gpu_replay.rs`).
    #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
    pub(crate) fn device_stores_ready(&mut self, rows: usize) -> bool {
        let Store::Device { layers, .. } = &mut self.store else { return false };
        layers.iter_mut().all(|slot| {
            let Some(DeviceKv { k, v, added }) = slot.take() else { return false };
            let room = k.dims()[1] >= rows;
            // A store that is not a cube tensor is lost here (never on a cubecl device):
            // the step then refuses the cache (`take_device_stores`), as after a failure.
            let (Some((k, k_alone)), Some((v, v_alone))) = (unshared(k), unshared(v)) else {
                return false;
            };
            *slot = Some(DeviceKv { k, v, added });
            room && k_alone && v_alone
        })
    }

    /// Number of positions cached (the position of the next token).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether this cache's decode steps replay a recorded step (GPU kernels on wgpu /
    /// cuda: `gpu_replay.rs`); always [`ReplayState::None`] elsewhere.
    pub fn replay_state(&self) -> ReplayState {
        #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
        return self.replay.state();
        #[cfg(not(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion"))))]
        ReplayState::None
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

    /// `layer`'s stores, `[kv_heads, capacity, head_dim]`, with room for `t` new rows at
    /// `len..` (`shape` = `[kv_heads, t, head_dim]`; grown as an append grows them),
    /// taken out of the cache for a kernel that writes the rows in place
    /// (`gpu_rope.rs`): held only by the caller, the GPU backends write into them
    /// without a copy. [`KvCache::put_device_stores`] puts them back.
    #[cfg_attr(
        not(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion"))),
        allow(dead_code)
    )]
    pub(crate) fn take_device_stores(
        &mut self,
        layer: usize,
        shape: [usize; 3],
        device: &Device,
    ) -> Result<(Tensor<3>, Tensor<3>), ModelError> {
        let at = self.len;
        match &mut self.store {
            // A store lost by a failed step (never put back): its rows are gone.
            Store::Device { layers, .. } if at > 0 && layers[layer].is_none() => Err(mismatch()),
            Store::Device { max, layers } => {
                Ok(DeviceKv::with_room(layers[layer].take(), at, shape, *max, device))
            }
            Store::Host { .. } => Err(mismatch()),
        }
    }

    /// Puts back the stores [`KvCache::take_device_stores`] took, `t` rows written at
    /// `len..`.
    #[cfg_attr(
        not(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion"))),
        allow(dead_code)
    )]
    pub(crate) fn put_device_stores(&mut self, layer: usize, k: Tensor<3>, v: Tensor<3>, t: usize) {
        if let Store::Device { layers, .. } = &mut self.store {
            layers[layer] = Some(DeviceKv { k, v, added: t });
        }
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
                let kv = DeviceKv::append(slot.take(), at, k, v, *max);
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

/// `x`, and whether only it holds its buffer (`false` off a cubecl device); `None` when
/// it was on a cubecl device and still not a cube tensor (not seen).
#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
fn unshared(x: Tensor<3>) -> Option<(Tensor<3>, bool)> {
    use burn::backend::Cube;
    if !super::gpu_quantized::is_block_kernel_device(&x.device()) {
        return Some((x, false));
    }
    let cube = x.try_into_primitive::<Cube>().ok()?;
    let alone = cube.can_mut();
    Some((Tensor::from_primitive::<Cube>(cube), alone))
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

    /// Stores with room for rows `at..at + t` (`shape` = `[kv_heads, t, head_dim]`):
    /// `old`'s when they have it, else new ones (doubling, at least
    /// [`DeviceKv::MIN_CAPACITY`], at most `max` rows) holding `old`'s first `at` rows
    /// (anything later was never committed); zeros elsewhere.
    fn with_room(
        old: Option<Self>,
        at: usize,
        shape: [usize; 3],
        max: usize,
        device: &Device,
    ) -> (Tensor<3>, Tensor<3>) {
        let [kvh, t, d] = shape;
        let cap = old.as_ref().map_or(0, |kv| kv.k.dims()[1]);
        let old = match old {
            Some(kv) if at + t <= cap => return (kv.k, kv.v),
            old => old,
        };
        let new_cap =
            (at + t).next_power_of_two().max(2 * cap).max(Self::MIN_CAPACITY).min(max.max(at + t));
        let grow = |old: Option<Tensor<3>>| {
            let fresh = empty([kvh, new_cap, d], device);
            match old {
                Some(old) if at > 0 => {
                    fresh.slice_assign([0..kvh, 0..at, 0..d], old.narrow(1, 0, at))
                }
                _ => fresh,
            }
        };
        let (k, v) = old.map(|kv| (kv.k, kv.v)).unzip();
        (grow(k), grow(v))
    }

    /// Writes rows `at..at + t` into `old`'s stores (grown by [`DeviceKv::with_room`]).
    fn append(old: Option<Self>, at: usize, k: Tensor<3>, v: Tensor<3>, max: usize) -> Self {
        let shape = k.dims();
        let [kvh, t, d] = shape;
        let (sk, sv) = Self::with_room(old, at, shape, max, &k.device());
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

    /// Appends `t` rows of keys (`base`) and values (`base + 0.5`) to layer 0 and
    /// advances: the stores after the append and the rows' data (keys, values).
    fn append(cache: &mut KvCache, t: usize, base: f32) -> ((Tensor<3>, Tensor<3>), [Vec<f32>; 2]) {
        let (k, d) = rows(t, base);
        let (v, e) = rows(t, base + 0.5);
        let stores = cache.append_device(0, k, v).unwrap();
        cache.advance(t);
        (stores, [d, e])
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
        let (_, [d1, e1]) = append(&mut cache, 40, 0.0);
        let ((k, v), [d2, e2]) = append(&mut cache, 30, 1000.0);
        assert_eq!(read(k), stack(&[(&d1, 40), (&d2, 30)]));
        assert_eq!(read(v), stack(&[(&e1, 40), (&e2, 30)]));
        // Roll back into the first append, then write different rows.
        cache.truncate(25);
        let ((k, v), [d3, e3]) = append(&mut cache, 50, 5000.0);
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

    /// Taken stores have room for the new rows and keep the committed ones; put back,
    /// the next append sees what was written into them.
    #[test]
    fn taken_stores_keep_the_rows_and_grow() {
        let mut cache = KvCache::device(1, 1 << 12);
        let (_, [d1, e1]) = append(&mut cache, 60, 0.0);
        // 10 more rows do not fit in 64: the stores double, the 60 rows kept.
        let (k, v) = cache.take_device_stores(0, [H.kv_heads, 10, H.head_dim], &device()).unwrap();
        assert_eq!(k.dims(), [H.kv_heads, 128, H.head_dim]);
        assert_eq!(read(k.clone().narrow(1, 0, 60)), stack(&[(&d1, 60)]));
        assert_eq!(read(v.clone().narrow(1, 0, 60)), stack(&[(&e1, 60)]));
        let (k2, d2) = rows(10, 1000.0);
        let (v2, e2) = rows(10, 1000.5);
        let r = [0..H.kv_heads, 60..70, 0..H.head_dim];
        cache.put_device_stores(0, k.slice_assign(r.clone(), k2), v.slice_assign(r, v2), 10);
        cache.advance(10);
        let ((k, v), [d3, e3]) = append(&mut cache, 1, 2000.0);
        assert_eq!(read(k), stack(&[(&d1, 60), (&d2, 10), (&d3, 1)]));
        assert_eq!(read(v), stack(&[(&e1, 60), (&e2, 10), (&e3, 1)]));
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
