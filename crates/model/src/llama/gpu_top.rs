//! [`TopList`]s found on the GPU: the step's mask (when there is one) goes up as a bitset,
//! one workgroup per list finds the `k` best allowed finite logits and their softmax
//! denominator, and only the lists come back (8 bytes an entry and 4 for the total: the
//! visualizer's 10 candidates and an 8-deep greedy list are 152 bytes, where the whole
//! vector was 196,608). Every list of a step is one launch into one buffer, and the
//! buffer one read-back: `[ids; k]`, `[logit bits; k]`, the total's bits, list after list.
//!
//! One workgroup of [`UNITS`], `k` rounds of the masked argmax's fold (`gpu_argmax.rs`):
//! in round `r` unit `u` scans ids `u`, `u + UNITS`, ... for its best logit that comes
//! after round `r - 1`'s winner in the order (logit descending, id ascending), and the
//! units' bests fold in shared memory by that order. A unit's scan keeps its first id
//! among equal logits, the fold the lower id, so the list is the host's order exactly
//! ([`super::top_list::top_twin`]). Then the units sum the list's mass
//! (`exp((logit - best) / temperature)` over their allowed finite logits at most `floor`
//! below the best: [`super::top_list::Mass`]) and fold the sums (a tree: the host's sum is sequential, so the
//! totals agree to rounding). `k` rounds of ~192 logits a unit for SmolLM2: tens of
//! microseconds at most, and no barrier depends on the data (WGSL's uniformity rule).

use burn::backend::Cube;
use burn::tensor::Tensor;
use cubecl::client::Client;
use cubecl::prelude::*;
use cubecl::server::Handle;

use super::gpu_fold::{fold_best_shared, fold_sum_shared};
use super::gpu_quantized::cube_device;
use super::top_list::{Mass, TopList};
use super::ModelError;

/// Units of the one workgroup a list.
const UNITS: u32 = 256;

/// The id written past the last allowed finite logit.
const NONE: u32 = u32::MAX;

/// At `out[base..]`: `k` ids, the allowed (bit set in `mask`, or every id when `masked`
/// is 0) ids of `logits[..n]` with the highest finite logits, highest first, ties to the
/// lowest id, [`NONE`] past the last; their `k` logits' bits; the bits of
/// `sum(exp((logit - best) / temperature))` over every allowed finite logit at most
/// `floor` below the best.
#[allow(clippy::too_many_arguments)]
#[cube(launch_unchecked)]
fn masked_top(
    logits: &[f32],
    mask: &[u32],
    out: &mut [u32],
    n: usize,
    k: usize,
    masked: u32,
    base: usize,
    temperature: f32,
    floor: f32,
) {
    let unit = usize::cast_from(UNIT_POS_X);
    let units = comptime![UNITS as usize];
    let mut fold_values = Shared::<[f32]>::new_slice(comptime![UNITS as usize]);
    let mut fold_ids = Shared::<[u32]>::new_slice(comptime![UNITS as usize]);
    // The last round's winner; `exhausted` once a round found none (every later one
    // finds none too: the scans skip, no barrier depends on it).
    let mut prev = 0.0f32;
    let mut prev_id = 4294967295u32; // NONE, as a runtime variable
    let mut exhausted = false;
    let mut top = 0.0f32;
    let mut any = false;
    let mut round = 0;
    while round < k {
        let mut best = 0.0f32;
        let mut best_id = 4294967295u32;
        let mut i = unit;
        while i < n {
            let l = logits[i];
            let bit = (mask[i / 32] >> u32::cast_from(i % 32)) & 1u32;
            let id = u32::cast_from(i);
            let after = prev_id == 4294967295u32 || l < prev || (l == prev && id > prev_id);
            let open = !exhausted && (masked == 0u32 || bit == 1u32);
            let finite = !l.is_nan() && !l.is_inf();
            if open && finite && after && (best_id == 4294967295u32 || l > best) {
                best = l;
                best_id = id;
            }
            i += units;
        }
        fold_values[unit] = best;
        fold_ids[unit] = best_id;
        sync_cube();
        fold_best_shared(&mut fold_values, &mut fold_ids, unit);
        let winner = fold_ids[0];
        let value = fold_values[0];
        if unit == 0 {
            out[base + round] = winner;
            out[base + k + round] = u32::reinterpret(value);
        }
        if winner == 4294967295u32 {
            exhausted = true;
        }
        if round == 0 {
            top = value;
            any = winner != 4294967295u32;
        }
        prev = value;
        prev_id = winner;
        // Every unit has read the winner before the next round's fold overwrites it.
        sync_cube();
        round += 1;
    }
    let mut sum = 0.0f32;
    if any {
        let mut i = unit;
        while i < n {
            let l = logits[i];
            let bit = (mask[i / 32] >> u32::cast_from(i % 32)) & 1u32;
            if (masked == 0u32 || bit == 1u32) && !l.is_nan() && !l.is_inf() && top - l <= floor {
                sum += ((l - top) / temperature).exp();
            }
            i += units;
        }
    }
    fold_values[unit] = sum;
    sync_cube();
    fold_sum_shared(&mut fold_values, unit, unit);
    if unit == 0 {
        out[base + 2 * k] = u32::reinterpret(fold_values[0]);
    }
}

/// One list asked for: the allowed ids (`u32` mask words, `device_logits::mask_words`;
/// `None`: every id), how many, and what its total sums.
pub(crate) struct TopQuery<'a> {
    pub words: Option<&'a [u32]>,
    pub k: usize,
    pub mass: Mass,
}

/// Words a list of `k` takes in the output buffer: ids, logit bits, the total's bits.
fn words_of(k: usize) -> usize {
    2 * k + 1
}

/// Launches one [`masked_top`] a query over the first `n` entries of `logits` (`[1, >= n]`
/// f32 on a cubecl device), each into its part of one buffer; returns the client and
/// the buffer to read.
fn launch(
    logits: &Tensor<2>,
    queries: &[TopQuery<'_>],
    n: usize,
) -> Result<(Client, Handle), ModelError> {
    let device = cube_device(&logits.device())
        .ok_or_else(|| ModelError::Execution("GPU top-k: not a cubecl device".into()))?;
    if logits.dims()[1] < n || n >= NONE as usize {
        return Err(ModelError::Execution(format!(
            "GPU top-k: {} logits for {n} ids",
            logits.dims()[1]
        )));
    }
    if let Some(q) = queries
        .iter()
        .find(|q| q.k == 0 || q.k > TopList::MAX_K || q.words.is_some_and(|w| w.len() * 32 < n))
    {
        return Err(ModelError::Execution(format!(
            "GPU top-k: {} of at most {}, {:?} mask words for {n} ids",
            q.k,
            TopList::MAX_K,
            q.words.map(<[u32]>::len)
        )));
    }
    let x = logits.clone().try_into_primitive::<Cube>().map_err(|e| {
        ModelError::Execution(format!("GPU top-k: logits not on a cubecl device: {e:?}"))
    })?;
    let x = burn_cubecl::kernel::into_contiguous(x);
    let client = device.client();
    let len: usize = queries.iter().map(|q| words_of(q.k)).sum();
    let out = client.empty(4 * len);
    // Every mask goes up before the first launch: cubecl-wgpu submits the recorded
    // launches before each upload, so uploads between launches would cost a submit each.
    // An unmasked query reads no mask word; it is given the first mask (or one word).
    let masks: Vec<(Handle, usize)> = queries
        .iter()
        .filter_map(|q| q.words)
        .chain(queries.iter().all(|q| q.words.is_none()).then_some(&[0u32][..]))
        .map(|words| {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            (client.create_from_slice(&bytes), words.len())
        })
        .collect();
    let (mut base, mut next_mask) = (0, 0);
    for q in queries {
        let (mask, mask_len) = masks[next_mask.min(masks.len() - 1)].clone();
        next_mask += usize::from(q.words.is_some());
        // SAFETY: `x` holds at least `n` contiguous f32 (checked above); the mask covers
        // `n` bits or is not read (`masked` 0); unit 0 alone writes, at `base + r` and
        // `base + k + r` for rounds `r < k` and at `base + 2k`: inside the query's part
        // of `out`.
        unsafe {
            masked_top::launch_unchecked(
                &client,
                CubeCount::Static(1, 1, 1),
                CubeDim::new_1d(UNITS),
                BufferArg::from_raw_parts(x.handle.clone(), n),
                BufferArg::from_raw_parts(mask, mask_len),
                BufferArg::from_raw_parts(out.clone(), len),
                n,
                q.k,
                u32::from(q.words.is_some()),
                base,
                q.mass.temperature,
                q.mass.floor,
            )
        };
        base += words_of(q.k);
    }
    Ok((client, out))
}

/// The lists from the buffer read back (the queries' parts in order).
fn lists(queries: &[TopQuery<'_>], bytes: &[u8]) -> Result<Vec<TopList>, ModelError> {
    let words: Vec<u32> =
        bytes.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
    let mut base = 0;
    let mut lists = Vec::with_capacity(queries.len());
    for q in queries {
        let part = words.get(base..base + words_of(q.k)).ok_or_else(|| {
            ModelError::Execution("GPU top-k: fewer bytes read back than written".into())
        })?;
        let (ids, rest) = part.split_at(q.k);
        let entries = ids
            .iter()
            .zip(rest)
            .take_while(|(&id, _)| id != NONE)
            .map(|(&id, &v)| (id, f32::from_bits(v)))
            .collect();
        lists.push(TopList { entries, total: f32::from_bits(rest[q.k]), k: q.k, mass: q.mass });
        base += words_of(q.k);
    }
    Ok(lists)
}

fn read_error(e: impl std::fmt::Debug) -> ModelError {
    ModelError::Execution(format!("GPU top-k: reading back the lists: {e:?}"))
}

/// Runs [`masked_top`] for every query and reads the lists back, blocking (native).
#[cfg(not(target_family = "wasm"))]
pub(crate) fn device_top(
    logits: &Tensor<2>,
    queries: &[TopQuery<'_>],
    n: usize,
) -> Result<Vec<TopList>, ModelError> {
    let (client, out) = launch(logits, queries, n)?;
    let bytes = client.read_one(out).map_err(read_error)?;
    lists(queries, &bytes)
}

/// [`device_top`] with an asynchronous read-back (WebGPU in the browser).
pub(crate) async fn device_top_async(
    logits: &Tensor<2>,
    queries: &[TopQuery<'_>],
    n: usize,
) -> Result<Vec<TopList>, ModelError> {
    let (client, out) = launch(logits, queries, n)?;
    let mut bytes = client.read_async(vec![out]).await.map_err(read_error)?;
    lists(queries, &bytes.remove(0))
}
