//! One linear layer `y = x · Wᵀ` in either of its two forms: a burn tensor multiplied
//! by burn's matmul (any backend), or a [`HostMatrix`] multiplied by this crate's CPU
//! kernels (the CPU backends). The forward pass calls [`Linear::forward`] and does not
//! care which.

use burn::tensor::{Device, Tensor, TensorData};

use super::host_matrix::HostMatrix;
use super::{weights, ModelError, WeightFormat};

/// A linear layer's weights.
#[derive(Clone, Debug)]
pub(crate) enum Linear {
    /// `[in, out]` f32 on the device (transposed once at load so `x.matmul(w)` needs no
    /// per-step transposition).
    Burn(Tensor<2>),
    /// `[out][in]` on the host, multiplied by the CPU kernels.
    Host(HostMatrix),
}

impl Linear {
    /// The layer for row-major `[out][inp]` f32 weights, held as `format` says.
    pub(crate) fn from_rows(rows: &[f32], out: usize, inp: usize, format: WeightFormat, device: &Device) -> Self {
        match format.host() {
            None => Linear::Burn(weights::weight_in_out(rows, out, inp, device)),
            Some(host) => Linear::Host(HostMatrix::from_rows(rows, out, inp, host)),
        }
    }

    /// `x · Wᵀ` for `x` of shape `[t, in]`; returns `[t, out]` on `x`'s device.
    pub(crate) fn forward(&self, x: Tensor<2>) -> Result<Tensor<2>, ModelError> {
        match self {
            Linear::Burn(w) => Ok(x.matmul(w.clone())),
            Linear::Host(m) => {
                let device = x.device();
                let [t, _] = x.dims();
                // On the CPU backends this is a copy out of host memory (no transfer).
                let data = x.try_into_data().map_err(|e| ModelError::Execution(format!("{e:?}")))?;
                let x = data.as_slice::<f32>().map_err(|e| ModelError::Execution(format!("{e:?}")))?;
                let y = m.matmul(x, t);
                Ok(Tensor::from_data(TensorData::new(y, [t, m.rows()]), &device))
            }
        }
    }

    /// Bytes the weights take (device or host memory).
    pub(crate) fn bytes(&self) -> usize {
        match self {
            Linear::Burn(w) => w.shape().num_elements() * 4,
            Linear::Host(m) => m.bytes(),
        }
    }
}
