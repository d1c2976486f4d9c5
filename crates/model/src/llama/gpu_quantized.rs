//! A linear layer whose weights stay quantized on a cubecl GPU device (WebGPU in the
//! browser, wgpu natively, CUDA): the GGUF's quantized blocks in one of three layouts
//! ([`GpuBlocks`]) are uploaded once and a kernel of our own dequantizes each block as it
//! multiplies, so no f32 copy of a weight is ever resident (SmolLM2: ~111 MB on the GPU
//! instead of ~540 MB as f32).
//!
//! The kernel is written here, not taken from burn: burn 0.22's quantized tensors are
//! symmetric (Q4_1's `d * q + m` does not fit), and one kernel for every block type
//! keeps one code path. It is a mat-vec per activation row, its rows dealt to the device's
//! units by a [`RowSplit`] chosen per device: on a GPU a workgroup of 4 rows x [`LANES`]
//! lanes, each row's words dealt to its 32 lanes and their sums folded in shared memory
//! (the order `gpu_blocks.rs` documents and its host twin repeats), so a 576-row
//! projection is 144 workgroups of 128 units (one unit per row was 9 workgroups of 64:
//! issue 33 measured 74 us for it on an H100); on a CPU adapter (SwiftShader, lavapipe)
//! one unit per row, 64 rows a workgroup, no shared memory or barrier (there the lanes'
//! fold made a decode step ~4.5x slower: see [`RowSplit::Units`]). A prefill of `t`
//! tokens is one launch in tiles: a unit multiplies each weight word it reads by
//! [`PREFILL_TILE`] activation rows, so the weights are read `t / 8` times, not `t`
//! (never dequantized to memory). A matrix bigger than the device's one allocation
//! (`max_page_size`: lavapipe's and WebGPU's default storage binding, 128 MiB, are under a
//! 150k-token vocabulary's output) is held in parts of rows, one launch a part. Shared memory and barriers only, no subgroup operations:
//! WebGPU has them only behind a feature, and lavapipe's are 8 wide.
//!
//! With burn's `fusion` feature (the playground's build) the launch is registered as a
//! custom operation in fusion's stream, so it runs in order with the fused element-wise
//! kernels around it; without it (native wgpu, cuda) the kernel is launched directly on
//! the cube tensor. The kernel is `#[cube]`, so cubecl compiles it for whichever
//! runtime the device belongs to (WGSL on wgpu, PTX on CUDA); nothing here names one.

use burn::backend::{Cube, DispatchDevice};
use burn::tensor::{DType, Device, Tensor};
use burn_cubecl::ops::numeric::empty_device_contiguous_dtype;
use burn_cubecl::tensor::CubeTensor;
use burn_cubecl::CubeDevice;
use cubecl::client::Client;
use cubecl::prelude::*;
use cubecl::server::Handle;

use super::gpu_blocks::{BlockKind, GpuBlocks, LANES};
use super::gpu_fold::fold_sum_shared;
use super::ModelError;

/// How a product's rows are dealt to a device's units: chosen per device at upload
/// ([`RowSplit::for_client`]), forced by the self-check to test both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RowSplit {
    /// A row over [`LANES`] lanes, 4 rows a workgroup (128 units), the lanes' sums
    /// folded in shared memory: fills a GPU. 49,152 vocabulary rows (SmolLM2's head)
    /// are 12,288 workgroups, 151,936 (Qwen2's) 37,984: both under the 65,535 a
    /// dispatch dimension may hold.
    Lanes,
    /// One unit per row, 64 rows a workgroup, no shared memory or barrier: a CPU
    /// adapter, which runs a workgroup's units as SIMD lanes and pays for each barrier.
    /// The browser test on SwiftShader: a decode step ~3.5 s with one unit per row (stop
    /// 40), ~16 s with the lanes' fold (the backend race of stop 41).
    Units,
}

impl RowSplit {
    /// Both splits (the self-check runs each).
    #[cfg(not(target_family = "wasm"))]
    pub(crate) const ALL: [RowSplit; 2] = [RowSplit::Lanes, RowSplit::Units];

    /// [`RowSplit::Units`] on a device that is no card (cubecl names no physical device
    /// for a CPU adapter: lavapipe natively, a fallback adapter such as SwiftShader in a
    /// browser), [`RowSplit::Lanes`] otherwise.
    fn for_client(client: &Client) -> Self {
        if client.properties().identity.physical.is_none() {
            RowSplit::Units
        } else {
            RowSplit::Lanes
        }
    }

    /// Units that share one row (the host twin's fold width, `gpu_blocks.rs`).
    pub(crate) fn lanes(self) -> usize {
        match self {
            RowSplit::Lanes => LANES,
            RowSplit::Units => 1,
        }
    }

    fn rows_per_cube(self) -> u32 {
        match self {
            RowSplit::Lanes => 4,
            RowSplit::Units => 64,
        }
    }

    /// `block_matvec`'s workgroup: lanes x rows.
    fn cube_dim(self) -> CubeDim {
        CubeDim::new_2d(self.lanes() as u32, self.rows_per_cube())
    }

    /// `block_matvec`'s grid for `rows` output rows and `t` activation rows, `tile` a unit.
    fn cube_count(self, rows: usize, t: usize, tile: usize) -> CubeCount {
        let y = t.div_ceil(tile) as u32;
        CubeCount::Static((rows as u32).div_ceil(self.rows_per_cube()), y, 1)
    }
}

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
/// a unit, and with [`RowSplit::Lanes`] 4 KiB of shared memory a workgroup.
pub(crate) const PREFILL_TILE: usize = 8;

/// `out[t][r] = Σ_j d[j][r] · Σ_i q[j][r][i] · x[t][32 j + i] + m[j][r] · Σ_i x[t][32 j + i]`
/// over the layout of `gpu_blocks.rs`, in its order of sums; `bits` = 4 (Q4_1, `mins`
/// read) or 8 (signed; with `halves` Q8_16: `d` and `m` per 16 values, else Q8_0: `mins`
/// unused). Unit (lane, slot) of cube (c, y) works on row `c * rows_per_cube + slot` of
/// activation rows `y * tile ..` (`tile` of them, fewer at the end of `t_rows`), with
/// `lanes` units a row ([`RowSplit`]): each weight word is read once for the `tile`
/// activation rows (a prefill's tiled product; `tile` = 1 for a decode step), and each
/// (row, activation row)'s sum keeps the order of one. The rows are a part of a matrix
/// split over buffers (`GpuQuantized`'s `Part`): output row `row0 + r` of `out_rows`.
/// With `add`, `residual[t][r]` is added to the sum (o-proj and down + the residual stream: issue 33 step 4, one launch
/// fewer each; `residual` is not read otherwise).
#[allow(clippy::too_many_arguments)]
#[cube(launch_unchecked)]
fn block_matvec(
    x: &[f32],
    words: &[u32],
    scales: &[f32],
    mins: &[f32],
    residual: &[f32],
    out: &mut [f32],
    rows: usize,
    cols: usize,
    t_rows: usize,
    row0: usize,
    out_rows: usize,
    #[comptime] bits: u32,
    #[comptime] halves: bool,
    #[comptime] add: bool,
    #[comptime] lanes: usize,
    #[comptime] rows_per_cube: usize,
    #[comptime] tile: usize,
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
        let mut acc = 0.0f32;
        if r < rows {
            let mut u = lane;
            while u < units {
                let (j, w) = (u / per_block, u % per_block);
                let xb = t * cols + j * 32;
                let word = words[r * units + u];
                acc += word_term(x, xb, word, w, scales, mins, r * blocks + j, bits, halves);
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

/// A quantized matrix resident on a cubecl device, with the kernel that multiplies it.
#[derive(Clone)]
pub(crate) struct GpuQuantized {
    kind: BlockKind,
    rows: usize,
    cols: usize,
    client: Client,
    device: CubeDevice,
    /// The matrix's rows in buffers under the device's one-allocation cap.
    parts: Vec<Part>,
    bytes: usize,
    split: RowSplit,
}

/// Rows `row0..row0 + rows` of a [`GpuQuantized`] matrix in buffers of their own: cubecl
/// caps one allocation at the device's `max_page_size` (on wgpu its storage-binding and
/// buffer limits: lavapipe's and WebGPU's default 128 MiB are under the words of a
/// 151,936-row output), so a bigger matrix is cut by rows, one launch a part.
#[derive(Clone)]
struct Part {
    row0: usize,
    rows: usize,
    words: Handle,
    scales: Handle,
    /// Q8_0 has no minimums: the scales' buffer stands in (the kernel never reads it).
    mins: Handle,
}

impl std::fmt::Debug for GpuQuantized {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "GpuQuantized({:?} {}x{} in {} part(s), {} bytes on {:?}, {:?})",
            self.kind,
            self.rows,
            self.cols,
            self.parts.len(),
            self.bytes,
            self.device,
            self.split
        )
    }
}

/// The cubecl device behind `device`, `None` for the other backends.
pub(crate) fn cube_device(device: &Device) -> Option<CubeDevice> {
    #[allow(unreachable_patterns)]
    match device.as_dispatch() {
        DispatchDevice::Cube(d) => Some(d.clone()),
        _ => None,
    }
}

/// Whether the kernel runs on `device`: a wgpu device (WebGPU in the browser, Vulkan /
/// Metal natively) or a CUDA one, the runtimes it is built and tested for.
pub(crate) fn is_block_kernel_device(device: &Device) -> bool {
    matches!(cube_device(device), Some(cubecl::Device::Wgpu(_) | cubecl::Device::Cuda(_)))
}

fn le_bytes<T: Copy>(values: &[T], to: impl Fn(T) -> [u8; 4]) -> Vec<u8> {
    values.iter().flat_map(|&v| to(v)).collect()
}

impl GpuQuantized {
    /// Uploads `blocks` to `device`, with the device's [`RowSplit`]; `None` when it is
    /// not a cubecl device.
    pub(crate) fn upload(blocks: &GpuBlocks, device: &Device) -> Option<Self> {
        Self::upload_parts(blocks, device, None, None)
    }

    /// [`GpuQuantized::upload`] with the split forced (`Some`) or the device's, in parts
    /// of at most `cap` bytes (`None`: the device's one-allocation cap; the self-check
    /// forces small parts).
    pub(crate) fn upload_parts(
        blocks: &GpuBlocks,
        device: &Device,
        split: Option<RowSplit>,
        cap: Option<u64>,
    ) -> Option<Self> {
        let device = cube_device(device)?;
        let client = device.client();
        let split = split.unwrap_or_else(|| RowSplit::for_client(&client));
        let cap = cap.unwrap_or(client.properties().memory.max_page_size).max(1);
        let per_row = |n: usize| n / blocks.rows.max(1);
        let (word_row, scale_row) = (per_row(blocks.words.len()), per_row(blocks.scales.len()));
        // The words are a row's largest array.
        let rows_per_part = (cap as usize / (4 * word_row).max(1)).max(1);
        let parts = (0..blocks.rows)
            .step_by(rows_per_part)
            .map(|row0| {
                let rows = rows_per_part.min(blocks.rows - row0);
                let cut = |v: &[f32], n: usize| {
                    le_bytes(&v[row0 * n..(row0 + rows) * n], f32::to_le_bytes)
                };
                let words = &blocks.words[row0 * word_row..(row0 + rows) * word_row];
                let words = client.create_from_slice(&le_bytes(words, u32::to_le_bytes));
                let scales = client.create_from_slice(&cut(&blocks.scales, scale_row));
                let mins = match blocks.kind.has_mins() {
                    true => client.create_from_slice(&cut(&blocks.mins, scale_row)),
                    false => scales.clone(),
                };
                Part { row0, rows, words, scales, mins }
            })
            .collect();
        Some(Self {
            kind: blocks.kind,
            rows: blocks.rows,
            cols: blocks.cols,
            client,
            device,
            parts,
            bytes: blocks.bytes(),
            split,
        })
    }

    /// Bytes the weights take on the device.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// How the kernel deals this layer's rows to the device's units.
    #[cfg_attr(target_family = "wasm", allow(dead_code))]
    pub(crate) fn split(&self) -> RowSplit {
        self.split
    }

    /// `x · Wᵀ` (`+ residual`, `[t, rows]` contiguous) on cube tensors: `x` `[t, cols]`
    /// f32 -> `[t, rows]` f32.
    fn launch(&self, x: CubeTensor, residual: Option<&CubeTensor>) -> CubeTensor {
        let x = burn_cubecl::kernel::into_contiguous(x);
        let t = x.meta.shape()[0];
        // Contiguous, not `empty_device_dtype`: that asks for the runtime's optimized
        // layout, whose rows CUDA pads (pitched memory), while the kernel writes rows
        // `rows` apart (issue 20: every activation row after the first was misread on
        // CUDA; WebGPU does not pad, which is why its agreement test passed).
        let out = empty_device_contiguous_dtype(
            self.client.clone(),
            self.device.clone(),
            [t, self.rows].into(),
            DType::F32,
        );
        let tile = tile_for(t);
        for part in &self.parts {
            self.launch_part(part, &x, residual, &out, t, tile);
        }
        out
    }

    /// One part's launch: its rows of `out` (`[t, rows]`), plus `residual`'s.
    fn launch_part(
        &self,
        part: &Part,
        x: &CubeTensor,
        residual: Option<&CubeTensor>,
        out: &CubeTensor,
        t: usize,
        tile: usize,
    ) {
        let blocks = part.rows * self.cols / 32;
        let scales = blocks * self.kind.scales_per_block();
        // SAFETY: every length is the buffer's own (a part's words, scales and mins were
        // uploaded with exactly these counts; x, residual and out are contiguous [t, cols]
        // / [t, rows]), and the kernel reads and writes only inside them (r < the part's
        // rows, row0 + r < rows, activation rows < t).
        unsafe {
            block_matvec::launch_unchecked(
                &self.client,
                self.split.cube_count(part.rows, t, tile),
                self.split.cube_dim(),
                BufferArg::from_raw_parts(x.handle.clone(), t * self.cols),
                BufferArg::from_raw_parts(part.words.clone(), blocks * self.kind.words()),
                BufferArg::from_raw_parts(part.scales.clone(), scales),
                BufferArg::from_raw_parts(part.mins.clone(), scales),
                // Without a residual the kernel never reads it: the scales stand in (a
                // read-only buffer; wgpu refuses one bound both read-only and writable).
                match residual {
                    Some(r) => BufferArg::from_raw_parts(r.handle.clone(), t * self.rows),
                    None => BufferArg::from_raw_parts(part.scales.clone(), scales),
                },
                BufferArg::from_raw_parts(out.handle.clone(), t * self.rows),
                part.rows,
                self.cols,
                t,
                part.row0,
                self.rows,
                self.kind.bits(),
                self.kind == BlockKind::Q8_16,
                residual.is_some(),
                self.split.lanes(),
                self.split.rows_per_cube() as usize,
                tile,
            )
        };
    }

    /// `x · Wᵀ` for `x` of shape `[t, cols]` (f32, on this layer's device).
    pub(crate) fn forward(&self, x: Tensor<2>) -> Result<Tensor<2>, ModelError> {
        let [_, cols] = x.dims();
        if cols != self.cols || x.dtype() != DType::F32 {
            return Err(ModelError::Execution(format!(
                "GPU block layer {}x{} got input of width {cols} in {:?}",
                self.rows,
                self.cols,
                x.dtype()
            )));
        }
        let x = x.try_into_primitive::<Cube>().map_err(|e| {
            ModelError::Execution(format!("GPU block layer: input not on a cubecl device: {e:?}"))
        })?;
        Ok(Tensor::from_primitive::<Cube>(self.run(x)))
    }

    #[cfg(not(feature = "fusion"))]
    fn run(&self, x: CubeTensor) -> CubeTensor {
        self.launch(x, None)
    }

    /// `residual + x · Wᵀ` in one launch (`residual` `[t, rows]`, f32, on this layer's
    /// device).
    #[cfg(not(feature = "fusion"))]
    pub(crate) fn forward_add(
        &self,
        x: Tensor<2>,
        residual: Tensor<2>,
    ) -> Result<Tensor<2>, ModelError> {
        let [t, cols] = x.dims();
        if cols != self.cols || residual.dims() != [t, self.rows] {
            return Err(ModelError::Execution(format!(
                "GPU block layer {}x{}: input of width {cols}, residual {:?}",
                self.rows,
                self.cols,
                residual.dims()
            )));
        }
        let what = "GPU block layer";
        let x = super::gpu_tensor::cube(x, what)?;
        let residual = super::gpu_tensor::cube(residual, what)?;
        Ok(super::gpu_tensor::tensor(self.launch(x, Some(&residual))))
    }

    /// Registers the launch in fusion's stream (executed in order with the rest).
    #[cfg(feature = "fusion")]
    fn run(
        &self,
        x: burn_fusion::FusionTensor<burn_cubecl::fusion::FusionCubeRuntime>,
    ) -> burn_fusion::FusionTensor<burn_cubecl::fusion::FusionCubeRuntime> {
        use burn_fusion::stream::StreamId;
        use burn_ir::{CustomOpIr, OperationIr, TensorIr};

        let t = x.shape[0];
        let client = x.client.clone();
        let out = TensorIr::uninit(client.create_empty_handle(), [t, self.rows].into(), DType::F32);
        let input = x.into_ir();
        let desc = CustomOpIr::new(
            "espalier_block_matvec",
            std::slice::from_ref(&input),
            std::slice::from_ref(&out),
        );
        let op = fused::BlockMatvec { input, out, layer: self.clone() };
        client.register(StreamId::current(), OperationIr::Custom(desc), op).remove(0)
    }
}

#[cfg(feature = "fusion")]
mod fused {
    use burn_cubecl::fusion::{CubeFusionHandle, FusionCubeRuntime};
    use burn_cubecl::CubeBackend;
    use burn_fusion::stream::Operation;
    use burn_fusion::ExecutionError;
    use burn_ir::{HandleContainer, TensorIr};

    use super::GpuQuantized;

    /// The deferred launch: fusion calls `execute` when it reaches it in the stream.
    #[derive(Debug)]
    pub(super) struct BlockMatvec {
        pub input: TensorIr,
        pub out: TensorIr,
        pub layer: GpuQuantized,
    }

    impl Operation<FusionCubeRuntime> for BlockMatvec {
        fn execute(
            &self,
            handles: &mut HandleContainer<CubeFusionHandle>,
        ) -> Result<(), ExecutionError> {
            let x = handles.get_float_tensor::<CubeBackend>(&self.input);
            let y = self.layer.launch(x, None);
            handles.register_float_tensor::<CubeBackend>(&self.out.id, y);
            Ok(())
        }
    }
}
