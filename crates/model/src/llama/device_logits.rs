//! A step's logits left where the forward pass wrote them ([`DeviceLogits`]): on a GPU
//! the decode loop asks for the greedy id under the step's mask and only that id comes
//! back (`gpu_argmax.rs`); the whole vector is read back only when asked for (temperature
//! sampling, traces), and at most once. On the CPU backends "reading back" is a copy.

use burn::tensor::Tensor;

use super::top_list::{top_twin, ListQuery, TopList};
use super::ModelError;

/// An argmax's answer: the chosen id, `None` when no allowed id has a finite logit.
type Argmax = Result<Option<u32>, ModelError>;

/// The last position's logits, `[1, vocab]`, on the model's device.
#[derive(Debug)]
pub struct DeviceLogits {
    logits: Tensor<2>,
    host: Option<Vec<f32>>,
}

impl DeviceLogits {
    pub(crate) fn new(logits: Tensor<2>) -> Self {
        Self { logits, host: None }
    }

    /// Whether the logits are on a GPU that answers [`DeviceLogits::argmax`] and
    /// [`DeviceLogits::tops`] there (wgpu or cuda without fusion) and were not read back:
    /// asking it for a short list saves reading the whole vector.
    pub fn on_gpu(&self) -> bool {
        #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
        if self.host.is_none() {
            return super::gpu_quantized::is_block_kernel_device(&self.logits.device());
        }
        false
    }

    /// Entries (the model's vocabulary rows).
    pub fn len(&self) -> usize {
        self.logits.dims()[1]
    }

    /// Whether there are no entries (never, for a loaded model).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Among ids `0..n` allowed by `allowed` (a bitset in `u64` words, bit `id % 64` of
    /// word `id / 64`; `None`: all) and not in `refused`, the one with the highest
    /// finite logit, ties to the lowest id (the CPU sampler's greedy choice); `None`
    /// when no allowed id has a finite logit. On a wgpu or cuda device (native, without
    /// fusion) it runs there and reads back 4 bytes (in wasm: [`DeviceLogits::argmax_async`]).
    pub fn argmax(&mut self, n: usize, allowed: Option<&[u64]>, refused: &[u32]) -> Argmax {
        match self.draw_on(n, allowed, refused)? {
            #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
            #[cfg(not(target_family = "wasm"))]
            DrawOn::Device(mask) => {
                super::gpu_argmax::device_argmax(&self.logits, mask.as_deref(), n)
            }
            _ => Ok(masked_host_argmax(&self.host()?[..n], allowed, refused)),
        }
    }

    /// [`DeviceLogits::argmax`] with an asynchronous read-back: the form WebGPU in the
    /// browser needs (it cannot block on the GPU). On a wgpu or cuda device (without
    /// fusion) the argmax runs there and 4 bytes come back; elsewhere, or once the
    /// vector was read, on the host copy ([`DeviceLogits::host_async`]).
    pub async fn argmax_async(
        &mut self,
        n: usize,
        allowed: Option<&[u64]>,
        refused: &[u32],
    ) -> Argmax {
        match self.draw_on(n, allowed, refused)? {
            #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
            DrawOn::Device(mask) => {
                super::gpu_argmax::device_argmax_async(&self.logits, mask.as_deref(), n).await
            }
            _ => Ok(masked_host_argmax(&self.host_async().await?[..n], allowed, refused)),
        }
    }

    /// The [`TopList`] of each query over ids `0..n` ([`ListQuery`]: `allowed` a bitset in
    /// `u64` words as for [`DeviceLogits::argmax`], `None`: all; `1 <= k <=`
    /// [`TopList::MAX_K`]; the mass its total sums, a positive temperature). On a
    /// wgpu or cuda device (without fusion, the vector not read back) the lists are found
    /// there and only they come back, in one read-back (native: blocking; in wasm use
    /// [`DeviceLogits::tops_async`]); elsewhere from the host copy.
    #[cfg(not(target_family = "wasm"))]
    pub fn tops(
        &mut self,
        n: usize,
        queries: &[ListQuery<'_>],
    ) -> Result<Vec<TopList>, ModelError> {
        match self.device_queries(n, queries)? {
            #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
            Some(words) => {
                super::gpu_top::device_top(&self.logits, &top_queries(&words, queries), n)
            }
            _ => Ok(host_tops(&self.host()?[..n], queries)),
        }
    }

    /// [`DeviceLogits::tops`] with an asynchronous read-back (WebGPU in the browser).
    pub async fn tops_async(
        &mut self,
        n: usize,
        queries: &[ListQuery<'_>],
    ) -> Result<Vec<TopList>, ModelError> {
        match self.device_queries(n, queries)? {
            #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
            Some(words) => {
                super::gpu_top::device_top_async(&self.logits, &top_queries(&words, queries), n)
                    .await
            }
            _ => Ok(host_tops(&self.host_async().await?[..n], queries)),
        }
    }

    /// Checks the queries; each one's mask as the device reads it where the lists are
    /// found there ([`DeviceLogits::draw_on`]), `None` where on the host copy.
    fn device_queries(
        &self,
        n: usize,
        queries: &[ListQuery<'_>],
    ) -> Result<Option<Vec<Option<Vec<u32>>>>, ModelError> {
        if let Some(q) = queries.iter().find(|q| q.k == 0 || q.k > TopList::MAX_K) {
            return Err(ModelError::Execution(format!(
                "a top list of {} entries: between 1 and {}",
                q.k,
                TopList::MAX_K
            )));
        }
        if let Some(q) = queries.iter().find(|q| {
            q.mass.temperature.is_nan() || q.mass.temperature <= 0.0 || q.mass.floor.is_nan()
        }) {
            return Err(ModelError::Execution(format!("a top list's mass {:?}", q.mass)));
        }
        let mut words = Vec::with_capacity(queries.len());
        for &ListQuery { allowed, .. } in queries {
            match self.draw_on(n, allowed, &[])? {
                DrawOn::Host => return Ok(None),
                DrawOn::Device(w) => words.push(w),
            }
        }
        Ok(Some(words))
    }

    /// Waits until the device has computed the logits (native: blocking). A no-op on
    /// the CPU backends, whose forward pass returns with them.
    #[cfg(not(target_family = "wasm"))]
    pub fn wait(&self) -> Result<(), ModelError> {
        self.logits
            .device()
            .sync()
            .map_err(|e| ModelError::Execution(format!("waiting for the step: {e:?}")))
    }

    /// Submits the work recorded for these logits to the device without waiting
    /// (cubecl records a step's launches and submits them at the first read): the GPU
    /// runs the forward pass while the caller computes the step's mask on the CPU. A
    /// no-op on the CPU backends.
    pub fn submit(&self) -> Result<(), ModelError> {
        self.logits
            .device()
            .flush()
            .map_err(|e| ModelError::Execution(format!("submitting the step: {e:?}")))
    }

    /// Checks `n` against the vector; where a draw over it runs: on the device (a wgpu or
    /// cuda device without fusion, the vector not read back yet) with its mask's words
    /// ([`device_words`]), or on the host copy.
    fn draw_on(
        &self,
        n: usize,
        allowed: Option<&[u64]>,
        refused: &[u32],
    ) -> Result<DrawOn, ModelError> {
        if n > self.len() {
            return Err(ModelError::Execution(format!(
                "argmax over {n} ids of {} logits",
                self.len()
            )));
        }
        #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
        if self.host.is_none()
            && super::gpu_quantized::is_block_kernel_device(&self.logits.device())
        {
            return Ok(DrawOn::Device(device_words(allowed, refused, n)));
        }
        let _ = (allowed, refused);
        Ok(DrawOn::Host)
    }

    /// The whole vector on the host, read back asynchronously on the first call (any
    /// target; in wasm [`DeviceLogits::host`] then returns it).
    pub async fn host_async(&mut self) -> Result<&[f32], ModelError> {
        if self.host.is_none() {
            let data = self.logits.clone().into_data_async().await;
            self.host = Some(super::read_logits(
                data.map_err(|e| ModelError::Execution(format!("{e:?}"))),
            )?);
        }
        Ok(self.host.as_deref().unwrap_or_default())
    }

    /// The whole vector on the host, read back on the first call (native only: in
    /// wasm use [`DeviceLogits::host_async`]).
    #[cfg(not(target_family = "wasm"))]
    pub fn host(&mut self) -> Result<&[f32], ModelError> {
        if self.host.is_none() {
            let data = self.logits.clone().try_into_data();
            self.host = Some(super::read_logits(
                data.map_err(|e| ModelError::Execution(format!("{e:?}"))),
            )?);
        }
        Ok(self.host.as_deref().unwrap_or_default())
    }

    /// In wasm: the vector [`DeviceLogits::host_async`] read (the browser cannot block
    /// on a read-back), an error before that.
    #[cfg(target_family = "wasm")]
    pub fn host(&mut self) -> Result<&[f32], ModelError> {
        self.host.as_deref().ok_or_else(|| {
            ModelError::Execution(
                "in wasm the logits are read with DeviceLogits::host_async".into(),
            )
        })
    }
}

/// Each query's [`TopList`] from the host vector.
fn host_tops(logits: &[f32], queries: &[ListQuery<'_>]) -> Vec<TopList> {
    queries
        .iter()
        .map(|&ListQuery { allowed, k, mass }| {
            top_twin(
                logits,
                |i| allowed.is_none_or(|w| w.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)),
                k,
                mass,
            )
        })
        .collect()
}

/// The device's queries: each mask's `u32` words (`None`: every id) and its `k`.
#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
fn top_queries<'a>(
    words: &'a [Option<Vec<u32>>],
    queries: &[ListQuery<'_>],
) -> Vec<super::gpu_top::TopQuery<'a>> {
    words
        .iter()
        .zip(queries)
        .map(|(w, q)| super::gpu_top::TopQuery { words: w.as_deref(), k: q.k, mass: q.mass })
        .collect()
}

/// The greedy choice over logits on the host: the id with the highest finite logit, ties
/// to the lowest (as [`DeviceLogits::argmax`] chooses); `None` when none is finite.
pub fn greedy(logits: &[f32]) -> Option<u32> {
    host_argmax(logits, |_| true)
}

/// [`host_argmax`] under a mask in `u64` words (`None`: all) less `refused`.
fn masked_host_argmax(logits: &[f32], allowed: Option<&[u64]>, refused: &[u32]) -> Option<u32> {
    host_argmax(logits, |i| {
        allowed.is_none_or(|w| w.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1))
            && !refused.contains(&(i as u32))
    })
}

/// The host twin of the GPU argmax (and the CPU sampler's greedy choice): the allowed id
/// with the highest finite logit, ties to the lowest.
pub(crate) fn host_argmax(logits: &[f32], allowed: impl Fn(usize) -> bool) -> Option<u32> {
    let mut best: Option<(u32, f32)> = None;
    for (i, &l) in logits.iter().enumerate() {
        if !l.is_finite() || best.is_some_and(|(_, b)| l <= b) || !allowed(i) {
            continue;
        }
        best = Some((i as u32, l));
    }
    best.map(|b| b.0)
}

/// Where a draw over a step's logits runs ([`DeviceLogits::draw_on`]).
#[cfg_attr(
    not(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion"))),
    allow(dead_code)
)]
enum DrawOn {
    /// On the device, under these mask words (`None`: every id, nothing to upload).
    Device(Option<Vec<u32>>),
    /// On the host copy of the vector.
    Host,
}

/// The words a device draw uploads for `allowed` less `refused` over ids `0..n`
/// ([`mask_words`]); `None` when every id is allowed (no mask, no upload: on wgpu an
/// upload after the step's launches is a submit of its own).
#[cfg(any(test, all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion"))))]
pub(crate) fn device_words(words: Option<&[u64]>, refused: &[u32], n: usize) -> Option<Vec<u32>> {
    (words.is_some() || !refused.is_empty()).then(|| mask_words(words, refused, n))
}

/// The mask as the GPU argmax reads it: `words` (a bitset in `u64` words; `None`: every
/// id) less `refused`, as `u32` words (bit `id % 32` of word `id / 32`) covering `n` ids.
#[cfg(any(test, all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion"))))]
pub(crate) fn mask_words(words: Option<&[u64]>, refused: &[u32], n: usize) -> Vec<u32> {
    let mut out: Vec<u32> = match words {
        Some(w) => w.iter().flat_map(|&x| [x as u32, (x >> 32) as u32]).collect(),
        None => vec![u32::MAX; n.div_ceil(32)],
    };
    out.resize(n.div_ceil(32), 0);
    for &id in refused {
        if let Some(word) = out.get_mut(id as usize / 32) {
            *word &= !(1 << (id % 32));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llama::Mass;

    #[test]
    fn host_argmax_takes_the_highest_allowed_finite_logit_and_the_lowest_id_on_ties() {
        let l = [1.0, f32::NAN, 3.0, f32::INFINITY, 3.0, 2.0];
        assert_eq!(host_argmax(&l, |_| true), Some(2));
        assert_eq!(host_argmax(&l, |i| i != 2), Some(4));
        assert_eq!(host_argmax(&l, |i| i == 1 || i == 3), None);
    }

    #[test]
    fn mask_words_split_u64_words_and_drop_refused_ids() {
        let words = [(1u64 << 40) | 0b101, 1];
        let m = mask_words(Some(&words), &[2], 70);
        assert_eq!(m, vec![0b001, 1 << 8, 1]);
        let all = mask_words(None, &[33], 40);
        assert_eq!(all, vec![u32::MAX, !2u32]);
        // A device draw uploads no mask when every id is allowed.
        assert_eq!(device_words(None, &[], 40), None);
        assert_eq!(device_words(None, &[33], 40), Some(all));
        assert_eq!(device_words(Some(&words), &[2], 70), Some(m));
    }

    use espalier_testkit::ready;

    #[test]
    fn tops_list_what_the_twin_lists_under_each_mask_in_one_call() {
        use burn::tensor::TensorData;
        let device = super::super::backend::cpu_test_device();
        let l = vec![1.0, f32::NAN, 3.0, f32::INFINITY, 3.0, 2.0, -1.0, 0.5];
        let low: [u64; 1] = [0b0100_0011];
        let mut logits =
            DeviceLogits::new(Tensor::from_data(TensorData::new(l.clone(), [1, l.len()]), &device));
        let hot = Mass { temperature: 0.5, floor: 2.5 };
        let queries = [ListQuery::new(None, 3), ListQuery::new(Some(&low[..]), 8).with_mass(hot)];
        let tops = logits.tops(7, &queries).unwrap();
        assert_eq!(tops[0], top_twin(&l[..7], |_| true, 3, Mass::SOFTMAX));
        // 1.0 and -1.0 allowed: -1.0 is 2 below the best, inside the floor.
        assert_eq!(tops[1].total, 1.0 + (-4.0f32).exp());
        assert_eq!(tops[0].entries, vec![(2, 3.0), (4, 3.0), (5, 2.0)]);
        assert_eq!(tops[1].entries, vec![(0, 1.0), (6, -1.0)]);
        assert!(tops[1].is_complete());
        assert_eq!(ready(logits.tops_async(7, &queries)).unwrap(), tops);
        assert!(logits.tops(7, &[ListQuery::new(None, 0)]).is_err());
        assert!(logits.tops(7, &[ListQuery::new(None, TopList::MAX_K + 1)]).is_err());
        assert!(logits.tops(9, &[ListQuery::new(None, 1)]).is_err());
        let cold = Mass { temperature: 0.0, floor: 1.0 };
        assert!(logits.tops(7, &[ListQuery::new(None, 1).with_mass(cold)]).is_err());
        assert!(logits.submit().is_ok());
    }

    #[test]
    fn argmax_async_chooses_as_argmax_under_masks_and_refusals() {
        use burn::tensor::TensorData;
        let device = super::super::backend::cpu_test_device();
        let l = vec![1.0, f32::NAN, 3.0, f32::INFINITY, 3.0, 2.0, -1.0, 0.5];
        let logits = || {
            DeviceLogits::new(Tensor::from_data(TensorData::new(l.clone(), [1, l.len()]), &device))
        };
        let no_2: [u64; 1] = [!(1 << 2)];
        let low: [u64; 1] = [0b0100_0011];
        let nothing: [u64; 1] = [0];
        for (allowed, refused, want) in [
            (None, &[][..], Some(2)),
            (None, &[2][..], Some(4)),
            (Some(&no_2[..]), &[][..], Some(4)),
            (Some(&low[..]), &[][..], Some(0)),
            (Some(&low[..]), &[0][..], Some(6)),
            (Some(&nothing[..]), &[][..], None),
        ] {
            let sync = logits().argmax(l.len(), allowed, refused).unwrap();
            let got = ready(logits().argmax_async(l.len(), allowed, refused)).unwrap();
            assert_eq!((sync, got), (want, want), "{allowed:?} less {refused:?}");
        }
        assert!(ready(logits().argmax_async(l.len() + 1, None, &[])).is_err());
        let mut read = logits();
        assert_eq!(ready(read.host_async()).unwrap().len(), l.len());
        assert_eq!(read.host().unwrap()[2], 3.0);
    }
}
