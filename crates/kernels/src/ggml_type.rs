//! The ggml tensor element types this crate decodes, their block layouts, and
//! dequantization exactly as ggml defines it (`ggml-quants.c`):
//!
//! - `F32`: plain little-endian floats.
//! - `F16`: IEEE half floats.
//! - `Q8_0`: blocks of 32 values: `d: f16`, then 32 `i8` `q`; `x = d * q`.
//! - `Q4_1`: blocks of 32 values: `d: f16`, `m: f16`, then 16 bytes; byte `j` holds
//!   value `j` in its low nibble and value `j + 16` in its high nibble; `x = d * q + m`.
//! - `Q4_0`, `Q5_0`, `Q5_1` (blocks of 32) and the K-quants `Q4_K`, `Q5_K`, `Q6_K`
//!   (super-blocks of 256): one file each in `formats/`, where their layouts are
//!   described.

use half::f16;

use crate::formats::{q4_0, q4_k, q5_0, q5_1, q5_k, q6_k, QK, QK_K};

/// Decodes one block's bytes into its values (the `decode` of a `formats/` module).
pub type BlockDecoder = fn(&[u8], &mut [f32]);

/// A ggml element type supported by the reader (named as ggml names them).
#[allow(non_camel_case_types)]
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
    /// Symmetric 4-bit blocks of 32 (`(q - 8) * d`).
    Q4_0,
    /// Symmetric 5-bit blocks of 32 (`(q - 16) * d`).
    Q5_0,
    /// Affine 5-bit blocks of 32 (`q * d + m`).
    Q5_1,
    /// 4-bit super-blocks of 256 with 6-bit sub-block scales and minimums.
    Q4_K,
    /// 5-bit super-blocks of 256 with 6-bit sub-block scales and minimums.
    Q5_K,
    /// 6-bit super-blocks of 256 with 8-bit sub-block scales.
    Q6_K,
}

impl GgmlType {
    /// The type for a ggml type id, or `Err(name)` with the type's name (for the error
    /// message) when it is not supported.
    pub fn from_id(id: u32) -> Result<Self, &'static str> {
        match id {
            0 => Ok(GgmlType::F32),
            1 => Ok(GgmlType::F16),
            3 => Ok(GgmlType::Q4_1),
            8 => Ok(GgmlType::Q8_0),
            2 => Ok(GgmlType::Q4_0),
            6 => Ok(GgmlType::Q5_0),
            7 => Ok(GgmlType::Q5_1),
            12 => Ok(GgmlType::Q4_K),
            13 => Ok(GgmlType::Q5_K),
            14 => Ok(GgmlType::Q6_K),
            9 => Err("Q8_1"),
            10 => Err("Q2_K"),
            11 => Err("Q3_K"),
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

    /// The type's ggml id (what a GGUF tensor info stores).
    pub fn id(self) -> u32 {
        match self {
            GgmlType::F32 => 0,
            GgmlType::F16 => 1,
            GgmlType::Q4_0 => 2,
            GgmlType::Q4_1 => 3,
            GgmlType::Q5_0 => 6,
            GgmlType::Q5_1 => 7,
            GgmlType::Q8_0 => 8,
            GgmlType::Q4_K => 12,
            GgmlType::Q5_K => 13,
            GgmlType::Q6_K => 14,
        }
    }

    /// Elements per block (1 for the float types).
    pub fn block_len(self) -> usize {
        match self {
            GgmlType::F32 | GgmlType::F16 => 1,
            GgmlType::Q8_0 | GgmlType::Q4_1 | GgmlType::Q4_0 | GgmlType::Q5_0 | GgmlType::Q5_1 => {
                QK
            }
            GgmlType::Q4_K | GgmlType::Q5_K | GgmlType::Q6_K => QK_K,
        }
    }

    /// Bytes per block.
    pub fn block_bytes(self) -> usize {
        match self {
            GgmlType::F32 => 4,
            GgmlType::F16 => 2,
            GgmlType::Q8_0 => 2 + QK,
            GgmlType::Q4_1 => 4 + QK / 2,
            GgmlType::Q4_0 => q4_0::BLOCK_BYTES,
            GgmlType::Q5_0 => q5_0::BLOCK_BYTES,
            GgmlType::Q5_1 => q5_1::BLOCK_BYTES,
            GgmlType::Q4_K => q4_k::BLOCK_BYTES,
            GgmlType::Q5_K => q5_k::BLOCK_BYTES,
            GgmlType::Q6_K => q6_k::BLOCK_BYTES,
        }
    }

    /// The ggml name (`Q4_K`, `F16`, ...).
    pub fn name(self) -> &'static str {
        match self {
            GgmlType::F32 => "F32",
            GgmlType::F16 => "F16",
            GgmlType::Q8_0 => "Q8_0",
            GgmlType::Q4_1 => "Q4_1",
            GgmlType::Q4_0 => "Q4_0",
            GgmlType::Q5_0 => "Q5_0",
            GgmlType::Q5_1 => "Q5_1",
            GgmlType::Q4_K => "Q4_K",
            GgmlType::Q5_K => "Q5_K",
            GgmlType::Q6_K => "Q6_K",
        }
    }

    /// The block decoder of the types whose blocks `formats/` decodes (`None` for the
    /// four original types, decoded in [`GgmlType::dequantize`] itself).
    pub fn block_decoder(self) -> Option<BlockDecoder> {
        match self {
            GgmlType::F32 | GgmlType::F16 | GgmlType::Q8_0 | GgmlType::Q4_1 => None,
            GgmlType::Q4_0 => Some(q4_0::decode),
            GgmlType::Q5_0 => Some(q5_0::decode),
            GgmlType::Q5_1 => Some(q5_1::decode),
            GgmlType::Q4_K => Some(q4_k::decode),
            GgmlType::Q5_K => Some(q5_k::decode),
            GgmlType::Q6_K => Some(q6_k::decode),
        }
    }

    /// Bytes taken by `elements` values (`None` if not a whole number of blocks or on
    /// overflow).
    pub fn byte_len(self, elements: u64) -> Option<u64> {
        let block = self.block_len() as u64;
        if !elements.is_multiple_of(block) {
            return None;
        }
        (elements / block).checked_mul(self.block_bytes() as u64)
    }

    /// Decodes `bytes` (a whole number of blocks) into `out`, which must hold exactly
    /// the number of elements those blocks encode. Lengths are checked by the caller
    /// (espalier-model's `Gguf::tensor_f32`); on a mismatch only the common prefix is decoded.
    pub fn dequantize(self, bytes: &[u8], out: &mut [f32]) {
        if let Some(decode) = self.block_decoder() {
            let (n, len) = (self.block_bytes(), self.block_len());
            for (o, b) in out.chunks_exact_mut(len).zip(bytes.chunks_exact(n)) {
                decode(b, o);
            }
            return;
        }
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
            _ => unreachable!("every other type has a block decoder"),
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
