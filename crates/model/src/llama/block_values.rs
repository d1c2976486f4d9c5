//! A GGUF block read as the GPU block kernel's terms (`gpu_blocks.rs`): per 32 values,
//! small integers `q` and, per half of 16, a scale `d` and a minimum `m`, the value being
//! `d * q + m`, exactly the GGUF reader's (`espalier_kernels::formats`, ggml's
//! `dequantize_row_*`): every quantized type ggml writes for a language model fits.
//!
//! - Q4_1 `d q + m`, Q4_0 `d (q - 8)` (`m = -8 d`), Q8_0 `d q`, Q5_0 `d (q - 16)`
//!   (`q - 16` signed), Q5_1 `d q + m`: one `d` and `m` for the 32.
//! - Q4_K and Q5_K: a super-block of 256 is eight sub-blocks of 32, each `(d sc) q - (dmin
//!   m)` with its 6-bit scale and minimum.
//! - Q6_K: sixteen sub-blocks of 16, each `(d sc) (q - 32)` with its signed 8-bit scale:
//!   the two halves of a block of 32 have their own `d`.
//!
//! Exactness: each product `d * q` is a short integer times an f16 (or an f16 times an
//! 8-bit scale, then a 6-bit integer) and the reader computes the same products in the
//! same order, so `d * q + m` here is the reader's value bit for bit (the unit tests
//! compare every type).

use half::f16;

use espalier_kernels::formats::q4_k;

use crate::gguf::{GgmlType, QK, QK_K};

/// 32 values `d[h] * q[i] + m[h]`, `h = i / 16`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Block32 {
    pub d: [f32; 2],
    pub m: [f32; 2],
    pub q: [i8; QK],
}

impl Block32 {
    /// One scale and minimum for all 32 values.
    fn whole(d: f32, m: f32, q: [i8; QK]) -> Self {
        Self { d: [d; 2], m: [m; 2], q }
    }

    /// Whether both halves share `d` and `m`.
    pub(crate) fn one_scale(&self) -> bool {
        self.d[0] == self.d[1] && self.m[0] == self.m[1]
    }

    /// Value `i` (the reader's, bit for bit).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn value(&self, i: usize) -> f32 {
        let h = i / 16;
        self.d[h] * f32::from(self.q[i]) + self.m[h]
    }
}

fn half(b: &[u8], i: usize) -> f32 {
    f16::from_le_bytes([b[i], b[i + 1]]).to_f32()
}

/// 16 bytes of nibbles as 32 values: byte `k` holds value `k` (low) and `k + 16` (high),
/// plus a fifth bit per value from `high_bits` (Q5_0 / Q5_1's `qh`), minus `offset`.
fn nibbles(bytes: &[u8], high_bits: u32, offset: i8) -> [i8; QK] {
    std::array::from_fn(|i| {
        let (k, shift) = (i % 16, 4 * (i / 16));
        let q = (bytes[k] >> shift) & 0x0f;
        let h = ((high_bits >> i) & 1) as u8;
        (q | (h << 4)) as i8 - offset
    })
}

/// The blocks of 32 values of one GGUF row of type `ty` (whole blocks of its type), in
/// order; `None` for a type without integer blocks (F32, F16).
pub(crate) fn blocks_of(ty: GgmlType, row: &[u8]) -> Option<Vec<Block32>> {
    let blocks = row.chunks_exact(ty.block_bytes());
    Some(match ty {
        GgmlType::Q4_1 => blocks
            .map(|b| Block32::whole(half(b, 0), half(b, 2), nibbles(&b[4..20], 0, 0)))
            .collect(),
        GgmlType::Q4_0 => blocks
            .map(|b| Block32::whole(half(b, 0), -8.0 * half(b, 0), nibbles(&b[2..18], 0, 0)))
            .collect(),
        GgmlType::Q8_0 => blocks
            .map(|b| Block32::whole(half(b, 0), 0.0, std::array::from_fn(|i| b[2 + i] as i8)))
            .collect(),
        GgmlType::Q5_0 => blocks
            .map(|b| {
                let qh = u32::from_le_bytes([b[2], b[3], b[4], b[5]]);
                Block32::whole(half(b, 0), 0.0, nibbles(&b[6..22], qh, 16))
            })
            .collect(),
        GgmlType::Q5_1 => blocks
            .map(|b| {
                let qh = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
                Block32::whole(half(b, 0), half(b, 2), nibbles(&b[8..24], qh, 0))
            })
            .collect(),
        GgmlType::Q4_K | GgmlType::Q5_K => blocks.flat_map(|b| k_quant_4_5(ty, b)).collect(),
        GgmlType::Q6_K => blocks.flat_map(q6_k).collect(),
        GgmlType::F32 | GgmlType::F16 => return None,
    })
}

/// A Q4_K or Q5_K super-block's eight blocks of 32: in pair `p`, sub-block `2p` holds the
/// low nibbles of bytes `32p..32p + 32`, `2p + 1` the high ones (Q5_K: plus bit `2p` or
/// `2p + 1` of `qh[l]` as the fifth).
fn k_quant_4_5(ty: GgmlType, b: &[u8]) -> Vec<Block32> {
    let (qh, qs) = match ty {
        GgmlType::Q5_K => (Some(&b[16..48]), &b[48..176]),
        _ => (None, &b[16..144]),
    };
    (0..QK_K / 64)
        .flat_map(|p| {
            let q = &qs[32 * p..32 * p + 32];
            let [(d1, min1), (d2, min2)] = q4_k::pair_scales(b, p);
            let fifth = |l: usize, bit: usize| qh.map_or(0, |qh| ((qh[l] >> bit) & 1) << 4);
            let low = std::array::from_fn(|l| ((q[l] & 0x0f) | fifth(l, 2 * p)) as i8);
            let high = std::array::from_fn(|l| ((q[l] >> 4) | fifth(l, 2 * p + 1)) as i8);
            [Block32::whole(d1, -min1, low), Block32::whole(d2, -min2, high)]
        })
        .collect()
}

/// A Q6_K super-block's eight blocks of 32. Value `v = 128 h + 32 g + l` (`h` < 2, `g` < 4,
/// `l` < 32) is 4 bits of `ql[64 h + l + 32 (g % 2)]` (low nibble for `g` < 2) and 2 bits of
/// `qh[32 h + l]` (bits `2 g`), minus 32, scaled by `d * sc[v / 16]`.
fn q6_k(b: &[u8]) -> Vec<Block32> {
    let d = half(b, 208);
    let (ql, qh, sc) = (&b[..128], &b[128..192], &b[192..208]);
    let value = |v: usize| {
        let (h, g, l) = (v / 128, v % 128 / 32, v % 32);
        let low = ql[64 * h + l + 32 * (g % 2)] >> (4 * (g / 2)) & 0x0f;
        let high = (qh[32 * h + l] >> (2 * g)) & 3;
        (low | (high << 4)) as i8 - 32
    };
    (0..QK_K / QK)
        .map(|j| Block32 {
            d: [0, 1].map(|s| d * f32::from(sc[2 * j + s] as i8)),
            m: [0.0; 2],
            q: std::array::from_fn(|i| value(QK * j + i)),
        })
        .collect()
}

/// Deterministic bytes (a linear congruential sequence): synthetic blocks for the tests
/// and the GPU kernel's self-check (`gpu_kernel_check.rs`, native only).
#[cfg_attr(target_family = "wasm", allow(dead_code))]
pub(crate) fn noise(n: usize, seed: u32) -> Vec<u8> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 24) as u8
        })
        .collect()
}

/// GGUF rows of `ty` (`cols` values each, whole blocks) from noise, with finite, varied
/// f16 scales and minimums (random f16 bytes may be NaN or huge): `d` and, where the type
/// has them, `m` / `dmin`.
#[cfg_attr(target_family = "wasm", allow(dead_code))]
pub(crate) fn gguf_rows(ty: GgmlType, rows: usize, cols: usize, seed: u32) -> Vec<Vec<u8>> {
    let bb = ty.block_bytes();
    // The f16 fields of a block: (offset, is a minimum).
    let fields: &[(usize, bool)] = match ty {
        GgmlType::Q4_1 | GgmlType::Q5_1 | GgmlType::Q4_K | GgmlType::Q5_K => {
            &[(0, false), (2, true)]
        }
        GgmlType::Q6_K => &[(208, false)],
        _ => &[(0, false)],
    };
    // K-quant scales multiply 6- or 8-bit sub-scales: smaller super-block scales.
    let unit = if ty.block_len() == QK_K { 0.05 } else { 1.0 };
    (0..rows)
        .map(|r| {
            let mut row = noise(cols / ty.block_len() * bb, seed + r as u32);
            for (j, block) in row.chunks_exact_mut(bb).enumerate() {
                for &(at, min) in fields {
                    let v = if min {
                        -0.05 + 0.01 * ((r + j) % 9) as f32
                    } else {
                        0.01 + 0.003 * ((r * 7 + j) % 11) as f32
                    };
                    block[at..at + 2].copy_from_slice(&f16::from_f32(v * unit).to_le_bytes());
                }
            }
            row
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use GgmlType::*;

    /// Every integer type's blocks are the reader's values bit for bit, on noise rows
    /// (every bit pattern of the quantized bytes).
    #[test]
    fn every_quantized_type_reads_as_the_gguf_reader() {
        let cols = 512;
        for ty in [Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K] {
            for (r, row) in gguf_rows(ty, 5, cols, 70).iter().enumerate() {
                let blocks = blocks_of(ty, row).expect("integer blocks");
                assert_eq!(blocks.len(), cols / QK);
                let mut want = vec![0f32; cols];
                ty.dequantize(row, &mut want);
                let got: Vec<f32> =
                    blocks.iter().flat_map(|b| (0..QK).map(|i| b.value(i))).collect();
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    // `==`: the reader's -0.0 (a zero `q` times a negative `d`) is 0.0 here.
                    assert!(g == w, "{ty:?} row {r} value {i}: {g} vs {w}");
                }
                assert!(want.iter().filter(|&&v| v != 0.0).count() > cols / 2, "{ty:?}: values");
                let one = blocks.iter().all(Block32::one_scale);
                assert_eq!(one, ty != Q6_K, "{ty:?}: one scale per 32");
            }
        }
        assert_eq!(blocks_of(F16, &[0; 64]), None);
        assert_eq!(blocks_of(F32, &[0; 128]), None);
    }
}
