//! The transformer blocks on a cubecl GPU (native wgpu, CUDA; not under burn's `fusion`,
//! which fuses burn's element-wise ops itself) in this crate's kernels (issue 33 step 4):
//! per block RMSNorm, the QKV product, the split + bias + RoPE + the cache write,
//! attention over the cache, the output product with the residual added, RMSNorm, the
//! gate/up product, SwiGLU, and the down product with the residual added: 9 launches,
//! where burn's element-wise ops made ~53. On a GPU a decode step's products take the
//! norms and SwiGLU as their prologue (`gpu_matvec.rs`), where the width fits a
//! workgroup's shared memory, and attention makes its own split, bias and RoPE and
//! writes the cache (`gpu_attention_new_row::attend_new_row`): 5 launches a block (SmolLM2;
//! Qwen2.5-1.5B's 8,960-wide SwiGLU keeps its own: 6; one more where attention splits
//! over a long cache's rows: `gpu_attention_split.rs`); not on a CPU adapter
//! (`gpu_quantized::prologues_for`). The same
//! arithmetic as the burn path (`Llama::blocks_forward`), each kernel checked against its
//! host twin by `gpu_kernel_check`, the whole against the CPU by the agreement test.

use burn::tensor::Tensor;
use espalier_kernels::Heads;

use super::gpu_attention::attend;
use super::gpu_attention_new_row::attend_new_row;
use super::gpu_matvec::Prologue;
use super::gpu_norm::rms_norm;
use super::gpu_replay::Held;
use super::gpu_rope::rope_split;
use super::gpu_swiglu::swiglu;
use super::gpu_tensor::{cube, Position};
use super::linear::Linear;
use super::weights::BlockWeights;
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
        for (i, b) in self.blocks.iter().enumerate() {
            let qkv = self.normed_product(&b.qkv, x.clone(), &b.attn_norm, held)?;
            held.hold(&qkv);
            let attended = self.block_attention(i, b, qkv, position, cache, held)?;
            x = b.attn_out.forward_add(attended, x)?;
            held.hold(&x);
            let gu = self.normed_product(&b.gate_up, x.clone(), &b.ffn_norm, held)?;
            held.hold(&gu);
            x = self.down_product(&b.down, gu, x, held)?;
            held.hold(&x);
        }
        Ok(x)
    }

    /// Block `i`'s attention of the QKV product's rows `qkv` at `position`, the new keys
    /// and values written into the cache's stores: on a GPU's decode step one launch
    /// (`attend_new_row`: the split, bias and RoPE made by each head's workgroup; two
    /// where the stores are long enough to split over their rows:
    /// `gpu_attention_split.rs`), else the split + bias + RoPE + cache write, then
    /// attention.
    fn block_attention(
        &self,
        i: usize,
        b: &BlockWeights,
        qkv: Tensor<2>,
        position: &Position,
        cache: &mut KvCache,
        held: &mut Held,
    ) -> Result<Tensor<2>, ModelError> {
        let c = &self.config;
        let heads = Heads { heads: c.heads, kv_heads: c.kv_heads, head_dim: c.head_dim };
        let bias = b.qkv_bias.as_ref().map(|q| &q.tensor);
        let t = qkv.dims()[0];
        let (k, v) = cache.take_device_stores(i, [c.kv_heads, t, c.head_dim], &self.device)?;
        let folded = matches!(&b.qkv, Linear::Gpu(g) if g.uses_prologue(t));
        let attended = if folded {
            let parts = self.attention_split.parts(k.dims()[1]);
            let (cos, sin) = (&self.cos, &self.sin);
            let (attended, k, v) =
                attend_new_row(qkv, bias, cos, sin, position, heads, (k, v), parts, held)?;
            cache.put_device_stores(i, k, v, t);
            attended
        } else {
            let [q, k, v] = rope_split(qkv, bias, &self.cos, &self.sin, position, heads, k, v)?;
            held.hold(&q);
            cache.put_device_stores(i, k.clone(), v.clone(), t);
            attend(q, &k, &v, position)?
        };
        held.hold(&attended);
        Ok(attended)
    }

    /// `rms_norm(x, w) · Wᵀ`: one launch where the layer is GPU blocks that use the norm
    /// as their prologue (a decode step on a GPU), the norm's kernel then the product
    /// otherwise.
    pub(super) fn normed_product(
        &self,
        linear: &Linear,
        x: Tensor<2>,
        w: &Tensor<2>,
        held: &mut Held,
    ) -> Result<Tensor<2>, ModelError> {
        let eps = self.config.rms_eps;
        if let Linear::Gpu(g) = linear {
            if g.uses_prologue(x.dims()[0]) {
                let weights = cube(w.clone(), "GPU RMSNorm prologue")?;
                return g.forward_prologue(x, Prologue::Norm { weights: &weights, eps }, None);
            }
        }
        let h = rms_norm(x, w, eps)?;
        held.hold(&h);
        linear.forward(h)
    }

    /// `residual + swiglu(gu) · Wᵀ` (`gu` the gate/up product's rows): one launch where
    /// the down layer uses SwiGLU as its prologue, SwiGLU's kernel then the product
    /// otherwise.
    fn down_product(
        &self,
        down: &Linear,
        gu: Tensor<2>,
        residual: Tensor<2>,
        held: &mut Held,
    ) -> Result<Tensor<2>, ModelError> {
        if let Linear::Gpu(g) = down {
            if g.uses_prologue(gu.dims()[0]) {
                return g.forward_prologue(gu, Prologue::SwiGlu, Some(residual));
            }
        }
        let act = swiglu(gu, self.config.ffn)?;
        held.hold(&act);
        down.forward_add(act, residual)
    }
}
