//! The kernels around the products (issue 33 step 4) against their host twins on a
//! cubecl device, for `gpu_kernel_check.rs`'s `run`: RMSNorm (`gpu_norm.rs`), the
//! QKV split + bias + RoPE (`gpu_rope.rs`), attention over the cache (`gpu_attention.rs`;
//! a decode step's from the QKV row, `gpu_attention_new_row.rs`, and split over the rows,
//! `gpu_attention_split.rs`),
//! SwiGLU (`gpu_swiglu.rs`), the block mat-vec with the residual added
//! (`gpu_quantized.rs`) and with RMSNorm or SwiGLU as its prologue (`gpu_matvec.rs`), on
//! deterministic inputs of SmolLM2's shapes, prefill rows included, under both row
//! splits. Native without `fusion` only, as the kernels.

use burn::tensor::{Device, Tensor, TensorData};
use espalier_kernels::{Heads, RopeTable};

use super::block_values::{gguf_rows, noise};
use super::gpu_attention::{attend, attend_twin, AttendShape};
use super::gpu_attention_new_row::attend_new_row;
use super::gpu_attention_split::attend_split_twin;
use super::gpu_blocks::GpuBlocks;
use super::gpu_check_report::GpuKernelCheck;
use super::gpu_matvec::Prologue;
use super::gpu_norm::{rms_norm, rms_norm_twin, rms_norm_twin_units};
use super::gpu_quantized::{GpuQuantized, RowSplit};
use super::gpu_replay::Held;
use super::gpu_rope::{rope_split, rope_split_twin, Stores};
use super::gpu_swiglu::swiglu;
use super::gpu_tensor::Position;
use super::linear::host_rows;
use super::ModelError;
use crate::gguf::GgmlType;

/// Tolerance relative to `1 + |host|`: the twins repeat the kernels' order of sums, so
/// fused multiply-adds and the GPU's `exp` / `ln` / `sqrt` are what differs.
const TOLERANCE: f64 = 1e-4;

/// SmolLM2's heads.
const HEADS: Heads = Heads { heads: 9, kv_heads: 3, head_dim: 64 };

/// Runs every check on `device`.
pub(crate) fn run(check: &mut GpuKernelCheck, device: &Device) -> Result<(), ModelError> {
    for t in [1usize, 3] {
        check_norm(check, device, t)?;
        check_rope(check, device, t)?;
        check_swiglu(check, device, t)?;
        check_matvec_add(check, device, t)?;
    }
    for (past, t) in [(0usize, 1usize), (200, 1), (60, 4)] {
        check_attention(check, device, past, t)?;
    }
    // The new row first, last of a full chunk, alone in a chunk, inside a second one;
    // unsplit, and split over the stores' 256 rows in parts of 128 rows (the new row in
    // the first or second, the other part past it or full), of 64 (parts empty) and of
    // 37 rows (parts shorter than a chunk, not a divisor of the capacity).
    for (past, biased) in [(0usize, true), (127, false), (128, true), (200, true)] {
        for parts in [1usize, 2, 4, 7] {
            check_attention_new_row(check, device, past, biased, parts)?;
        }
    }
    for split in RowSplit::ALL {
        // SmolLM2's Q/K/V (960 rows) and gate/up behind the norm, its down behind SwiGLU,
        // a partial workgroup, and a matrix in parts of 200 rows.
        for ty in [GgmlType::Q4_1, GgmlType::Q8_0, GgmlType::Q5_1] {
            check_prologue(check, device, split, ty, (960, 576, None), Fused::Norm)?;
            check_prologue(check, device, split, ty, (576, 1536, None), Fused::SwiGlu)?;
        }
        check_prologue(check, device, split, GgmlType::Q4_1, (37, 96, None), Fused::Norm)?;
        check_prologue(check, device, split, GgmlType::Q4_1, (37, 96, None), Fused::SwiGlu)?;
        let parts = Some(200 * 576 / 32 * 4);
        check_prologue(check, device, split, GgmlType::Q4_1, (576, 576, parts), Fused::Norm)?;
    }
    Ok(())
}

/// Deterministic values in about `[-scale, scale]`.
fn values(n: usize, seed: u32, scale: f32) -> Vec<f32> {
    noise(n, seed).iter().map(|&b| (f32::from(b) - 128.0) / 128.0 * scale).collect()
}

fn tensor<const D: usize>(x: &[f32], shape: [usize; D], device: &Device) -> Tensor<D> {
    Tensor::from_data(TensorData::new(x.to_vec(), shape), device)
}

/// Adds the case's line (and failure, outside [`TOLERANCE`]) to `check`.
fn record(check: &mut GpuKernelCheck, name: &str, got: &[f32], want: &[f32]) {
    check.record(name, got, want, TOLERANCE);
}

fn check_norm(check: &mut GpuKernelCheck, device: &Device, t: usize) -> Result<(), ModelError> {
    let cols = 576;
    let x = values(t * cols, 41 + t as u32, 4.0);
    let w = values(cols, 42, 2.0);
    let got = rms_norm(tensor(&x, [t, cols], device), &tensor(&w, [1, cols], device), 1e-5)?;
    record(check, &format!("RMSNorm {t}x{cols}"), &host_rows(got)?, &rms_norm_twin(&x, &w, 1e-5));
    Ok(())
}

fn check_rope(check: &mut GpuKernelCheck, device: &Device, t: usize) -> Result<(), ModelError> {
    let (context, past) = (64usize, 9usize);
    let width = HEADS.qkv_width();
    let table = RopeTable::new(context, HEADS.head_dim, 10_000.0, 1.0);
    let half = table.half;
    let (cos, sin) =
        (tensor(&table.cos, [context, half], device), tensor(&table.sin, [context, half], device));
    let qkv = values(t * width, 43 + t as u32, 3.0);
    let bias = values(width, 44, 0.5);
    // Stores with rows before `past` already written, which must stay.
    let (capacity, store) = (32usize, [HEADS.kv_heads, 32, HEADS.head_dim]);
    let old = values(HEADS.kv_heads * capacity * HEADS.head_dim, 52, 1.0);
    for with_bias in [false, true] {
        let b = with_bias.then(|| tensor(&bias, [1, width], device));
        let (k, v) = (tensor(&old, store, device), tensor(&old, store, device));
        let x = tensor(&qkv, [t, width], device);
        let position = Position::upload(past, device);
        let got = rope_split(x, b.as_ref(), &cos, &sin, &position, HEADS, k, v)?;
        let b = with_bias.then_some(bias.as_slice());
        let (mut k, mut v) = (old.clone(), old.clone());
        let stores = Stores { k: &mut k, v: &mut v, capacity };
        let q = rope_split_twin(&qkv, b, &table.cos, &table.sin, t, past, HEADS, stores);
        let want = [q, k, v];
        for ((part, got), want) in ["q", "k store", "v store"].iter().zip(got).zip(&want) {
            let name = format!("QKV split + RoPE {t} row(s) at {past}, bias {with_bias}: {part}");
            record(check, &name, &host_rows(got)?, want);
        }
    }
    Ok(())
}

fn check_attention(
    check: &mut GpuKernelCheck,
    device: &Device,
    past: usize,
    t: usize,
) -> Result<(), ModelError> {
    let Heads { heads, kv_heads, head_dim: d } = HEADS;
    let capacity = (past + t).next_power_of_two().max(64);
    let q = values(heads * t * d, 45 + past as u32, 0.5);
    let k = values(kv_heads * capacity * d, 46 + t as u32, 2.0);
    let v = values(kv_heads * capacity * d, 47, 1.0);
    let got = attend(
        tensor(&q, [heads, t, d], device),
        &tensor(&k, [kv_heads, capacity, d], device),
        &tensor(&v, [kv_heads, capacity, d], device),
        &Position::upload(past, device),
    )?;
    let s = AttendShape { heads, kv_heads, head_dim: d, capacity, t, past };
    let name = format!("attention {t} row(s) over {} positions", past + t);
    record(check, &name, &host_rows(got)?, &attend_twin(&q, &k, &v, s));
    Ok(())
}

/// A decode step's attention straight from the QKV row (`attend_new_row`) against the
/// twins it folds (`rope_split_twin`, then `attend_twin`): the output and both stores,
/// whose rows before `past` must stay.
fn check_attention_new_row(
    check: &mut GpuKernelCheck,
    device: &Device,
    past: usize,
    biased: bool,
    parts: usize,
) -> Result<(), ModelError> {
    let Heads { heads, kv_heads, head_dim: d } = HEADS;
    let (context, capacity) = (512usize, 256usize);
    let width = HEADS.qkv_width();
    let table = RopeTable::new(context, d, 10_000.0, 1.0);
    let (cos, sin) = (
        tensor(&table.cos, [context, table.half], device),
        tensor(&table.sin, [context, table.half], device),
    );
    let qkv = values(width, 57 + past as u32, 2.0);
    let bias = values(width, 58, 0.5);
    let old_k = values(kv_heads * capacity * d, 59, 1.0);
    let old_v = values(kv_heads * capacity * d, 60, 1.0);
    let store = [kv_heads, capacity, d];
    let (attended, k, v) = attend_new_row(
        tensor(&qkv, [1, width], device),
        biased.then(|| tensor(&bias, [1, width], device)).as_ref(),
        &cos,
        &sin,
        &Position::upload(past, device),
        HEADS,
        (tensor(&old_k, store, device), tensor(&old_v, store, device)),
        parts,
        &mut Held::nothing(),
    )?;
    let (mut want_k, mut want_v) = (old_k.clone(), old_v.clone());
    let stores = Stores { k: &mut want_k, v: &mut want_v, capacity };
    let b = biased.then_some(bias.as_slice());
    let q = rope_split_twin(&qkv, b, &table.cos, &table.sin, 1, past, HEADS, stores);
    let s = AttendShape { heads, kv_heads, head_dim: d, capacity, t: 1, past };
    let want = match parts {
        1 => attend_twin(&q, &want_k, &want_v, s),
        _ => attend_split_twin(&q, &want_k, &want_v, s, parts),
    };
    let name = format!("attention of a new row at {past} from QKV, bias {biased}, {parts} parts");
    record(check, &name, &host_rows(attended)?, &want);
    record(check, &format!("{name}: k store"), &host_rows(k)?, &want_k);
    record(check, &format!("{name}: v store"), &host_rows(v)?, &want_v);
    Ok(())
}

fn check_swiglu(check: &mut GpuKernelCheck, device: &Device, t: usize) -> Result<(), ModelError> {
    let ffn = 1536;
    let gu = values(t * 2 * ffn, 48 + t as u32, 6.0);
    let got = swiglu(tensor(&gu, [t, 2 * ffn], device), ffn)?;
    let want = super::feed_forward::swiglu_rows(&gu, ffn);
    record(check, &format!("SwiGLU {t}x{ffn}"), &host_rows(got)?, &want);
    Ok(())
}

fn check_matvec_add(
    check: &mut GpuKernelCheck,
    device: &Device,
    t: usize,
) -> Result<(), ModelError> {
    let (rows, cols) = (576usize, 1536usize);
    for ty in [GgmlType::Q4_1, GgmlType::Q8_0] {
        let data = gguf_rows(ty, rows, cols, 49);
        let input: Vec<(GgmlType, &[u8], f32)> =
            data.iter().map(|b| (ty, b.as_slice(), 1.0)).collect();
        let blocks = GpuBlocks::from_rows(&input, cols)
            .ok_or_else(|| ModelError::Execution(format!("{ty:?} blocks do not pack")))?;
        let layer = GpuQuantized::upload(&blocks, device)
            .ok_or_else(|| ModelError::Execution("not a cubecl device".into()))?;
        let x = values(t * cols, 50 + t as u32, 1.0);
        let residual = values(t * rows, 51, 3.0);
        let got = layer
            .forward_add(tensor(&x, [t, cols], device), tensor(&residual, [t, rows], device))?;
        let mut want = blocks.matmul(&x, t, layer.split().lanes());
        want.iter_mut().zip(&residual).for_each(|(y, r)| *y += r);
        record(
            check,
            &format!("{} {rows}x{cols} + residual, {t} row(s)", ty.name()),
            &host_rows(got)?,
            &want,
        );
    }
    Ok(())
}

/// Which prologue a case checks.
#[derive(Clone, Copy, Debug)]
enum Fused {
    Norm,
    SwiGlu,
}

/// One decode row through a product with a prologue under `split`: RMSNorm (no
/// residual) or SwiGLU (with the residual added), against the prologue's twin then the
/// product's; `cap` cuts the matrix in parts of that many bytes.
fn check_prologue(
    check: &mut GpuKernelCheck,
    device: &Device,
    split: RowSplit,
    ty: GgmlType,
    (rows, cols, cap): (usize, usize, Option<u64>),
    fused: Fused,
) -> Result<(), ModelError> {
    let data = gguf_rows(ty, rows, cols, 52 + rows as u32);
    let input: Vec<(GgmlType, &[u8], f32)> = data.iter().map(|b| (ty, b.as_slice(), 1.0)).collect();
    let blocks = GpuBlocks::from_rows(&input, cols)
        .ok_or_else(|| ModelError::Execution(format!("{ty:?} blocks do not pack")))?;
    let layer = GpuQuantized::upload_parts(&blocks, device, Some(split), cap)
        .ok_or_else(|| ModelError::Execution("not a cubecl device".into()))?;
    let eps = 1e-5;
    let (got, want) = match fused {
        Fused::Norm => {
            let x = values(cols, 53, 4.0);
            let w = values(cols, 54, 2.0);
            let weights = super::gpu_tensor::cube(tensor(&w, [1, cols], device), "check")?;
            let got = layer.forward_prologue(
                tensor(&x, [1, cols], device),
                Prologue::Norm { weights: &weights, eps },
                None,
            )?;
            let h = rms_norm_twin_units(&x, &w, eps, split.units());
            (got, blocks.matmul(&h, 1, split.lanes()))
        }
        Fused::SwiGlu => {
            let gu = values(2 * cols, 55, 3.0);
            let residual = values(rows, 56, 3.0);
            let got = layer.forward_prologue(
                tensor(&gu, [1, 2 * cols], device),
                Prologue::SwiGlu,
                Some(tensor(&residual, [1, rows], device)),
            )?;
            let act = super::feed_forward::swiglu_rows(&gu, cols);
            let mut want = blocks.matmul(&act, 1, split.lanes());
            want.iter_mut().zip(&residual).for_each(|(y, r)| *y += r);
            (got, want)
        }
    };
    let parts = cap.map_or(String::new(), |c| format!(", parts of {c} bytes"));
    let name = format!("{fused:?} prologue + {} {rows}x{cols}, {split:?}{parts}", ty.name());
    record(check, &name, &host_rows(got)?, &want);
    Ok(())
}
