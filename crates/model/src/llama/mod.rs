//! The Llama-family transformer (SmolLM2-135M) on burn: RMSNorm, RoPE, grouped-query
//! attention, SiLU-gated FFN, tied output embedding, a KV cache with rollback and
//! batched prompt prefill. The device (and so the backend) is chosen at run time by the
//! caller ([`BackendKind::device`]); nothing here depends on which one.

mod backend;
mod cache;
mod config;
#[cfg(all(feature = "cuda", not(target_family = "wasm")))]
mod cuda_probe;
mod device_logits;
mod error;
mod feed_forward;
#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
mod gpu_argmax;
/// Declares the modules of the kernels around the products (issue 33 step 4) and their
/// workgroup folds: their host twins are compiled everywhere (tested natively), the
/// kernels on wgpu / cuda without `fusion` (natively and in the browser's WebGPU build).
/// The twins are used outside the tests only by the native self-check
/// (`gpu_fused_check.rs`), so elsewhere (and in wasm) they are dead code there. One
/// condition for the five modules.
macro_rules! kernels_with_host_twins {
    ($($module:ident),*) => {$(
        #[cfg_attr(
            not(all(
                any(feature = "wgpu", feature = "cuda"),
                not(feature = "fusion"),
                not(target_family = "wasm")
            )),
            allow(dead_code)
        )]
        mod $module;
    )*};
}
kernels_with_host_twins!(gpu_attention, gpu_attention_split, gpu_fold, gpu_norm, gpu_rope);
#[cfg_attr(not(any(feature = "wgpu", feature = "cuda")), allow(dead_code))]
// GGUF blocks in the GPU layout's terms (gpu_blocks.rs), tested natively
mod block_values;
#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
mod gpu_attention_new_row;
#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
mod gpu_block;
#[cfg_attr(not(any(feature = "wgpu", feature = "cuda")), allow(dead_code))]
// the packing is tested natively; only the GPU kernel uses it
mod gpu_blocks;
#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(target_family = "wasm")))]
mod gpu_check_report;
#[cfg(all(
    any(feature = "wgpu", feature = "cuda"),
    not(feature = "fusion"),
    not(target_family = "wasm")
))]
mod gpu_fused_check;
#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(target_family = "wasm")))]
pub mod gpu_kernel_check;
#[cfg(any(feature = "wgpu", feature = "cuda"))]
mod gpu_matvec;
#[cfg(any(feature = "wgpu", feature = "cuda"))]
mod gpu_quantized;
#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
mod gpu_replay;
#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
mod gpu_swiglu;
#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
mod gpu_tensor;
#[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
mod gpu_top;
mod host_norm;
mod linear;
mod memory;
mod top_list;
mod weight_format;
mod weights;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use burn::tensor::activation::softmax;
use burn::tensor::{Device, Tensor, TensorData};

pub use backend::{BackendKind, WGPU_TASKS_MAX};
pub use cache::{KvCache, ReplayState};
pub use config::{Architecture, LlamaConfig, MAX_CONTEXT};
#[cfg(all(feature = "cuda", not(target_family = "wasm")))]
pub use cuda_probe::{probe as probe_cuda, CudaDeviceInfo};
pub use device_logits::{greedy, DeviceLogits};
pub use error::ModelError;
pub use espalier_kernels::{kernel_check, ActivationFormat};
use espalier_kernels::{Heads, HostMatrix, Isa, RopeTable};
use gpu_attention_split::AttentionSplit;
use linear::{host_rows, Linear};
pub use memory::{available_memory, MemoryPlan};
pub use top_list::{ListQuery, Mass, TopList};
pub use weight_format::WeightFormat;
use weights::BlockWeights;

use crate::gguf::Gguf;

/// Which load a model's weights come from: clones share it (they share the weights). A
/// recorded decode step (`gpu_replay.rs`) is replayed only for the model that recorded it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ModelId(u64);

impl ModelId {
    fn next() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Self(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// A loaded Llama model on one device.
#[derive(Clone, Debug)]
pub struct Llama {
    #[cfg_attr(
        not(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion"))),
        allow(dead_code)
    )]
    id: ModelId,
    config: LlamaConfig,
    device: Device,
    format: WeightFormat,
    /// `[vocab][hidden]` on the host (looked up row by row).
    embedding: HostMatrix,
    blocks: Vec<BlockWeights>,
    output_norm: Tensor<2>,
    /// `hidden -> vocab`: `output.weight`, or the tied token embedding.
    output: Linear,
    /// `[context, head_dim / 2]` RoPE tables on the device (burn path).
    cos: Tensor<2>,
    sin: Tensor<2>,
    /// The same tables on the host (host attention path).
    rope: Arc<RopeTable>,
    /// The CPU kernels' instruction set (host attention path).
    isa: Isa,
    /// Whether the blocks run in this crate's GPU kernels (`gpu_block.rs`): a cubecl
    /// device, a device weight format, not under burn's `fusion`.
    #[cfg_attr(
        not(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion"))),
        allow(dead_code)
    )]
    gpu_kernels: bool,
    /// Whether a decode step is recorded once and replayed (`gpu_replay.rs`): the block
    /// kernels with every product in this crate's GPU kernel, `ESPALIER_GPU_REPLAY` not 0.
    #[cfg_attr(
        not(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion"))),
        allow(dead_code)
    )]
    step_replay: bool,
    /// How a GPU's decode step splits attention over the cache's rows
    /// (`gpu_attention_split.rs`).
    #[cfg_attr(
        not(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion"))),
        allow(dead_code)
    )]
    attention_split: AttentionSplit,
}

impl Llama {
    /// Loads the weights of a Llama GGUF onto `device` in the measured best format for
    /// it ([`WeightFormat::default_for`]: the GGUF's own blocks with the CPU kernels on
    /// ndarray / flex, its quantized blocks with the GPU block kernel on wgpu / cuda).
    pub fn load(gguf: &Gguf, device: &Device) -> Result<Self, ModelError> {
        Self::load_with(gguf, device, WeightFormat::default_for(device))
    }

    /// [`Llama::load`] with the weight format chosen by the caller (benchmarks, tests).
    /// The host formats (`f32`, `f16`, `q8_0`) run only on the CPU backends.
    pub fn load_with(
        gguf: &Gguf,
        device: &Device,
        format: WeightFormat,
    ) -> Result<Self, ModelError> {
        if format.host().is_some() && !weight_format::is_host_device(device) {
            return Err(ModelError::Backend {
                backend: "non-CPU",
                reason: format!("weight format {format} runs only on the CPU backends (ndarray, flex); use burn-f32"),
            });
        }
        if format == WeightFormat::GpuBlocks && !weight_format::is_gpu_block_device(device) {
            return Err(ModelError::Backend {
                backend: "non-GPU",
                reason: format!(
                    "weight format {format} runs only on the wgpu and cuda backends (built with the `wgpu` or `cuda` feature); use burn-f32"
                ),
            });
        }
        let config = LlamaConfig::from_gguf(gguf)?;
        #[cfg(not(target_family = "wasm"))]
        MemoryPlan::new(gguf, &config, format, gguf.len() as u64).check(available_memory())?;
        let embedding = weights::embedding(gguf, &config)?;
        let blocks = (0..config.layers)
            .map(|i| BlockWeights::load(gguf, &config, i, format, device))
            .collect::<Result<Vec<_>, _>>()?;
        let output_norm = weights::vector(gguf, "output_norm.weight", config.hidden, device)?;
        let output = weights::output(gguf, &config, &embedding, format, device)?;
        let rope = Arc::new(RopeTable::new(
            config.context_len,
            config.head_dim,
            config.rope_base,
            config.rope_freq_scale,
        ));
        let (cos, sin) = rope_tensors(&rope, config.context_len, device);
        #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
        let gpu_kernels = format.host().is_none() && gpu_quantized::is_block_kernel_device(device);
        #[cfg(not(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion"))))]
        let gpu_kernels = false;
        #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
        let step_replay = gpu_kernels
            && gpu_replay::replay_enabled()
            && output.is_gpu()
            && blocks
                .iter()
                .all(|b| [&b.qkv, &b.attn_out, &b.gate_up, &b.down].iter().all(|l| l.is_gpu()));
        #[cfg(not(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion"))))]
        let step_replay = false;
        Ok(Self {
            id: ModelId::next(),
            config,
            device: device.clone(),
            format,
            embedding,
            blocks,
            output_norm,
            output,
            cos,
            sin,
            rope,
            isa: Isa::detect(),
            gpu_kernels,
            step_replay,
            attention_split: AttentionSplit::from_env(),
        })
    }

    /// The format the linear layers' weights are held in.
    pub fn weight_format(&self) -> WeightFormat {
        self.format
    }

    /// How the CPU kernels take the activations of a decode step: rounded to 8 bits
    /// for integer dot products (the default, as llama.cpp) or kept in f32 (the exact
    /// twin of the burn path, for tests). No effect on the burn weight format.
    pub fn set_activation_format(&mut self, activations: ActivationFormat) {
        for b in &mut self.blocks {
            for layer in [&mut b.qkv, &mut b.attn_out, &mut b.gate_up, &mut b.down] {
                layer.set_activations(activations);
            }
        }
        self.output.set_activations(activations);
    }

    /// Bytes the weights take: the linear layers (device or host memory, as the format
    /// says), the host embedding table when it is not shared with the output, and the
    /// norms.
    pub fn weight_bytes(&self) -> usize {
        let linear: usize = self
            .blocks
            .iter()
            .map(|b| {
                b.qkv.bytes()
                    + b.attn_out.bytes()
                    + b.gate_up.bytes()
                    + b.down.bytes()
                    + 2 * 4 * self.config.hidden
            })
            .sum();
        let shared = matches!(&self.output, Linear::Host(m) if m.shares_storage(&self.embedding));
        let embedding = if shared { 0 } else { self.embedding.bytes() };
        linear + self.output.bytes() + embedding + 4 * self.config.hidden
    }

    /// Bytes the weights take in the device's memory: the linear layers held as device
    /// tensors or GPU blocks, the norms and the QKV biases (on the CPU backends' host
    /// formats only those). On wgpu and cuda this is the GPU memory the weights take.
    pub fn device_weight_bytes(&self) -> usize {
        let norms = 4 * self.config.hidden * (2 * self.blocks.len() + 1);
        let linear: usize = self
            .blocks
            .iter()
            .map(|b| {
                let bias = b.qkv_bias.as_ref().map_or(0, |q| 4 * q.host.len());
                b.qkv.device_bytes()
                    + b.attn_out.device_bytes()
                    + b.gate_up.device_bytes()
                    + b.down.device_bytes()
                    + bias
            })
            .sum();
        linear + self.output.device_bytes() + norms
    }

    /// The CPU kernels' implementation (`avx2`, `simd128` or `portable`): what the host
    /// weight formats and host attention run on (benchmarks report it).
    pub fn kernel_isa(&self) -> &'static str {
        self.isa.name()
    }

    /// The model's hyper-parameters.
    pub fn config(&self) -> &LlamaConfig {
        &self.config
    }

    /// The device the model runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// An empty KV cache for this model: on the host for the CPU weight formats (where
    /// attention runs on the host), on the device otherwise.
    pub fn new_cache(&self) -> KvCache {
        match self.host_heads() {
            Some(heads) => KvCache::host(self.config.layers, heads),
            None => KvCache::device(self.config.layers, self.config.context_len),
        }
    }

    /// The head shape when attention runs on the host (a CPU weight format), else `None`.
    fn host_heads(&self) -> Option<Heads> {
        let c = &self.config;
        self.format.host().map(|_| Heads {
            heads: c.heads,
            kv_heads: c.kv_heads,
            head_dim: c.head_dim,
        })
    }

    /// Runs `tokens` (a prompt: batched prefill; or one token: a decode step) after the
    /// positions already in `cache`, appends them to the cache, and returns the logits
    /// of the last position (`vocab_size` floats). Native only: in wasm use
    /// [`Llama::forward_async`].
    #[cfg(not(target_family = "wasm"))]
    pub fn forward(&self, tokens: &[u32], cache: &mut KvCache) -> Result<Vec<f32>, ModelError> {
        let logits = self.forward_tensor(tokens, cache)?;
        read_logits(logits.try_into_data().map_err(|e| ModelError::Execution(format!("{e:?}"))))
    }

    /// [`Llama::forward`] with the logits left on the device ([`DeviceLogits`]): the
    /// decode loop asks them for the greedy id under its mask, and on a GPU only that id
    /// comes back. On a GPU the pass is recorded, not submitted: a caller with work to
    /// do meanwhile (the step's mask) submits it ([`DeviceLogits::submit`]) and works
    /// while the device runs it; otherwise it goes to the device with the first read,
    /// in the same submit as the draw (one submit a step fewer).
    pub fn forward_logits(
        &self,
        tokens: &[u32],
        cache: &mut KvCache,
    ) -> Result<DeviceLogits, ModelError> {
        Ok(DeviceLogits::new(self.forward_tensor(tokens, cache)?))
    }

    /// [`Llama::forward`] with an asynchronous read-back: the form WebGPU in the
    /// browser needs (it cannot block on the GPU).
    pub async fn forward_async(
        &self,
        tokens: &[u32],
        cache: &mut KvCache,
    ) -> Result<Vec<f32>, ModelError> {
        let logits = self.forward_tensor(tokens, cache)?;
        read_logits(
            logits.into_data_async().await.map_err(|e| ModelError::Execution(format!("{e:?}"))),
        )
    }

    /// Builds the computation and returns the last position's logits, `[1, vocab]`,
    /// still on the device. The cache is updated.
    pub fn forward_tensor(
        &self,
        tokens: &[u32],
        cache: &mut KvCache,
    ) -> Result<Tensor<2>, ModelError> {
        let c = &self.config;
        let t = tokens.len();
        if t == 0 {
            return Err(ModelError::EmptyInput);
        }
        if let Some((position, &id)) =
            tokens.iter().enumerate().find(|(_, &id)| id as usize >= c.vocab_size)
        {
            return Err(ModelError::BadToken { id, position, vocab_size: c.vocab_size });
        }
        if !cache.fits(c.layers, self.host_heads()) {
            return Err(ModelError::CacheMismatch);
        }
        let past = cache.len();
        if past + t > c.context_len {
            return Err(ModelError::ContextFull { len: past + t, max: c.context_len });
        }
        #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
        if self.gpu_kernels {
            if let Some(logits) = self.replayed_step(tokens, past, cache)? {
                cache.advance(1);
                return Ok(logits);
            }
        }

        let mut rows = vec![0f32; t * c.hidden];
        for (&id, row) in tokens.iter().zip(rows.chunks_exact_mut(c.hidden)) {
            self.embedding.row_f32(id as usize, row);
        }
        let x: Tensor<2> = Tensor::from_data(TensorData::new(rows, [t, c.hidden]), &self.device);

        let x = match self.blocks_forward(x, past, cache) {
            Ok(x) => x,
            Err(e) => {
                // Layers that already appended this step's keys are cut back, so a
                // failed step leaves the cache as it was.
                cache.drop_uncommitted();
                return Err(e);
            }
        };
        cache.advance(t);

        let last = x.narrow(0, t - 1, 1);
        #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
        if self.gpu_kernels {
            let held = &mut gpu_replay::Held::nothing();
            return self.normed_product(&self.output, last, &self.output_norm, held);
        }
        self.output.forward(rms_norm(last, &self.output_norm, c.rms_eps))
    }

    /// The transformer blocks over `x` (`[t, hidden]`, positions `past..past + t`);
    /// appends to the cache's layers (the caller advances its length).
    fn blocks_forward(
        &self,
        mut x: Tensor<2>,
        past: usize,
        cache: &mut KvCache,
    ) -> Result<Tensor<2>, ModelError> {
        let c = &self.config;
        let t = x.dims()[0];
        if let Some(heads) = self.host_heads() {
            let x = self.blocks_forward_host(host_rows(x)?, t, past, heads, cache)?;
            return Ok(Tensor::from_data(TensorData::new(x, [t, c.hidden]), &self.device));
        }
        #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
        if self.gpu_kernels {
            let position = gpu_tensor::Position::upload(past, &self.device);
            let held = &mut gpu_replay::Held::nothing();
            return self.blocks_forward_gpu(x, &position, cache, held);
        }
        // This step's RoPE rows and causal mask as tensors.
        let cos = self.cos.clone().narrow(0, past, t).unsqueeze_dim::<3>(0);
        let sin = self.sin.clone().narrow(0, past, t).unsqueeze_dim::<3>(0);
        let mask = (t > 1).then(|| causal_mask(c.group(), t, past, &self.device));
        for (i, b) in self.blocks.iter().enumerate() {
            let h = rms_norm(x.clone(), &b.attn_norm, c.rms_eps);
            x = x + b.attn_out.forward(self.attention(
                i,
                h,
                b,
                &cos,
                &sin,
                mask.as_ref(),
                cache,
            )?)?;
            let h = rms_norm(x.clone(), &b.ffn_norm, c.rms_eps);
            x = x + feed_forward::feed_forward(&b.gate_up, &b.down, h, c.ffn, &self.device)?;
        }
        Ok(x)
    }

    /// [`Llama::blocks_forward`] on the host (CPU weight formats): the residual stream
    /// `x` (`[t][hidden]`) stays in host memory from one kernel to the next, normalised
    /// by [`host_norm`] (burn's `rms_norm` value for value) and attended over the host
    /// cache with this crate's RoPE table and causality.
    fn blocks_forward_host(
        &self,
        mut x: Vec<f32>,
        t: usize,
        past: usize,
        heads: Heads,
        cache: &mut KvCache,
    ) -> Result<Vec<f32>, ModelError> {
        let c = &self.config;
        for (i, b) in self.blocks.iter().enumerate() {
            let h = host_norm::rms_norm_rows(&x, &host_rows(b.attn_norm.clone())?, c.rms_eps);
            host_norm::add_rows(&mut x, &self.attention_host(i, &h, t, b, past, heads, cache)?);
            let h = host_norm::rms_norm_rows(&x, &host_rows(b.ffn_norm.clone())?, c.rms_eps);
            host_norm::add_rows(
                &mut x,
                &feed_forward::feed_forward_rows(&b.gate_up, &b.down, &h, t, c.ffn, &self.device)?,
            );
        }
        Ok(x)
    }

    /// Grouped-query attention of block `i` on burn tensors (the burn path) for the new
    /// rows `h` (`[t, hidden]`); returns `[t, heads * head_dim]`.
    #[allow(clippy::too_many_arguments)]
    fn attention(
        &self,
        i: usize,
        h: Tensor<2>,
        b: &BlockWeights,
        cos: &Tensor<3>,
        sin: &Tensor<3>,
        mask: Option<&Tensor<3>>,
        cache: &mut KvCache,
    ) -> Result<Tensor<2>, ModelError> {
        let c = &self.config;
        let t = h.dims()[0];
        let (d, kvh, g) = (c.head_dim, c.kv_heads, c.group());
        let mut qkv = b.qkv.forward(h)?;
        if let Some(bias) = &b.qkv_bias {
            qkv = qkv + bias.tensor.clone();
        }
        let q = qkv.clone().narrow(1, 0, c.heads * d).reshape([t, c.heads, d]).swap_dims(0, 1);
        let k = qkv.clone().narrow(1, c.heads * d, kvh * d).reshape([t, kvh, d]).swap_dims(0, 1);
        let v = qkv.narrow(1, (c.heads + kvh) * d, kvh * d).reshape([t, kvh, d]).swap_dims(0, 1);
        let q = rope(q, cos, sin, d);
        let k = rope(k, cos, sin, d);
        let (k, v) = cache.append_device(i, k, v)?;
        // Query head h uses key/value head h / g: view the queries as [kv_heads, g * t, d]
        // so one batched matmul per kv head covers its whole group (no K/V repeat).
        let q = q.reshape([kvh, g * t, d]);
        let mut scores = q.matmul(k.swap_dims(1, 2)); // [kvh, g*t, len]
        if let Some(mask) = mask {
            scores = scores + mask.clone();
        }
        let p = softmax(scores, 2);
        Ok(p.matmul(v) // [kvh, g*t, d]
            .reshape([c.heads, t, d])
            .swap_dims(0, 1)
            .reshape([t, c.heads * d]))
    }

    /// Block `i`'s attention and output projection on the host (CPU weight formats)
    /// for the new rows `h` (`[t][hidden]`, positions `past..past + t`): QKV projection,
    /// RoPE, append to the host cache, attention over it, output projection. Returns
    /// `[t][hidden]`.
    #[allow(clippy::too_many_arguments)]
    fn attention_host(
        &self,
        i: usize,
        h: &[f32],
        t: usize,
        b: &BlockWeights,
        past: usize,
        heads: Heads,
        cache: &mut KvCache,
    ) -> Result<Vec<f32>, ModelError> {
        let mut qkv = b.qkv.forward_host(h, t, &self.device)?;
        if let Some(bias) = &b.qkv_bias {
            for row in qkv.chunks_exact_mut(bias.host.len()) {
                row.iter_mut().zip(&bias.host).for_each(|(y, b)| *y += b);
            }
        }
        self.rope.rotate_qk(&mut qkv, t, past, heads);
        let kv = cache.host_layer(i)?;
        kv.append_from_qkv(&qkv, t, heads);
        let attn = espalier_kernels::attend(self.isa, &qkv, t, past, kv, heads);
        b.attn_out.forward_host(&attn, t, &self.device)
    }
}

/// `x * w / sqrt(mean(x^2) + eps)` over the last dimension.
fn rms_norm(x: Tensor<2>, w: &Tensor<2>, eps: f32) -> Tensor<2> {
    let ms = (x.clone() * x.clone()).mean_dim(1);
    x * (ms + eps).sqrt().recip() * w.clone()
}

/// Rotary embedding on `[heads, t, d]` in the half-split layout (see `weights`).
fn rope(x: Tensor<3>, cos: &Tensor<3>, sin: &Tensor<3>, d: usize) -> Tensor<3> {
    let half = d / 2;
    let x1 = x.clone().narrow(2, 0, half);
    let x2 = x.narrow(2, half, half);
    Tensor::cat(
        vec![
            x1.clone() * cos.clone() - x2.clone() * sin.clone(),
            x2 * cos.clone() + x1 * sin.clone(),
        ],
        2,
    )
}

/// The RoPE table as `[context, d/2]` device tensors (burn path).
fn rope_tensors(rope: &RopeTable, context: usize, device: &Device) -> (Tensor<2>, Tensor<2>) {
    (
        Tensor::from_data(TensorData::new(rope.cos.clone(), [context, rope.half]), device),
        Tensor::from_data(TensorData::new(rope.sin.clone(), [context, rope.half]), device),
    )
}

/// Additive causal mask `[1, g * t, past + t]`: row `j * t + r` (query `r` of group
/// member `j`) sees keys `0..=past + r`.
fn causal_mask(g: usize, t: usize, past: usize, device: &Device) -> Tensor<3> {
    let len = past + t;
    let mut data = vec![0f32; g * t * len];
    for j in 0..g {
        for r in 0..t {
            let row = &mut data[(j * t + r) * len..(j * t + r + 1) * len];
            row[past + r + 1..].iter_mut().for_each(|x| *x = f32::NEG_INFINITY);
        }
    }
    Tensor::from_data(TensorData::new(data, [1, g * t, len]), device)
}

fn read_logits(data: Result<TensorData, ModelError>) -> Result<Vec<f32>, ModelError> {
    data?.try_into_vec::<f32>().map_err(|e| ModelError::Execution(format!("{e:?}")))
}
