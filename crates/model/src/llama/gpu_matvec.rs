//! The block mat-vec kernel (`gpu_quantized.rs` holds its matrices and launches it): a
//! quantized matrix in one of the layouts of `gpu_blocks.rs` times activation rows, its
//! rows dealt to the device's units by a `RowSplit`, a prompt's rows in tiles, a decode
//! step's input transformed first by a [`Prologue`] (RMSNorm or SwiGLU: a launch fewer
//! each) and its output added to the residual stream (`add`). Each sum is taken in the
//! order of the host twin (`GpuBlocks::matmul`, and `gpu_norm::rms_norm_twin_units` /
//! `feed_forward::swiglu_rows` for the prologues); `gpu_kernel_check.rs` compares them on
//! every device it runs on, and the launch geometry the kernel sees ([`launch_geometry`]).

#[cfg(not(target_family = "wasm"))]
use burn::tensor::Device;
use burn_cubecl::tensor::CubeTensor;
use cubecl::prelude::*;

use super::gpu_fold::{fold_sum_all_shared, fold_sum_shared};
#[cfg(not(target_family = "wasm"))]
use super::gpu_quantized::{cube_device, le_bytes, RowSplit};
#[cfg(not(target_family = "wasm"))]
use super::ModelError;

/// Activation rows a unit multiplies per weight word it reads, in a product of `t` rows:
/// 1 for a decode step, [`PREFILL_TILE`] for a prompt.
pub(crate) fn tile_for(t: usize) -> usize {
    if t == 1 {
        1
    } else {
        PREFILL_TILE
    }
}

/// A prompt's tile: each weight word read once for 8 activation rows (the weights are
/// read `t / 8` times over a prefill of `t` tokens instead of `t` times); 8 accumulators
/// a unit, and with `RowSplit::Lanes` 4 KiB of shared memory a workgroup.
pub(crate) const PREFILL_TILE: usize = 8;

/// What a decode step's product does to its input row before it multiplies (issue 33: a
/// launch fewer each, the input transformed in shared memory by every workgroup, not by a
/// launch of its own): nothing, RMSNorm (the attention's and the feed-forward's norms and
/// the final one: `x · r · w`, `r = 1 / sqrt(Σ x² / cols + eps)`, the units' squares
/// summed as `gpu_norm::rms_norm_twin_units` does with the workgroup's units), or SwiGLU (the down product's input: `silu(gate) · up`
/// of the gate/up product's row, `gpu_swiglu.rs`' formula).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "fusion", allow(dead_code))]
pub(crate) enum Prologue<'a> {
    None,
    /// RMSNorm with these weights (`cols` of them) and epsilon.
    Norm {
        weights: &'a CubeTensor,
        eps: f32,
    },
    /// The input row is a gate/up product's: `[gate (cols) | up (cols)]`.
    SwiGlu,
}

impl Prologue<'_> {
    /// The kernel's compile-time switch.
    pub(crate) fn code(&self) -> u32 {
        match self {
            Prologue::None => PROLOGUE_NONE,
            Prologue::Norm { .. } => PROLOGUE_NORM,
            Prologue::SwiGlu => PROLOGUE_SWIGLU,
        }
    }

    /// Input values a row of a product `cols` wide reads.
    pub(crate) fn input_width(&self, cols: usize) -> usize {
        match self {
            Prologue::SwiGlu => 2 * cols,
            _ => cols,
        }
    }
}

const PROLOGUE_NONE: u32 = 0;
const PROLOGUE_NORM: u32 = 1;
const PROLOGUE_SWIGLU: u32 = 2;

/// The widest input a prologue holds in a workgroup's shared memory: WebGPU guarantees
/// 16 KiB a workgroup; the transformed row takes `4 · cols` bytes of it, the two folds'
/// partials 1 KiB. Wider products (a 4096-wide model's norms, Qwen2.5-1.5B's 8,960-wide
/// SwiGLU) keep their launch of their own.
#[cfg(not(feature = "fusion"))]
pub(crate) const PROLOGUE_MAX_COLS: usize = 3840;

/// `out[t][r] = Σ_j d[j][r] · Σ_i q[j][r][i] · x[t][32 j + i] + m[j][r] · Σ_i x[t][32 j + i]`
/// over the layout of `gpu_blocks.rs`, in its order of sums; `bits` = 4 (Q4_1, `mins`
/// read) or 8 (signed; with `halves` Q8_16: `d` and `m` per 16 values, else Q8_0: `mins`
/// unused). Unit (lane, slot) of cube (c, y) works on row `c * rows_per_cube + slot` of
/// activation rows `y * tile ..` (`tile` of them, fewer at the end of `t_rows`), with
/// `lanes` units a row (`RowSplit`): each weight word is read once for the `tile`
/// activation rows (a prefill's tiled product; `tile` = 1 for a decode step), and each
/// (row, activation row)'s sum keeps the order of one. The rows are a part of a matrix
/// split over buffers (`GpuQuantized`'s `Part`): output row `row0 + r` of `out_rows`.
/// With `add`, `residual[t][r]` is added to the sum (o-proj and down + the residual
/// stream: issue 33 step 4, one launch fewer each; `residual` is not read otherwise).
/// A decode step (`tile` = 1, one activation row) may transform its input first
/// ([`Prologue`], its code in `prologue`; `norm_w` and `eps` are RMSNorm's, read only
/// by it): the workgroup writes the transformed row to shared memory (`xs_len` = `cols`
/// values) and multiplies that.
#[allow(clippy::too_many_arguments)]
#[cube(launch_unchecked)]
pub(crate) fn block_matvec(
    x: &[f32],
    words: &[u32],
    scales: &[f32],
    mins: &[f32],
    residual: &[f32],
    norm_w: &[f32],
    out: &mut [f32],
    rows: usize,
    cols: usize,
    t_rows: usize,
    row0: usize,
    out_rows: usize,
    eps: f32,
    #[comptime] bits: u32,
    #[comptime] halves: bool,
    #[comptime] add: bool,
    #[comptime] lanes: usize,
    #[comptime] rows_per_cube: usize,
    #[comptime] tile: usize,
    #[comptime] prologue: u32,
    #[comptime] xs_len: usize,
) {
    let lane = usize::cast_from(UNIT_POS_X);
    let slot = usize::cast_from(UNIT_POS_Y);
    let r = usize::cast_from(CUBE_POS_X) * rows_per_cube + slot;
    let per_block = comptime![if bits == 4 { 4usize } else { 8usize }];
    let blocks = cols / 32;
    let units = blocks * per_block;
    if comptime![tile == 1] {
        // A decode step: one activation row a unit, one accumulator (the tiled form below
        // made lavapipe's pass ~20% slower: stop 47).
        let t = usize::cast_from(CUBE_POS_Y);
        let mut xs = Shared::<[f32]>::new_slice(comptime![xs_len]);
        if comptime![prologue != PROLOGUE_NONE] {
            let u = slot * lanes + lane;
            transform_row(x, norm_w, &mut xs, cols, eps, u, prologue, lanes * rows_per_cube);
        }
        let mut acc = 0.0f32;
        if r < rows {
            let mut u = lane;
            while u < units {
                let (j, w) = (u / per_block, u % per_block);
                let word = words[r * units + u];
                let block = r * blocks + j;
                if comptime![prologue != PROLOGUE_NONE] {
                    acc += word_term(&xs, j * 32, word, w, scales, mins, block, bits, halves);
                } else {
                    let xb = t * cols + j * 32;
                    acc += word_term(x, xb, word, w, scales, mins, block, bits, halves);
                }
                u += lanes;
            }
        }
        if comptime![lanes == 1] {
            if r < rows {
                store_row(residual, out, t * out_rows + row0 + r, acc, add);
            }
        } else {
            let mut partials = Shared::<[f32]>::new_slice(comptime![lanes * rows_per_cube]);
            let at = slot * lanes + lane;
            partials[at] = acc;
            sync_cube();
            fold_sum_shared(&mut partials, at, lane);
            if lane == 0 && r < rows {
                store_row(residual, out, t * out_rows + row0 + r, partials[at], add);
            }
        }
    } else {
        let t0 = usize::cast_from(CUBE_POS_Y) * tile;
        let mut acc = Array::<f32>::new(tile);
        if r < rows {
            let mut u = lane;
            while u < units {
                let (j, w) = (u / per_block, u % per_block);
                let word = words[r * units + u];
                #[unroll]
                for tt in 0..tile {
                    if t0 + tt < t_rows {
                        let xb = (t0 + tt) * cols + j * 32;
                        acc[tt] +=
                            word_term(x, xb, word, w, scales, mins, r * blocks + j, bits, halves);
                    }
                }
                u += lanes;
            }
        }
        if comptime![lanes == 1] {
            #[unroll]
            for tt in 0..tile {
                if r < rows && t0 + tt < t_rows {
                    store_row(residual, out, (t0 + tt) * out_rows + row0 + r, acc[tt], add);
                }
            }
        } else {
            let mut partials = Shared::<[f32]>::new_slice(comptime![lanes * rows_per_cube * tile]);
            #[unroll]
            for tt in 0..tile {
                partials[(tt * rows_per_cube + slot) * lanes + lane] = acc[tt];
            }
            sync_cube();
            #[unroll]
            for tt in 0..tile {
                let at = (tt * rows_per_cube + slot) * lanes + lane;
                fold_sum_shared(&mut partials, at, lane);
                if lane == 0 && r < rows && t0 + tt < t_rows {
                    store_row(residual, out, (t0 + tt) * out_rows + row0 + r, partials[at], add);
                }
            }
        }
    }
}

/// The [`Prologue`]: the workgroup's `units` units (unit `u`) write the transformed
/// input row (`cols` values; the gate/up row is `2 cols` wide) to `xs`, then wait for all.
#[cube]
fn transform_row(
    x: &[f32],
    norm_w: &[f32],
    xs: &mut [f32],
    cols: usize,
    eps: f32,
    u: usize,
    #[comptime] prologue: u32,
    #[comptime] units: usize,
) {
    let n = usize::cast_from(CUBE_DIM);
    if comptime![prologue == PROLOGUE_NORM] {
        let mut squares = Shared::<[f32]>::new_slice(comptime![units]);
        let mut acc = 0.0f32;
        let mut i = u;
        while i < cols {
            let v = x[i];
            acc += v * v;
            i += n;
        }
        squares[u] = acc;
        sync_cube();
        fold_sum_all_shared(&mut squares, u);
        let r = 1.0f32 / (squares[0] / f32::cast_from(cols) + eps).sqrt();
        let mut j = u;
        while j < cols {
            xs[j] = x[j] * r * norm_w[j];
            j += n;
        }
    } else {
        let mut j = u;
        while j < cols {
            let g = x[j];
            xs[j] = g * (-((-g).exp() + 1.0f32).ln()).exp() * x[cols + j];
            j += n;
        }
    }
    sync_cube();
}

/// Word `w` of block `block` (`word`, already read) against the activations from `xb`:
/// `d * Σ q x + m * Σ x` over the word's values (`gpu_blocks.rs`' `word_term`).
#[allow(clippy::too_many_arguments)]
#[cube]
fn word_term(
    x: &[f32],
    xb: usize,
    word: u32,
    w: usize,
    scales: &[f32],
    mins: &[f32],
    block: usize,
    #[comptime] bits: u32,
    #[comptime] halves: bool,
) -> f32 {
    let mut dot = 0.0f32;
    let mut sum = 0.0f32;
    if comptime![bits == 4] {
        #[unroll]
        for b in 0..4usize {
            let byte = (word >> u32::cast_from(8 * b)) & 255u32;
            let xl = x[xb + 4 * w + b];
            let xh = x[xb + 16 + 4 * w + b];
            dot += f32::cast_from(byte & 15u32) * xl + f32::cast_from(byte >> 4u32) * xh;
            sum += xl + xh;
        }
        scales[block] * dot + mins[block] * sum
    } else {
        #[unroll]
        for b in 0..4usize {
            let byte = (word >> u32::cast_from(8 * b)) & 255u32;
            // Sign extension: bytes 128..255 are -128..-1.
            let q = f32::cast_from(byte) - 256.0f32 * f32::cast_from(byte >> 7u32);
            let xv = x[xb + 4 * w + b];
            dot += q * xv;
            if comptime![halves] {
                sum += xv;
            }
        }
        if comptime![halves] {
            // Words 0..3 of a block are its first 16 values, 4..7 the rest.
            let s = block * 2 + w / 4;
            scales[s] * dot + mins[s] * sum
        } else {
            scales[block] * dot
        }
    }
}

/// Writes one output value, plus the residual's with `add`.
#[cube]
fn store_row(residual: &[f32], out: &mut [f32], i: usize, value: f32, #[comptime] add: bool) {
    if comptime![add] {
        out[i] = value + residual[i];
    } else {
        out[i] = value;
    }
}

/// The launch geometry `block_matvec` sees, written out per (row, activation row): its
/// row, its activation row and the two size arguments. For the self-check
/// (`gpu_kernel_check.rs`, native only: it reads back synchronously).
#[cfg(not(target_family = "wasm"))]
#[cube(launch_unchecked)]
fn geometry(
    out: &mut [f32],
    rows: usize,
    cols: usize,
    t_rows: usize,
    #[comptime] rows_per_cube: usize,
    #[comptime] tile: usize,
) {
    let r = usize::cast_from(CUBE_POS_X) * rows_per_cube + usize::cast_from(UNIT_POS_Y);
    let t0 = usize::cast_from(CUBE_POS_Y) * tile;
    #[unroll]
    for tt in 0..tile {
        if r < rows && t0 + tt < t_rows && UNIT_POS_X == 0 {
            let at = ((t0 + tt) * rows + r) * 4;
            out[at] = f32::cast_from(r);
            out[at + 1] = f32::cast_from(t0 + tt);
            out[at + 2] = f32::cast_from(rows);
            out[at + 3] = f32::cast_from(cols);
        }
    }
}

/// Runs [`geometry`] on `device` with `block_matvec`'s launch under `split` for `rows` x
/// `t` (tiled as a product of `t` rows is); four values per (row, activation row), at
/// `(t * rows + row) * 4`.
#[cfg(not(target_family = "wasm"))]
pub(crate) fn launch_geometry(
    device: &Device,
    split: RowSplit,
    rows: usize,
    cols: usize,
    t: usize,
) -> Result<Vec<f32>, ModelError> {
    let device =
        cube_device(device).ok_or_else(|| ModelError::Execution("not a cubecl device".into()))?;
    let client = device.client();
    let n = rows * t * 4;
    let out = client.create_from_slice(&le_bytes(&vec![f32::NAN; n], f32::to_le_bytes));
    let tile = tile_for(t);
    // SAFETY: `out` holds `rows * t * 4` f32; lane 0 of each row writes its own four per
    // activation row, only for r < rows and activation rows < t.
    unsafe {
        geometry::launch_unchecked(
            &client,
            split.cube_count(rows, t, tile),
            split.cube_dim(),
            BufferArg::from_raw_parts(out.clone(), n),
            rows,
            cols,
            t,
            split.rows_per_cube() as usize,
            tile,
        )
    };
    let bytes = client
        .read_one(out)
        .map_err(|e| ModelError::Execution(format!("reading back the launch geometry: {e:?}")))?;
    Ok(bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
}
