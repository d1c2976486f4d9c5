//! burn tensors as this crate's cubecl kernels take them (native wgpu and CUDA without
//! burn's `fusion`): a tensor made contiguous on its cube device, a fresh contiguous output
//! beside it, a buffer argument over its elements, and the way back to a burn tensor.

use burn::backend::Cube;
use burn::tensor::{DType, Tensor};
use burn_cubecl::ops::numeric::empty_device_contiguous_dtype;
use burn_cubecl::tensor::CubeTensor;
use cubecl::prelude::*;

use super::ModelError;

/// `x` (f32) as a contiguous cube tensor; `what` names the kernel in the error.
pub(crate) fn cube<const D: usize>(x: Tensor<D>, what: &str) -> Result<CubeTensor, ModelError> {
    if x.dtype() != DType::F32 {
        return Err(ModelError::Execution(format!("{what}: input in {:?}, not f32", x.dtype())));
    }
    let x = x.try_into_primitive::<Cube>().map_err(|e| {
        ModelError::Execution(format!("{what}: input not on a cubecl device: {e:?}"))
    })?;
    Ok(burn_cubecl::kernel::into_contiguous(x))
}

/// A cube tensor back as a burn tensor.
pub(crate) fn tensor<const D: usize>(x: CubeTensor) -> Tensor<D> {
    Tensor::from_primitive::<Cube>(x)
}

/// A new contiguous f32 tensor of `shape` on `like`'s device (contiguous, not the
/// runtime's optimized layout: CUDA pads the rows of that, and the kernels index rows
/// by their width; see `gpu_quantized.rs`).
pub(crate) fn empty(like: &CubeTensor, shape: &[usize]) -> CubeTensor {
    empty_device_contiguous_dtype(
        like.client.clone(),
        like.device.clone(),
        shape.to_vec().into(),
        DType::F32,
    )
}

/// Elements of a cube tensor.
pub(crate) fn len(x: &CubeTensor) -> usize {
    x.meta.shape().iter().product()
}

/// `x`'s buffer as a kernel argument over its elements (`x` contiguous, as [`cube`] and
/// [`empty`] make it).
pub(crate) fn arg(x: &CubeTensor) -> BufferArg {
    // SAFETY: a contiguous f32 tensor's buffer holds exactly its `len` elements.
    unsafe { BufferArg::from_raw_parts(x.handle.clone(), len(x)) }
}

/// The position of a pass's first row, on the host (for the callers' bounds checks) and
/// on the device (one f32, exact below 2^24 positions: what the kernels read). The
/// kernels take the position from a buffer, not a launch scalar, so a recorded decode
/// step (`gpu_replay.rs`) replays at any position: its buffer is rewritten between
/// replays.
#[derive(Clone, Debug)]
pub(crate) struct Position {
    pub at: usize,
    pub buffer: Tensor<1>,
}

impl Position {
    /// `at` uploaded to `device`.
    pub(crate) fn upload(at: usize, device: &burn::tensor::Device) -> Self {
        let data = burn::tensor::TensorData::new(vec![at as f32], [1]);
        Self { at, buffer: Tensor::from_data(data, device) }
    }

    /// The device buffer as a kernel argument; `what` names the kernel in the error.
    pub(crate) fn cube(&self, what: &str) -> Result<CubeTensor, ModelError> {
        cube(self.buffer.clone(), what)
    }
}
