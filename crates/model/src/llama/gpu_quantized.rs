//! A linear layer whose weights stay quantized on a cubecl GPU device (WebGPU in the
//! browser, wgpu natively, CUDA): the GGUF's quantized blocks in one of three layouts
//! ([`GpuBlocks`]) are uploaded once and a kernel of our own (`gpu_matvec.rs`)
//! dequantizes each block as it multiplies, so no f32 copy of a weight is ever resident
//! (SmolLM2: ~111 MB on the GPU instead of ~540 MB as f32).
//!
//! The kernel is ours, not burn's: burn 0.22's quantized tensors are symmetric (Q4_1's
//! `d * q + m` does not fit), and one kernel for every block type keeps one code path.
//! Its rows are dealt to the device's units by a [`RowSplit`] chosen per device: on a GPU
//! a workgroup of 4 rows x [`LANES`] lanes, each row's words dealt to its 32 lanes and
//! their sums folded in shared memory (the order `gpu_blocks.rs` documents and its host
//! twin repeats), so a 576-row projection is 144 workgroups of 128 units (one unit per
//! row was 9 workgroups of 64: issue 33 measured 74 us for it on an H100); on a CPU
//! adapter (SwiftShader, lavapipe) one unit per row, 64 rows a workgroup, no fold (there
//! the lanes' fold made a decode step ~4.5x slower: see [`RowSplit::Units`]). A matrix
//! bigger than the device's one allocation (`max_page_size`: lavapipe's and WebGPU's
//! default storage binding, 128 MiB, are under a 150k-token vocabulary's output) is held
//! in parts of rows, one launch a part. A decode step's product may take RMSNorm or
//! SwiGLU as its prologue ([`GpuQuantized::forward_prologue`]), a launch fewer each.
//!
//! With burn's `fusion` feature the launch is registered as a custom operation in
//! fusion's stream, so it runs in order with the fused element-wise kernels around it
//! (no prologue there); without it (native wgpu, cuda, the playground's WebGPU) the
//! kernel is launched directly on the cube tensor. The kernel is `#[cube]`, so cubecl
//! compiles it for whichever runtime the device belongs to (WGSL on wgpu, PTX on CUDA);
//! nothing here names one.

use burn::backend::{Cube, DispatchDevice};
use burn::tensor::{DType, Device, Tensor};
use burn_cubecl::ops::numeric::empty_device_contiguous_dtype;
use burn_cubecl::tensor::CubeTensor;
use burn_cubecl::CubeDevice;
use cubecl::client::Client;
use cubecl::prelude::*;
use cubecl::server::Handle;

use super::gpu_blocks::{BlockKind, GpuBlocks, LANES};
use super::gpu_matvec::{block_matvec, tile_for, Prologue};
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

    /// Units of a workgroup (lanes x rows): the prologue's twin sums over this many.
    #[cfg(not(any(target_family = "wasm", feature = "fusion")))]
    pub(crate) fn units(self) -> usize {
        self.lanes() * self.rows_per_cube() as usize
    }

    pub(crate) fn rows_per_cube(self) -> u32 {
        match self {
            RowSplit::Lanes => 4,
            RowSplit::Units => 64,
        }
    }

    /// `block_matvec`'s workgroup: lanes x rows.
    pub(crate) fn cube_dim(self) -> CubeDim {
        CubeDim::new_2d(self.lanes() as u32, self.rows_per_cube())
    }

    /// `block_matvec`'s grid for `rows` output rows and `t` activation rows, `tile` a unit.
    pub(crate) fn cube_count(self, rows: usize, t: usize, tile: usize) -> CubeCount {
        let y = t.div_ceil(tile) as u32;
        CubeCount::Static((rows as u32).div_ceil(self.rows_per_cube()), y, 1)
    }
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
    /// Whether decode steps fold RMSNorm / SwiGLU into this product ([`prologues_for`]).
    #[cfg_attr(feature = "fusion", allow(dead_code))]
    prologues: bool,
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

/// Whether decode steps fold RMSNorm and SwiGLU into the products under `split`:
/// `ESPALIER_GPU_PROLOGUE=1` / `0` says so for every device (A/B runs, and the lavapipe
/// check's agreement of the folded pass); otherwise on a GPU ([`RowSplit::Lanes`]: a
/// launch costs a GPU more than the prologue's work) and not on a CPU adapter, where
/// every workgroup's repeated prologue and its barriers cost more than the launches
/// they save (lavapipe, this repository's 2-core EPYC, alternating runs of `espalier
/// bench decode --backend wgpu --modes none --rounds 1 --tokens 24`: 1.21-1.32 tokens/s
/// folded against 1.48-1.62 with the launches of their own; stop 48).
fn prologues_for(split: RowSplit) -> bool {
    match std::env::var("ESPALIER_GPU_PROLOGUE").as_deref() {
        Ok("1") => true,
        Ok("0") => false,
        _ => split == RowSplit::Lanes,
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

pub(crate) fn le_bytes<T: Copy>(values: &[T], to: impl Fn(T) -> [u8; 4]) -> Vec<u8> {
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
            prologues: prologues_for(split),
        })
    }

    /// Bytes the weights take on the device.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// How the kernel deals this layer's rows to the device's units.
    #[cfg_attr(any(target_family = "wasm", feature = "fusion"), allow(dead_code))]
    pub(crate) fn split(&self) -> RowSplit {
        self.split
    }

    /// `x · Wᵀ` (`+ residual`, `[t, rows]` contiguous) on cube tensors: `x` `[t, cols]`
    /// f32 (`[1, 2 cols]` under [`Prologue::SwiGlu`]), transformed by `prologue` first
    /// (a decode step's: `t` = 1) -> `[t, rows]` f32.
    fn launch(
        &self,
        x: CubeTensor,
        prologue: Prologue<'_>,
        residual: Option<&CubeTensor>,
    ) -> CubeTensor {
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
        for part in &self.parts {
            self.launch_part(part, &x, prologue, residual, &out, t);
        }
        out
    }

    /// One part's launch: its rows of `out` (`[t, rows]`), plus `residual`'s.
    fn launch_part(
        &self,
        part: &Part,
        x: &CubeTensor,
        prologue: Prologue<'_>,
        residual: Option<&CubeTensor>,
        out: &CubeTensor,
        t: usize,
    ) {
        let tile = tile_for(t);
        let blocks = part.rows * self.cols / 32;
        let scales = blocks * self.kind.scales_per_block();
        // Arguments a launch does not read: the scales stand in (a read-only buffer; wgpu
        // refuses one bound both read-only and writable).
        let stand_in = || unsafe { BufferArg::from_raw_parts(part.scales.clone(), scales) };
        let (norm_w, eps) = match prologue {
            Prologue::Norm { weights, eps } => {
                (unsafe { BufferArg::from_raw_parts(weights.handle.clone(), self.cols) }, eps)
            }
            _ => (stand_in(), 0.0),
        };
        let xs_len = match prologue {
            Prologue::None => 1,
            _ => self.cols,
        };
        // SAFETY: every length is the buffer's own (a part's words, scales and mins were
        // uploaded with exactly these counts; x, residual, out and the norm's weights are
        // contiguous [t, cols] ([1, 2 cols] for SwiGLU) / [t, rows] / [cols]: checked by
        // the callers), and the kernel reads and writes only inside them (r < the part's
        // rows, row0 + r < rows, activation rows < t; a prologue only with t = 1 and
        // cols <= PROLOGUE_MAX_COLS, its shared row `cols` long).
        unsafe {
            block_matvec::launch_unchecked(
                &self.client,
                self.split.cube_count(part.rows, t, tile),
                self.split.cube_dim(),
                BufferArg::from_raw_parts(x.handle.clone(), t * prologue.input_width(self.cols)),
                BufferArg::from_raw_parts(part.words.clone(), blocks * self.kind.words()),
                BufferArg::from_raw_parts(part.scales.clone(), scales),
                BufferArg::from_raw_parts(part.mins.clone(), scales),
                match residual {
                    Some(r) => BufferArg::from_raw_parts(r.handle.clone(), t * self.rows),
                    None => stand_in(),
                },
                norm_w,
                BufferArg::from_raw_parts(out.handle.clone(), t * self.rows),
                part.rows,
                self.cols,
                t,
                part.row0,
                self.rows,
                eps,
                self.kind.bits(),
                self.kind == BlockKind::Q8_16,
                residual.is_some(),
                self.split.lanes(),
                self.split.rows_per_cube() as usize,
                tile,
                prologue.code(),
                xs_len,
            )
        };
    }

    /// Whether a product of `t` activation rows can take a [`Prologue`]: a decode step's
    /// (one row) of a width that fits a workgroup's shared memory.
    #[cfg(not(feature = "fusion"))]
    pub(crate) fn takes_prologue(&self, t: usize) -> bool {
        t == 1 && self.cols <= super::gpu_matvec::PROLOGUE_MAX_COLS
    }

    /// Whether the model's pass gives this product its prologue for `t` rows: where it
    /// takes one ([`GpuQuantized::takes_prologue`]) on a device whose policy says so
    /// ([`prologues_for`]).
    #[cfg(not(feature = "fusion"))]
    pub(crate) fn uses_prologue(&self, t: usize) -> bool {
        self.prologues && self.takes_prologue(t)
    }

    /// `prologue(x) · Wᵀ (+ residual)` in one launch a part: `x` `[1, cols]` (`[1, 2 cols]`
    /// for SwiGLU), the norm's weights `[1, cols]`, `residual` `[1, rows]`; refused (an
    /// error) when [`GpuQuantized::takes_prologue`] says no or a shape is off.
    #[cfg(not(feature = "fusion"))]
    pub(crate) fn forward_prologue(
        &self,
        x: Tensor<2>,
        prologue: Prologue<'_>,
        residual: Option<Tensor<2>>,
    ) -> Result<Tensor<2>, ModelError> {
        let [t, width] = x.dims();
        let norm_ok = match prologue {
            Prologue::Norm { weights, .. } => super::gpu_tensor::len(weights) == self.cols,
            _ => true,
        };
        let residual_ok = residual.as_ref().is_none_or(|r| r.dims() == [t, self.rows]);
        if !self.takes_prologue(t)
            || width != prologue.input_width(self.cols)
            || !norm_ok
            || !residual_ok
        {
            return Err(ModelError::Execution(format!(
                "GPU block layer {}x{}: {prologue:?} over input {:?}, residual {:?}",
                self.rows,
                self.cols,
                [t, width],
                residual.as_ref().map(|r| r.dims())
            )));
        }
        let what = "GPU block layer";
        let x = super::gpu_tensor::cube(x, what)?;
        let residual = residual.map(|r| super::gpu_tensor::cube(r, what)).transpose()?;
        Ok(super::gpu_tensor::tensor(self.launch(x, prologue, residual.as_ref())))
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
        self.launch(x, Prologue::None, None)
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
        Ok(super::gpu_tensor::tensor(self.launch(x, Prologue::None, Some(&residual))))
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
            let y = self.layer.launch(x, super::Prologue::None, None);
            handles.register_float_tensor::<CubeBackend>(&self.out.id, y);
            Ok(())
        }
    }
}
