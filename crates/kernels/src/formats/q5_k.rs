//! ggml Q5_K: super-blocks of 256 values, 176 bytes: `d: f16`, `dmin: f16`, 12 bytes of
//! packed 6-bit scales and minimums (as Q4_K), 32 bytes `qh` of fifth bits, then 128
//! bytes of nibbles laid out as Q4_K's. Sub-block `s` takes its fifth bit from bit `s`
//! of `qh[l]`; `x = d * sc * q - dmin * m`.

use super::q4_k::pair_scales;
use super::QK_K;

/// Bytes per super-block.
pub const BLOCK_BYTES: usize = 176;

/// Decodes one super-block (`b`: 176 bytes) into `out` (256 values).
#[inline]
pub fn decode(b: &[u8], out: &mut [f32]) {
    let qh = &b[16..48];
    let qs = &b[48..176];
    for p in 0..QK_K / 64 {
        let [(d1, min1), (d2, min2)] = pair_scales(b, p);
        let (u1, u2) = (1u8 << (2 * p), 2u8 << (2 * p));
        let q = &qs[32 * p..32 * p + 32];
        let o = &mut out[64 * p..64 * p + 64];
        for l in 0..32 {
            let h1 = if qh[l] & u1 != 0 { 16 } else { 0 };
            let h2 = if qh[l] & u2 != 0 { 16 } else { 0 };
            o[l] = d1 * f32::from((q[l] & 0x0f) + h1) - min1;
            o[l + 32] = d2 * f32::from((q[l] >> 4) + h2) - min2;
        }
    }
}
