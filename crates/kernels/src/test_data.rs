//! Deterministic inputs of the kernels' checks (the unit tests and the public
//! [`crate::kernel_check`], which must run without `cargo test`): pseudo-random values,
//! activations of varied magnitudes, quantized blocks with finite scale fields, and
//! Q4_1's split fields with their dequantization. One generator, so every check draws
//! from the same inputs for the same seed.

use half::f16;

use crate::formats::QK;
use crate::{GgmlType, Q4_1Rows};

/// The block types with a block dot product of their own (`block_kernels`,
/// `int_dot::dot_blocks`): the legacy types but Q8_0 and Q4_1 (split fields), and the
/// K types.
pub(crate) const BLOCK_TYPES: [GgmlType; 6] = [
    GgmlType::Q4_0,
    GgmlType::Q5_0,
    GgmlType::Q5_1,
    GgmlType::Q4_K,
    GgmlType::Q5_K,
    GgmlType::Q6_K,
];

/// Deterministic pseudo-random values in [-1, 1).
pub(crate) fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// [`values`] with element `i` times `1 + i % period`: activations whose 8-bit
/// rounding scales differ per block (or, with `period` a row's length apart, per row).
pub(crate) fn varied(n: usize, seed: u64, period: usize) -> Vec<f32> {
    values(n, seed).iter().enumerate().map(|(i, v)| v * (1 + i % period) as f32).collect()
}

/// [`values`] as pseudo-random bytes.
pub(crate) fn bytes(n: usize, seed: u64) -> Vec<u8> {
    values(n, seed).iter().map(|v| ((v + 1.0) * 127.9) as u8).collect()
}

/// `n` blocks of `ty` with pseudo-random quants and small finite f16 scale fields
/// (0.01 to 0.022) where each type keeps them.
pub(crate) fn quant_blocks(ty: GgmlType, n: usize, seed: u64) -> Vec<u8> {
    let mut bytes = bytes(n * ty.block_bytes(), seed);
    let halves: &[usize] = match ty {
        GgmlType::Q6_K => &[208],
        GgmlType::Q4_0 | GgmlType::Q5_0 | GgmlType::Q8_0 => &[0],
        _ => &[0, 2],
    };
    for (b, block) in bytes.chunks_exact_mut(ty.block_bytes()).enumerate() {
        for (i, &h) in halves.iter().enumerate() {
            let v = f16::from_f32(0.01 + 0.003 * ((b + i) % 5) as f32).to_le_bytes();
            block[h..h + 2].copy_from_slice(&v);
        }
    }
    bytes
}

/// Q4_1 weights in the split fields the kernels take: scales `d`, minimums `m` (both
/// f16 values, as a GGUF file holds them) and 16 bytes of nibbles per block.
pub(crate) struct Q4_1Fields {
    pub d: Vec<f32>,
    pub m: Vec<f32>,
    pub nibbles: Vec<u8>,
}

impl Q4_1Fields {
    /// `blocks` pseudo-random blocks (seeds `seed`, `seed + 1`, `seed + 2`).
    pub(crate) fn new(blocks: usize, seed: u64) -> Self {
        let half = |v: f32| f16::from_f32(v).to_f32();
        Self {
            d: values(blocks, seed).iter().map(|v| half(v.abs() / 8.0 + 1e-3)).collect(),
            m: values(blocks, seed + 1).iter().map(|v| half(v / 4.0)).collect(),
            nibbles: bytes(blocks * QK / 2, seed + 2),
        }
    }

    /// The fields as `rows` weight rows.
    pub(crate) fn as_rows(&self, rows: usize) -> Q4_1Rows<'_> {
        Q4_1Rows { d: &self.d, m: &self.m, nibbles: &self.nibbles, rows }
    }

    /// ggml's dequantization: byte `j` of a block is value `j` (low nibble) and
    /// `j + 16` (high), each `d · q + m`.
    pub(crate) fn dequantized(&self) -> Vec<f32> {
        let mut w = vec![0f32; self.nibbles.len() * 2];
        let blocks = self.nibbles.chunks_exact(QK / 2).zip(w.chunks_exact_mut(QK));
        for (b, (q, out)) in blocks.enumerate() {
            for (j, &byte) in q.iter().enumerate() {
                out[j] = self.d[b] * f32::from(byte & 0x0f) + self.m[b];
                out[j + QK / 2] = self.d[b] * f32::from(byte >> 4) + self.m[b];
            }
        }
        w
    }
}
