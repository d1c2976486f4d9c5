//! The ggml tensor element types this crate decodes, their block layouts, and
//! dequantization exactly as ggml defines it (`ggml-quants.c`):
//!
//! - `F32`: plain little-endian floats.
//! - `F16`: IEEE half floats.
//! - `Q8_0`: blocks of 32 values: `d: f16`, then 32 `i8` `q`; `x = d * q`.
//! - `Q4_1`: blocks of 32 values: `d: f16`, `m: f16`, then 16 bytes; byte `j` holds
//!   value `j` in its low nibble and value `j + 16` in its high nibble; `x = d * q + m`.

use half::f16;

/// A ggml element type supported by the reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GgmlType {
    /// 32-bit float.
    F32,
    /// 16-bit float.
    F16,
    /// Symmetric 8-bit blocks of 32 with an f16 scale.
    Q8_0,
    /// Affine 4-bit blocks of 32 with an f16 scale and an f16 minimum.
    Q4_1,
}

/// Elements per block of the block-quantized types.
pub const QK: usize = 32;

impl GgmlType {
    /// The type for a ggml type id, or `Err(name)` with the type's name (for the error
    /// message) when it is not supported.
    pub fn from_id(id: u32) -> Result<Self, &'static str> {
        match id {
            0 => Ok(GgmlType::F32),
            1 => Ok(GgmlType::F16),
            3 => Ok(GgmlType::Q4_1),
            8 => Ok(GgmlType::Q8_0),
            2 => Err("Q4_0"),
            6 => Err("Q5_0"),
            7 => Err("Q5_1"),
            9 => Err("Q8_1"),
            10 => Err("Q2_K"),
            11 => Err("Q3_K"),
            12 => Err("Q4_K"),
            13 => Err("Q5_K"),
            14 => Err("Q6_K"),
            15 => Err("Q8_K"),
            24 => Err("I8"),
            25 => Err("I16"),
            26 => Err("I32"),
            27 => Err("I64"),
            28 => Err("F64"),
            30 => Err("BF16"),
            _ => Err("unknown"),
        }
    }

    /// Elements per block (1 for the float types).
    pub fn block_len(self) -> usize {
        match self {
            GgmlType::F32 | GgmlType::F16 => 1,
            GgmlType::Q8_0 | GgmlType::Q4_1 => QK,
        }
    }

    /// Bytes per block.
    pub fn block_bytes(self) -> usize {
        match self {
            GgmlType::F32 => 4,
            GgmlType::F16 => 2,
            GgmlType::Q8_0 => 2 + QK,
            GgmlType::Q4_1 => 4 + QK / 2,
        }
    }

    /// Bytes taken by `elements` values (`None` if not a whole number of blocks or on
    /// overflow).
    pub fn byte_len(self, elements: u64) -> Option<u64> {
        let block = self.block_len() as u64;
        if elements % block != 0 {
            return None;
        }
        (elements / block).checked_mul(self.block_bytes() as u64)
    }

    /// Decodes `bytes` (a whole number of blocks) into `out`, which must hold exactly
    /// the number of elements those blocks encode. Lengths are checked by the caller
    /// ([`super::Gguf::tensor_f32`]); on a mismatch only the common prefix is decoded.
    pub fn dequantize(self, bytes: &[u8], out: &mut [f32]) {
        match self {
            GgmlType::F32 => {
                for (o, b) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                    *o = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
            }
            GgmlType::F16 => {
                for (o, b) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                    *o = f16::from_le_bytes([b[0], b[1]]).to_f32();
                }
            }
            GgmlType::Q8_0 => {
                for (o, b) in out.chunks_exact_mut(QK).zip(bytes.chunks_exact(self.block_bytes())) {
                    let d = f16::from_le_bytes([b[0], b[1]]).to_f32();
                    for (x, &q) in o.iter_mut().zip(&b[2..]) {
                        *x = d * f32::from(q as i8);
                    }
                }
            }
            GgmlType::Q4_1 => {
                for (o, b) in out.chunks_exact_mut(QK).zip(bytes.chunks_exact(self.block_bytes())) {
                    let d = f16::from_le_bytes([b[0], b[1]]).to_f32();
                    let m = f16::from_le_bytes([b[2], b[3]]).to_f32();
                    let (lo, hi) = o.split_at_mut(QK / 2);
                    for (j, &q) in b[4..].iter().enumerate() {
                        lo[j] = f32::from(q & 0x0f) * d + m;
                        hi[j] = f32::from(q >> 4) * d + m;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q4_1_block_decodes_low_then_high_nibbles() {
        let mut block = Vec::new();
        block.extend_from_slice(&f16::from_f32(0.5).to_le_bytes());
        block.extend_from_slice(&f16::from_f32(-1.0).to_le_bytes());
        for j in 0..16u8 {
            block.push(j | ((15 - j) << 4));
        }
        let mut out = [0f32; 32];
        GgmlType::Q4_1.dequantize(&block, &mut out);
        for j in 0..16 {
            assert_eq!(out[j], j as f32 * 0.5 - 1.0);
            assert_eq!(out[j + 16], (15 - j) as f32 * 0.5 - 1.0);
        }
    }

    #[test]
    fn q8_0_block_is_signed() {
        let mut block = f16::from_f32(0.25).to_le_bytes().to_vec();
        block.extend((0..32).map(|i| (i as i8 - 16) as u8));
        let mut out = [0f32; 32];
        GgmlType::Q8_0.dequantize(&block, &mut out);
        assert_eq!(out[0], -4.0);
        assert_eq!(out[31], 3.75);
    }

    #[test]
    fn byte_lengths() {
        assert_eq!(GgmlType::Q4_1.byte_len(64), Some(40));
        assert_eq!(GgmlType::Q8_0.byte_len(32), Some(34));
        assert_eq!(GgmlType::Q8_0.byte_len(33), None);
        assert_eq!(GgmlType::F32.byte_len(u64::MAX), None);
    }
}
