//! The transformer blocks on a cubecl GPU (native wgpu, CUDA; not under burn's `fusion`,
//! which fuses burn's element-wise ops itself) in this crate's kernels (issue 33 step 4):
//! per block RMSNorm, the QKV product, the split + bias + RoPE + the cache write,
//! attention over the cache, the output product with the residual added, RMSNorm, the
//! gate/up product, SwiGLU, and the down product with the residual added: 9 launches,
//! where burn's element-wise ops made ~53. The same
//! arithmetic as the burn path (`Llama::blocks_forward`), each kernel checked against its
//! host twin by `gpu_kernel_check`, the whole against the CPU by the agreement test.

use burn::tensor::Tensor;
use espalier_kernels::Heads;

use super::gpu_attention::attend;
use super::gpu_norm::rms_norm;
use super::gpu_replay::Held;
use super::gpu_rope::rope_split;
use super::gpu_swiglu::swiglu;
use super::gpu_tensor::Position;
use super::{KvCache, Llama, ModelError};

impl Llama {
    /// [`Llama::blocks_forward`] in this crate's kernels: `x` `[t, hidden]` at positions
    /// `position..position + t`; appends to the cache's layers (the caller advances it).
    /// Every tensor the launches write is kept by `held` (a recorded step keeps them).
    pub(super) fn blocks_forward_gpu(
        &self,
        mut x: Tensor<2>,
        position: &Position,
        cache: &mut KvCache,
        held: &mut Held,
    ) -> Result<Tensor<2>, ModelError> {
        let c = &self.config;
        let heads = Heads { heads: c.heads, kv_heads: c.kv_heads, head_dim: c.head_dim };
        for (i, b) in self.blocks.iter().enumerate() {
            let h = rms_norm(x.clone(), &b.attn_norm, c.rms_eps)?;
            held.hold(&h);
            let qkv = b.qkv.forward(h)?;
            held.hold(&qkv);
            let bias = b.qkv_bias.as_ref().map(|q| &q.tensor);
            let t = qkv.dims()[0];
            let (k, v) = cache.take_device_stores(i, [c.kv_heads, t, c.head_dim], &self.device)?;
            let [q, k, v] = rope_split(qkv, bias, &self.cos, &self.sin, position, heads, k, v)?;
            held.hold(&q);
            cache.put_device_stores(i, k.clone(), v.clone(), t);
            let attended = attend(q, &k, &v, position)?;
            held.hold(&attended);
            x = b.attn_out.forward_add(attended, x)?;
            held.hold(&x);
            let h = rms_norm(x.clone(), &b.ffn_norm, c.rms_eps)?;
            held.hold(&h);
            let gu = b.gate_up.forward(h)?;
            held.hold(&gu);
            let act = swiglu(gu, c.ffn)?;
            held.hold(&act);
            x = b.down.forward_add(act, x)?;
            held.hold(&x);
        }
        Ok(x)
    }
}
