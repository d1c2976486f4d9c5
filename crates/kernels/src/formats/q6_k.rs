//! ggml Q6_K: super-blocks of 256 values, 210 bytes: 128 bytes `ql` (low nibbles), 64
//! bytes `qh` (2-bit high parts), 16 `i8` scales (one per 16 values), then `d: f16`.
//! Each half (128 values) reads 64 bytes of `ql`, 32 of `qh` and 8 scales;
//! `x = d * sc * (q - 32)`.

use super::f16_at;

/// Bytes per super-block.
pub const BLOCK_BYTES: usize = 210;

/// Decodes one super-block (`b`: 210 bytes) into `out` (256 values).
#[inline]
pub fn decode(b: &[u8], out: &mut [f32]) {
    let d = f16_at(b, 208);
    for half in 0..2 {
        let ql = &b[64 * half..64 * half + 64];
        let qh = &b[128 + 32 * half..128 + 32 * half + 32];
        let sc = &b[192 + 8 * half..192 + 8 * half + 8];
        let o = &mut out[128 * half..128 * half + 128];
        for l in 0..32 {
            let is = l / 16;
            let q1 = i32::from((ql[l] & 0x0f) | ((qh[l] & 3) << 4)) - 32;
            let q2 = i32::from((ql[l + 32] & 0x0f) | (((qh[l] >> 2) & 3) << 4)) - 32;
            let q3 = i32::from((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
            let q4 = i32::from((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
            o[l] = d * f32::from(sc[is] as i8) * q1 as f32;
            o[l + 32] = d * f32::from(sc[is + 2] as i8) * q2 as f32;
            o[l + 64] = d * f32::from(sc[is + 4] as i8) * q3 as f32;
            o[l + 96] = d * f32::from(sc[is + 6] as i8) * q4 as f32;
        }
    }
}
