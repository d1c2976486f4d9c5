//! ggml Q4_0: blocks of 32 values, 18 bytes: `d: f16`, then 16 bytes; byte `j` holds
//! value `j` in its low nibble and value `j + 16` in its high one; `x = (q - 8) * d`.

use super::f16_at;

/// Bytes per block.
pub const BLOCK_BYTES: usize = 18;

/// Decodes one block (`b`: 18 bytes) into `out` (32 values).
#[inline]
pub fn decode(b: &[u8], out: &mut [f32]) {
    let d = f16_at(b, 0);
    let (lo, hi) = out.split_at_mut(16);
    for (j, &q) in b[2..18].iter().enumerate() {
        lo[j] = (i32::from(q & 0x0f) - 8) as f32 * d;
        hi[j] = (i32::from(q >> 4) - 8) as f32 * d;
    }
}
