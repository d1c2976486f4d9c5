//! The greedy choice under the constraint, on the GPU: the step's token mask goes up as
//! a bitset (`u32` words, bit `i % 32` of word `i / 32`: 6 KiB for 49,152 tokens), one
//! workgroup finds the allowed id with the highest finite logit (ties to the lowest id,
//! as the CPU sampler's `argmax`), and only that id comes back (4 bytes instead of the
//! 196 KB logits vector).
//!
//! A draw under no mask (unconstrained, nothing refused) uploads none: the kernel's
//! `masked` is a compile-time switch. On wgpu an upload after a step's launches costs a
//! submit of its own (cubecl submits the queued launches before any queue write, to keep
//! the write after them), so an unconstrained token is two submits, not three.
//!
//! One workgroup of [`UNITS`]: unit `u` scans ids `u`, `u + UNITS`, ... in order and
//! keeps its best (a strictly higher logit replaces it, so its ties keep the lowest id);
//! the units' bests fold in shared memory by (logit, then lower id): `fold_best_shared`. The scan is 192
//! logits per unit for SmolLM2, a few microseconds on any GPU: more workgroups would
//! need a second launch to merge them.
//!
//! Not under burn's `fusion` (its tensors are fusion's). Natively the id is read back
//! synchronously ([`device_argmax`]); in the browser (WebGPU cannot block on the GPU) and
//! in async callers with [`device_argmax_async`]: the same launch, an async read.

use burn::backend::Cube;
use burn::tensor::Tensor;
use cubecl::client::Client;
use cubecl::prelude::*;
use cubecl::server::Handle;

use super::gpu_fold::fold_best_shared;
use super::gpu_quantized::cube_device;
use super::ModelError;

/// Units of the one workgroup.
const UNITS: u32 = 256;

/// The id `argmax` writes when no allowed id has a finite logit.
const NONE: u32 = u32::MAX;

/// `out[0]` = the allowed id (bit set in `mask`, or any when not `masked`) of
/// `logits[..n]` with the highest finite value, ties to the lowest id; [`NONE`] when
/// there is none.
#[cube(launch_unchecked)]
fn masked_argmax(
    logits: &[f32],
    mask: &[u32],
    out: &mut [u32],
    n: usize,
    #[comptime] masked: bool,
) {
    let unit = usize::cast_from(UNIT_POS_X);
    let units = comptime![UNITS as usize];
    let mut values = Shared::<[f32]>::new_slice(comptime![UNITS as usize]);
    let mut ids = Shared::<[u32]>::new_slice(comptime![UNITS as usize]);
    let mut best = 0.0f32;
    let mut best_id = 4294967295u32; // NONE, as a runtime variable
    let mut i = unit;
    while i < n {
        let l = logits[i];
        let mut bit = 1u32;
        if comptime![masked] {
            bit = (mask[i / 32] >> u32::cast_from(i % 32)) & 1u32;
        }
        let finite = !l.is_nan() && !l.is_inf();
        if bit == 1u32 && finite && (best_id == 4294967295u32 || l > best) {
            best = l;
            best_id = u32::cast_from(i);
        }
        i += units;
    }
    values[unit] = best;
    ids[unit] = best_id;
    sync_cube();
    fold_best_shared(&mut values, &mut ids, unit);
    if unit == 0 {
        out[0] = ids[0];
    }
}

/// Launches [`masked_argmax`] over the first `n` entries of `logits` (`[1, >= n]` f32 on a
/// cubecl device) under `mask` (`device_logits::device_words`; `None`: every id): one
/// upload (the mask, when there is one), one launch; returns the client and the 4-byte
/// buffer the id lands in.
fn launch(
    logits: &Tensor<2>,
    mask: Option<&[u32]>,
    n: usize,
) -> Result<(Client, Handle), ModelError> {
    let device = cube_device(&logits.device())
        .ok_or_else(|| ModelError::Execution("GPU argmax: not a cubecl device".into()))?;
    if mask.is_some_and(|m| m.len() * 32 < n) || logits.dims()[1] < n {
        return Err(ModelError::Execution(format!(
            "GPU argmax: {:?} mask words or {} logits for {n} ids",
            mask.map(<[u32]>::len),
            logits.dims()[1]
        )));
    }
    let x = logits.clone().try_into_primitive::<Cube>().map_err(|e| {
        ModelError::Execution(format!("GPU argmax: logits not on a cubecl device: {e:?}"))
    })?;
    let x = burn_cubecl::kernel::into_contiguous(x);
    let client = device.client();
    // Unit 0 always writes the one id (NONE when nothing is allowed): no upload needed.
    let out = client.empty(4);
    // Unmasked, the kernel never reads its mask: an empty word stands in for it (an
    // allocation, not a write; not `out`, which WebGPU refuses to bind both read-only
    // and read-write in one dispatch).
    let (mask_handle, words) = match mask {
        Some(m) => {
            let bytes: Vec<u8> = m.iter().flat_map(|w| w.to_le_bytes()).collect();
            (client.create_from_slice(&bytes), m.len())
        }
        None => (client.empty(4), 1),
    };
    // SAFETY: `x` holds at least `n` contiguous f32 (checked above), a mask covers `n`
    // bits (read only when there is one), `out` one u32 that only unit 0 writes.
    unsafe {
        masked_argmax::launch_unchecked(
            &client,
            CubeCount::Static(1, 1, 1),
            CubeDim::new_1d(UNITS),
            BufferArg::from_raw_parts(x.handle.clone(), n),
            BufferArg::from_raw_parts(mask_handle, words),
            BufferArg::from_raw_parts(out.clone(), 1),
            n,
            mask.is_some(),
        )
    };
    Ok((client, out))
}

/// The id read back from [`launch`]'s buffer.
fn id_of(bytes: &[u8]) -> Result<Option<u32>, ModelError> {
    let id: [u8; 4] = bytes
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| ModelError::Execution("GPU argmax: fewer than 4 bytes read back".into()))?;
    let id = u32::from_le_bytes(id);
    Ok((id != NONE).then_some(id))
}

/// Runs [`masked_argmax`] (see [`launch`]) and reads back the one id, blocking (native).
#[cfg(not(target_family = "wasm"))]
pub(crate) fn device_argmax(
    logits: &Tensor<2>,
    mask: Option<&[u32]>,
    n: usize,
) -> Result<Option<u32>, ModelError> {
    let (client, out) = launch(logits, mask, n)?;
    let bytes = client
        .read_one(out)
        .map_err(|e| ModelError::Execution(format!("GPU argmax: reading back the id: {e:?}")))?;
    id_of(&bytes)
}

/// [`device_argmax`] with an asynchronous read-back of the 4 bytes (WebGPU in the
/// browser).
pub(crate) async fn device_argmax_async(
    logits: &Tensor<2>,
    mask: Option<&[u32]>,
    n: usize,
) -> Result<Option<u32>, ModelError> {
    let (client, out) = launch(logits, mask, n)?;
    let mut bytes = client
        .read_async(vec![out])
        .await
        .map_err(|e| ModelError::Execution(format!("GPU argmax: reading back the id: {e:?}")))?;
    id_of(&bytes.remove(0))
}
