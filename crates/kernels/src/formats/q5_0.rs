//! ggml Q5_0: blocks of 32 values, 22 bytes: `d: f16`, `qh: u32` (bit `j` is the fifth
//! bit of value `j`), then 16 bytes of low nibbles as in Q4_0; `x = (q - 16) * d`.

use super::f16_at;

/// Bytes per block.
pub const BLOCK_BYTES: usize = 22;

/// Decodes one block (`b`: 22 bytes) into `out` (32 values).
#[inline]
pub fn decode(b: &[u8], out: &mut [f32]) {
    let d = f16_at(b, 0);
    let qh = u32::from_le_bytes([b[2], b[3], b[4], b[5]]);
    let (lo, hi) = out.split_at_mut(16);
    for (j, &q) in b[6..22].iter().enumerate() {
        let h0 = ((qh >> j) << 4) & 0x10;
        let h1 = (qh >> (j + 12)) & 0x10;
        lo[j] = ((u32::from(q & 0x0f) | h0) as i32 - 16) as f32 * d;
        hi[j] = ((u32::from(q >> 4) | h1) as i32 - 16) as f32 * d;
    }
}
