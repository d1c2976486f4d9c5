//! One linear layer `y = x · Wᵀ` in one of its forms: a burn tensor multiplied by
//! burn's matmul (any backend), a [`HostMatrix`] multiplied by espalier-kernels' CPU
//! kernels (the CPU backends), or GGUF blocks resident on a cubecl GPU multiplied by this
//! crate's GPU kernel (features `wgpu`, `cuda`). The forward pass calls [`Linear::forward`] and
//! does not care which.

use burn::tensor::{Device, Tensor, TensorData};

use crate::gguf::GgmlType;

use super::{ModelError, WeightFormat};
use espalier_kernels::HostMatrix;

/// A linear layer's weights.
// A burn tensor's handle is ~576 bytes (the GPU variant ~176): a model holds a few hundred
// layers, nothing next to their weights, so no box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub(crate) enum Linear {
    /// `[in, out]` f32 on the device (transposed once at load so `x.matmul(w)` needs no
    /// per-step transposition).
    Burn(Tensor<2>),
    /// `[out][in]` on the host, multiplied by the CPU kernels.
    Host(HostMatrix),
    /// GGUF blocks on a cubecl GPU (`gpu_blocks.rs`' layouts), multiplied by the GPU block
    /// kernel.
    #[cfg(any(feature = "wgpu", feature = "cuda"))]
    Gpu(super::gpu_quantized::GpuQuantized),
}

impl Linear {
    /// The layer for row-major `[out][inp]` f32 weights, held as `format` says.
    pub(crate) fn from_rows(
        rows: &[f32],
        out: usize,
        inp: usize,
        format: WeightFormat,
        device: &Device,
    ) -> Self {
        match format.host() {
            None => Linear::Burn(weight_in_out(rows, out, inp, device)),
            Some(host) => Linear::Host(HostMatrix::from_rows(rows, out, inp, host)),
        }
    }

    /// The layer for GGUF rows `(type, one row's block bytes, factor)` of `inp` values
    /// on a GPU ([`WeightFormat::GpuBlocks`]): the blocks kept (every weight the file's)
    /// when all rows are of quantized types and `device` is a cubecl device, else f32 burn
    /// tensors of the dequantized rows (F16 / F32 matrices).
    pub(crate) fn from_gguf_rows_on_gpu(
        rows: &[(GgmlType, &[u8], f32)],
        inp: usize,
        device: &Device,
    ) -> Self {
        #[cfg(any(feature = "wgpu", feature = "cuda"))]
        if let Some(blocks) = super::gpu_blocks::GpuBlocks::from_rows(rows, inp) {
            if let Some(layer) = super::gpu_quantized::GpuQuantized::upload(&blocks, device) {
                return Linear::Gpu(layer);
            }
        }
        let mut values = vec![0f32; rows.len() * inp];
        for (out, &(ty, bytes, factor)) in values.chunks_exact_mut(inp).zip(rows) {
            ty.dequantize(bytes, out);
            out.iter_mut().for_each(|v| *v *= factor);
        }
        Linear::Burn(weight_in_out(&values, rows.len(), inp, device))
    }

    /// `x · Wᵀ` for `x` of shape `[t, in]`; returns `[t, out]` on `x`'s device.
    pub(crate) fn forward(&self, x: Tensor<2>) -> Result<Tensor<2>, ModelError> {
        match self {
            Linear::Burn(w) => Ok(x.matmul(w.clone())),
            #[cfg(any(feature = "wgpu", feature = "cuda"))]
            Linear::Gpu(g) => g.forward(x),
            Linear::Host(m) => {
                let device = x.device();
                let [t, _] = x.dims();
                // On the CPU backends this is a copy out of host memory (no transfer).
                let y = m.matmul(&host_rows(x)?, t);
                Ok(Tensor::from_data(TensorData::new(y, [t, m.rows()]), &device))
            }
        }
    }

    /// `residual + x · Wᵀ` (`residual` `[t, out]`): one launch for GPU blocks without
    /// burn's `fusion` (the sum in the product's kernel), the product then a sum otherwise.
    #[cfg_attr(
        not(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion"))),
        allow(dead_code)
    )]
    pub(crate) fn forward_add(
        &self,
        x: Tensor<2>,
        residual: Tensor<2>,
    ) -> Result<Tensor<2>, ModelError> {
        #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
        if let Linear::Gpu(g) = self {
            return g.forward_add(x, residual);
        }
        Ok(residual + self.forward(x)?)
    }

    /// `x · Wᵀ` for `t` host rows `x` (`[t][in]`); returns `[t][out]` on the host. The
    /// host attention path calls it to stay off burn between its matmuls; a burn layer
    /// goes through a tensor on `device`.
    pub(crate) fn forward_host(
        &self,
        x: &[f32],
        t: usize,
        device: &Device,
    ) -> Result<Vec<f32>, ModelError> {
        match self {
            Linear::Host(m) => Ok(m.matmul(x, t)),
            _ => {
                let inp = x.len() / t.max(1);
                let y =
                    self.forward(Tensor::from_data(TensorData::new(x.to_vec(), [t, inp]), device))?;
                host_rows(y)
            }
        }
    }

    /// How a host layer takes its activations (burn layers are always f32).
    pub(crate) fn set_activations(&mut self, activations: super::ActivationFormat) {
        if let Linear::Host(m) = self {
            m.set_activations(activations);
        }
    }

    /// Whether the product runs in this crate's GPU kernel (`gpu_quantized.rs`).
    #[cfg(all(any(feature = "wgpu", feature = "cuda"), not(feature = "fusion")))]
    pub(crate) fn is_gpu(&self) -> bool {
        matches!(self, Linear::Gpu(_))
    }

    /// Bytes the weights take (device or host memory).
    pub(crate) fn bytes(&self) -> usize {
        match self {
            Linear::Burn(w) => w.shape().num_elements() * 4,
            Linear::Host(m) => m.bytes(),
            #[cfg(any(feature = "wgpu", feature = "cuda"))]
            Linear::Gpu(g) => g.bytes(),
        }
    }

    /// Bytes the weights take in the device's memory (0 for a host layer).
    pub(crate) fn device_bytes(&self) -> usize {
        match self {
            Linear::Host(_) => 0,
            _ => self.bytes(),
        }
    }
}

/// A tensor's elements as host `f32`s (on the CPU backends a copy out of host memory).
pub(crate) fn host_rows<const D: usize>(x: Tensor<D>) -> Result<Vec<f32>, ModelError> {
    x.try_into_data()
        .map_err(|e| ModelError::Execution(format!("{e:?}")))?
        .try_into_vec::<f32>()
        .map_err(|e| ModelError::Execution(format!("{e:?}")))
}

/// Transposes row-major `[rows][cols]` into `[cols][rows]`.
pub(crate) fn transpose(data: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0f32; data.len()];
    // Blocked so both sides stay in cache (a naive loop took ~3x longer on the 49152 x
    // 576 embedding).
    const B: usize = 32;
    for r0 in (0..rows).step_by(B) {
        for c0 in (0..cols).step_by(B) {
            for r in r0..(r0 + B).min(rows) {
                for c in c0..(c0 + B).min(cols) {
                    out[c * rows + r] = data[r * cols + c];
                }
            }
        }
    }
    out
}

/// A `[in, out]` f32 weight on `device` from `[out][in]` rows.
pub(crate) fn weight_in_out(rows: &[f32], out: usize, inp: usize, device: &Device) -> Tensor<2> {
    Tensor::from_data(TensorData::new(transpose(rows, out, inp), [inp, out]), device)
}
