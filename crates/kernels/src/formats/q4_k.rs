//! ggml Q4_K: super-blocks of 256 values, 144 bytes: `d: f16`, `dmin: f16`, 12 bytes of
//! packed 6-bit scales and minimums (eight sub-blocks of 32), then 128 bytes of nibbles.
//! Sub-block pair `p` (values `64 p .. 64 p + 64`) reads bytes `32 p .. 32 p + 32`: low
//! nibbles are the first 32 values (scale / min `2 p`), high nibbles the next 32
//! (`2 p + 1`); `x = d * sc * q - dmin * m`.

use super::{f16_at, QK_K};

/// Bytes per super-block.
pub const BLOCK_BYTES: usize = 144;

/// Scale and minimum `j` (0..8) of the packed 12 bytes (ggml's `get_scale_min_k4`).
#[inline]
pub fn scale_min(j: usize, q: &[u8]) -> (u8, u8) {
    if j < 4 {
        (q[j] & 63, q[j + 4] & 63)
    } else {
        ((q[j + 4] & 0x0f) | ((q[j - 4] >> 6) << 4), (q[j + 4] >> 4) | ((q[j] >> 6) << 4))
    }
}

/// The scales and minimums `(d · sc, dmin · m)` of sub-blocks `2 p` and `2 p + 1` of
/// the super-block `b` (its header: `d`, `dmin`, the packed 12 bytes), as Q4_K and
/// Q5_K (the same header) decode them.
#[inline]
pub fn pair_scales(b: &[u8], p: usize) -> [(f32, f32); 2] {
    let (d, dmin) = (f16_at(b, 0), f16_at(b, 2));
    [2 * p, 2 * p + 1].map(|j| {
        let (sc, m) = scale_min(j, &b[4..16]);
        (d * f32::from(sc), dmin * f32::from(m))
    })
}

/// Decodes one super-block (`b`: 144 bytes) into `out` (256 values).
#[inline]
pub fn decode(b: &[u8], out: &mut [f32]) {
    let qs = &b[16..144];
    for p in 0..QK_K / 64 {
        let [(d1, min1), (d2, min2)] = pair_scales(b, p);
        let q = &qs[32 * p..32 * p + 32];
        let o = &mut out[64 * p..64 * p + 64];
        for l in 0..32 {
            o[l] = d1 * f32::from(q[l] & 0x0f) - min1;
            o[l + 32] = d2 * f32::from(q[l] >> 4) - min2;
        }
    }
}
