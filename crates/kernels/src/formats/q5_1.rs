//! ggml Q5_1: blocks of 32 values, 24 bytes: `d: f16`, `m: f16`, `qh: u32` (fifth bits),
//! then 16 bytes of low nibbles as in Q4_1; `x = q * d + m`.

use super::f16_at;

/// Bytes per block.
pub const BLOCK_BYTES: usize = 24;

/// Decodes one block (`b`: 24 bytes) into `out` (32 values).
#[inline]
pub fn decode(b: &[u8], out: &mut [f32]) {
    let (d, m) = (f16_at(b, 0), f16_at(b, 2));
    let qh = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    let (lo, hi) = out.split_at_mut(16);
    for (j, &q) in b[8..24].iter().enumerate() {
        let h0 = ((qh >> j) << 4) & 0x10;
        let h1 = (qh >> (j + 12)) & 0x10;
        lo[j] = (u32::from(q & 0x0f) | h0) as f32 * d + m;
        hi[j] = (u32::from(q >> 4) | h1) as f32 * d + m;
    }
}
