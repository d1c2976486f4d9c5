//! Dot products of one weight row stored as ggml blocks of the types decoded in
//! `formats/` (Q4_0, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K) with one f32 activation row:
//! the inner loop of [`crate::HostMatrix`] for those types.
//!
//! Each block is decoded into a stack buffer by the format's own decoder (the same
//! function the GGUF reader dequantizes with, tested against gguf-py's reference) and
//! multiplied with the activations by [`dot_f32`] (AVX2 + FMA where the CPU has it,
//! the portable lanes elsewhere and in wasm). The weights stay compact in memory and
//! are streamed once per output row; the decode is generic over the format so it is
//! inlined into the loop. Decode steps of the types with integer kernels for the CPU
//! go through [`super::int_dot`] instead (8-bit activations, as ggml); this is the
//! path with f32 activations (`ActivationFormat::F32`, and types without one).

use crate::host_kernels::dot_f32;
use crate::{GgmlType, Isa, QK_K};

/// `w · x` for `row`, whole blocks of `ty` (one of the types with a block decoder),
/// and `x` of as many values as the blocks encode.
#[inline]
pub fn dot_blocks(isa: Isa, ty: GgmlType, row: &[u8], x: &[f32]) -> f32 {
    use crate::formats::*;
    match ty {
        GgmlType::Q4_0 => dot_with(isa, q4_0::decode, q4_0::BLOCK_BYTES, 32, row, x),
        GgmlType::Q5_0 => dot_with(isa, q5_0::decode, q5_0::BLOCK_BYTES, 32, row, x),
        GgmlType::Q5_1 => dot_with(isa, q5_1::decode, q5_1::BLOCK_BYTES, 32, row, x),
        GgmlType::Q4_K => dot_with(isa, q4_k::decode, q4_k::BLOCK_BYTES, QK_K, row, x),
        GgmlType::Q5_K => dot_with(isa, q5_k::decode, q5_k::BLOCK_BYTES, QK_K, row, x),
        GgmlType::Q6_K => dot_with(isa, q6_k::decode, q6_k::BLOCK_BYTES, QK_K, row, x),
        // The other types are held in their own host formats, never as raw blocks.
        GgmlType::F32 | GgmlType::F16 | GgmlType::Q8_0 | GgmlType::Q4_1 => {
            let mut w = vec![0f32; x.len()];
            ty.dequantize(row, &mut w);
            dot_f32(isa, &w, x)
        }
    }
}

/// Decodes `row` into f32 values (`out`: as many as the blocks encode).
pub fn decode_row(ty: GgmlType, row: &[u8], out: &mut [f32]) {
    ty.dequantize(row, out);
}

#[inline(always)]
fn dot_with(
    isa: Isa,
    decode: impl Fn(&[u8], &mut [f32]),
    bytes: usize,
    len: usize,
    row: &[u8],
    x: &[f32],
) -> f32 {
    // Eight 32-blocks at a time for the small types, so `dot_f32` runs over 256 values.
    let group = QK_K / len;
    let mut acc = 0f32;
    for (bs, xs) in row.chunks(bytes * group).zip(x.chunks(len * group)) {
        let mut full = [0f32; QK_K];
        let n = bs.len() / bytes;
        for (k, b) in bs.chunks_exact(bytes).enumerate() {
            decode(b, &mut full[k * len..(k + 1) * len]);
        }
        acc += dot_f32(isa, &full[..n * len], xs);
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every type's dot product equals an f64 sum over the decoded row, on the AVX2 and
    /// the portable path, for rows of one and of several blocks.
    #[test]
    fn dot_blocks_matches_decoded_sum() {
        for ty in crate::test_data::BLOCK_TYPES {
            for blocks in [1usize, 3, 9] {
                let n = blocks * ty.block_len();
                let bytes = crate::test_data::quant_blocks(ty, blocks, 5 + blocks as u64);
                let x: Vec<f32> = (0..n).map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0).collect();
                let mut w = vec![0f32; n];
                decode_row(ty, &bytes, &mut w);
                let want: f64 = w.iter().zip(&x).map(|(&a, &b)| f64::from(a) * f64::from(b)).sum();
                for isa in [Isa::Portable, Isa::detect()] {
                    let got = dot_blocks(isa, ty, &bytes, &x);
                    assert!(
                        (f64::from(got) - want).abs() < 1e-4 * (1.0 + want.abs()),
                        "{ty:?} {blocks} blocks {isa:?}: {got} vs {want}"
                    );
                }
            }
        }
    }
}
