//! The CPU kernels of [`super::host_kernels`] written with wasm's 128-bit SIMD
//! (`core::arch::wasm32`, the `simd128` target feature): what the playground's CPU
//! fallback runs in the browser (wasm has no run-time feature detection, so this is
//! chosen at compile time: `.cargo/config.toml` builds wasm32 with `+simd128`).
//!
//! Hand-written for the reason the x86 twins are (see `host_kernels`): no crate
//! multiplies Q4_1 / Q8_0 blocks by f32 activations. LLVM does vectorise the portable
//! versions for simd128, but it keeps their eight-lane shape (two vectors per lane
//! group, partial sums carried through memory-shaped code, each nibble converted one
//! lane group at a time); here each 32-weight block is widened and converted in four
//! vectors and multiplied with four independent accumulators.
//!
//! simd128 has no fused multiply-add (that is relaxed-simd), so products are rounded
//! before they are added, as in the portable versions; the order of the additions
//! differs, so results agree with the portable twins within float rounding (checked by
//! [`super::kernel_check`] under node: `bench/model-wasm-kernels`, run by
//! `scripts/test.sh` with debug assertions).
//!
//! Every function is safe to call with the documented slice lengths: loads go through
//! `v128_load` on pointers inside the slices (checked by the `min` of the lengths).

use core::arch::wasm32::*;

use crate::formats::QK;
use crate::q8_activations::{Q8Activations, Q8Row};
use crate::tile_width::by_tile_width;
use crate::Q4_1Rows;

#[inline(always)]
fn hsum(v: v128) -> f32 {
    f32x4_extract_lane::<0>(v)
        + f32x4_extract_lane::<1>(v)
        + f32x4_extract_lane::<2>(v)
        + f32x4_extract_lane::<3>(v)
}

/// Loads four f32 from `p`.
///
/// # Safety
/// `p .. p + 4` must be inside one slice.
#[inline(always)]
unsafe fn load4(p: *const f32) -> v128 {
    v128_load(p as *const v128)
}

/// `a · b` over the common length of `a` and `b`.
pub(super) fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let mut acc = [f32x4_splat(0.0); 4];
    let mut i = 0;
    // SAFETY: every load reads `i .. i + 4 <= n` of both slices.
    unsafe {
        while i + 16 <= n {
            for (k, acc) in acc.iter_mut().enumerate() {
                let off = i + 4 * k;
                *acc = f32x4_add(*acc, f32x4_mul(load4(pa.add(off)), load4(pb.add(off))));
            }
            i += 16;
        }
        while i + 4 <= n {
            acc[0] = f32x4_add(acc[0], f32x4_mul(load4(pa.add(i)), load4(pb.add(i))));
            i += 4;
        }
    }
    let mut sum = hsum(f32x4_add(f32x4_add(acc[0], acc[1]), f32x4_add(acc[2], acc[3])));
    for j in i..n {
        sum += a[j] * b[j];
    }
    sum
}

/// `o += p * v` over the common length (attention's weighted sum of values).
pub(super) fn axpy(p: f32, v: &[f32], o: &mut [f32]) {
    let n = v.len().min(o.len());
    let (pv, po) = (v.as_ptr(), o.as_mut_ptr());
    let s = f32x4_splat(p);
    let mut i = 0;
    // SAFETY: every load and store touches `i .. i + 4 <= n` of both slices.
    unsafe {
        while i + 4 <= n {
            let y = f32x4_add(load4(po.add(i)), f32x4_mul(s, load4(pv.add(i))));
            v128_store(po.add(i) as *mut v128, y);
            i += 4;
        }
    }
    for j in i..n {
        o[j] += p * v[j];
    }
}

/// Sixteen signed bytes as four f32x4 (lanes 0-3, 4-7, 8-11, 12-15).
#[inline(always)]
fn i8x16_to_f32(q: v128) -> [v128; 4] {
    let lo = i16x8_extend_low_i8x16(q);
    let hi = i16x8_extend_high_i8x16(q);
    [
        f32x4_convert_i32x4(i32x4_extend_low_i16x8(lo)),
        f32x4_convert_i32x4(i32x4_extend_high_i16x8(lo)),
        f32x4_convert_i32x4(i32x4_extend_low_i16x8(hi)),
        f32x4_convert_i32x4(i32x4_extend_high_i16x8(hi)),
    ]
}

/// Sixteen unsigned bytes (values below 16 here) as four f32x4. The widened values are
/// below 256, so the signed conversion is exact; it is one instruction on x86 hosts,
/// where the unsigned one (`f32x4.convert_i32x4_u`) is emulated by a sequence.
#[inline(always)]
fn u8x16_to_f32(q: v128) -> [v128; 4] {
    let lo = u16x8_extend_low_u8x16(q);
    let hi = u16x8_extend_high_u8x16(q);
    [
        f32x4_convert_i32x4(u32x4_extend_low_u16x8(lo)),
        f32x4_convert_i32x4(u32x4_extend_high_u16x8(lo)),
        f32x4_convert_i32x4(u32x4_extend_low_u16x8(hi)),
        f32x4_convert_i32x4(u32x4_extend_high_u16x8(hi)),
    ]
}

/// `Σ_k q[k] * x[k]` over sixteen weights `q` (as four f32x4) and `x[0..16]`, as a
/// vector of partial sums.
///
/// # Safety
/// `x .. x + 16` must be inside one slice.
#[inline(always)]
unsafe fn mul16(q: [v128; 4], x: *const f32) -> v128 {
    let a = f32x4_add(f32x4_mul(q[0], load4(x)), f32x4_mul(q[1], load4(x.add(4))));
    let b = f32x4_add(f32x4_mul(q[2], load4(x.add(8))), f32x4_mul(q[3], load4(x.add(12))));
    f32x4_add(a, b)
}

/// `w · x` with `w` as Q8_0 blocks (`scales[i]`, `quants[32 i ..]`).
// `b` also drives the raw-pointer offsets into `quants` and `x`.
#[allow(clippy::needless_range_loop)]
pub(super) fn dot_q8(scales: &[f32], quants: &[i8], x: &[f32]) -> f32 {
    let blocks = scales.len().min(quants.len() / QK).min(x.len() / QK);
    let (pq, px) = (quants.as_ptr(), x.as_ptr());
    let mut acc0 = f32x4_splat(0.0);
    let mut acc1 = f32x4_splat(0.0);
    for b in 0..blocks {
        // SAFETY: block `b < blocks` spans `32 b .. 32 b + 32` of `quants` and `x`.
        let s = unsafe {
            let q = pq.add(b * QK) as *const v128;
            let xb = px.add(b * QK);
            f32x4_add(
                mul16(i8x16_to_f32(v128_load(q)), xb),
                mul16(i8x16_to_f32(v128_load(q.add(1))), xb.add(16)),
            )
        };
        let d = f32x4_splat(scales[b]);
        // Two accumulators alternate so consecutive blocks do not wait on each other.
        if b % 2 == 0 {
            acc0 = f32x4_add(acc0, f32x4_mul(s, d));
        } else {
            acc1 = f32x4_add(acc1, f32x4_mul(s, d));
        }
    }
    hsum(f32x4_add(acc0, acc1))
}

/// `Σ d[i] * Σ_j q_ij x_ij`, the scale part of a Q4_1 dot product (ggml's layout: byte
/// `j` of a block holds value `j` in its low nibble and value `j + 16` in its high one).
// `b` also drives the raw-pointer offsets into `nibbles` and `x`.
#[allow(clippy::needless_range_loop)]
pub(super) fn dot_q4_1(d: &[f32], nibbles: &[u8], x: &[f32]) -> f32 {
    let blocks = d.len().min(nibbles.len() / (QK / 2)).min(x.len() / QK);
    let (pq, px) = (nibbles.as_ptr(), x.as_ptr());
    let mask = u8x16_splat(0x0f);
    let mut acc0 = f32x4_splat(0.0);
    let mut acc1 = f32x4_splat(0.0);
    for b in 0..blocks {
        // SAFETY: block `b < blocks` spans 16 bytes of `nibbles` and 32 floats of `x`.
        let s = unsafe {
            let bytes = v128_load(pq.add(b * QK / 2) as *const v128);
            let xb = px.add(b * QK);
            let lo = u8x16_to_f32(v128_and(bytes, mask));
            let hi = u8x16_to_f32(u8x16_shr(bytes, 4));
            f32x4_add(mul16(lo, xb), mul16(hi, xb.add(16)))
        };
        let scale = f32x4_splat(d[b]);
        if b % 2 == 0 {
            acc0 = f32x4_add(acc0, f32x4_mul(s, scale));
        } else {
            acc1 = f32x4_add(acc1, f32x4_mul(s, scale));
        }
    }
    hsum(f32x4_add(acc0, acc1))
}

/// `Σ w a` over sixteen weight bytes `w` (unsigned, below 128, or signed as `signed`
/// says) and sixteen signed activation bytes `a`, as four i32 partial sums: widened to
/// i16 and multiplied in pairs (`i32x4.dot_i16x8_s`), the simd128 form of AVX2's
/// `maddubs` + `madd` (8-bit activations, [`super::int_dot`]).
#[inline(always)]
fn dot_bytes(w: v128, a: v128, signed: bool) -> v128 {
    let (wl, wh) = if signed {
        (i16x8_extend_low_i8x16(w), i16x8_extend_high_i8x16(w))
    } else {
        (u16x8_extend_low_u8x16(w), u16x8_extend_high_u8x16(w))
    };
    i32x4_add(
        i32x4_dot_i16x8(wl, i16x8_extend_low_i8x16(a)),
        i32x4_dot_i16x8(wh, i16x8_extend_high_i8x16(a)),
    )
}

/// 16 bytes at `p`.
///
/// # Safety
/// `p .. p + 16` must be inside one slice.
#[inline(always)]
unsafe fn load16<T>(p: *const T) -> v128 {
    v128_load(p as *const v128)
}

/// [`super::int_dot::dot_q8_0`]: `w` as Q8_0 blocks times 8-bit activations.
pub(super) fn int_dot_q8_0(scales: &[f32], quants: &[i8], x: Q8Row) -> f32 {
    let n = scales.len().min(quants.len() / QK).min(x.sums.len()).min(x.quants.len() / QK);
    let mut acc = [f32x4_splat(0.0); 2];
    for k in 0..n {
        // SAFETY: block `k < n` spans `32 k .. 32 k + 32` of both byte slices.
        let s = unsafe {
            let (w, a) = (quants.as_ptr().add(k * QK), x.quants.as_ptr().add(k * QK));
            i32x4_add(
                dot_bytes(load16(w), load16(a), true),
                dot_bytes(load16(w.add(16)), load16(a.add(16)), true),
            )
        };
        acc[k % 2] = f32x4_add(
            acc[k % 2],
            f32x4_mul(f32x4_convert_i32x4(s), f32x4_splat(scales[k] * x.scale(k))),
        );
    }
    hsum(f32x4_add(acc[0], acc[1]))
}

/// [`super::int_dot::dot_q4_1`]: `w` as Q4_1 blocks (host layout) times 8-bit
/// activations.
pub(super) fn int_dot_q4_1(d: &[f32], m: &[f32], nibbles: &[u8], x: Q8Row) -> f32 {
    let n = d
        .len()
        .min(m.len())
        .min(nibbles.len() / (QK / 2))
        .min(x.sums.len())
        .min(x.quants.len() / QK);
    let mask = u8x16_splat(0x0f);
    let mut acc = [f32x4_splat(0.0); 2];
    let mut mins = 0f32;
    for k in 0..n {
        // SAFETY: block `k < n` spans 16 bytes of `nibbles` and 32 of `x.quants`.
        let s = unsafe {
            let bytes = load16(nibbles.as_ptr().add(k * QK / 2));
            let a = x.quants.as_ptr().add(k * QK);
            i32x4_add(
                dot_bytes(v128_and(bytes, mask), load16(a), false),
                dot_bytes(u8x16_shr(bytes, 4), load16(a.add(16)), false),
            )
        };
        acc[k % 2] = f32x4_add(
            acc[k % 2],
            f32x4_mul(f32x4_convert_i32x4(s), f32x4_splat(d[k] * x.scale(k))),
        );
        mins += m[k] * x.sums[k];
    }
    hsum(f32x4_add(acc[0], acc[1])) + mins
}

/// Activation rows per prefill tile of [`gemm_q4_1`].
const TILE: usize = 8;

/// [`super::int_dot::gemm_q4_1`] on simd128 (prefill: `rows` Q4_1 weight rows times the
/// first `t` rows of `x`, written `out[row * t + token]`). One dot product per (row,
/// token) ([`int_dot_q4_1`]) unpacks and widens every weight block again for each
/// token and widens the token's bytes again for each row, so a prompt ran no faster
/// per token than decode steps (41 against 40 tokens/s in the browser). Here each
/// token's activation row is widened to i16 once per call, each weight block is
/// unpacked and widened once per tile of up to [`TILE`] tokens, and the inner loop is
/// four loads and four `i32x4.dot_i16x8_s` per (block, token), as AVX2's tile
/// (`int_dot_avx2::gemm_q4_1`) is.
pub(super) fn gemm_q4_1(w: Q4_1Rows, x: &Q8Activations, t: usize, out: &mut [f32]) {
    let Q4_1Rows { d, m, nibbles, rows } = w;
    let cols = x.cols();
    let nb = cols / QK;
    assert!(
        cols.is_multiple_of(QK) && x.block() == QK && x.len() >= t,
        "activations rounded in blocks of 32, at least {t} rows"
    );
    assert!(
        d.len() == rows * nb
            && m.len() == d.len()
            && nibbles.len() * 2 == rows * cols
            && out.len() == rows * t,
        "Q4_1 rows of {cols}"
    );
    // Every token's activations as i16 (`a16[i * cols + j]`: 69-184 KB for a 60-token
    // prompt, read from L2) and their block scales, in tiles of TILE tokens, block-major
    // within a tile (`scales[TILE * (nb * k + b) + i]` for token `TILE k + i`).
    let tiles = t.div_ceil(TILE);
    let mut a16 = vec![0i16; tiles * TILE * cols];
    let mut scales = vec![0f32; tiles * TILE * nb];
    for i in 0..t {
        let row = x.row(i);
        a16[i * cols..(i + 1) * cols]
            .iter_mut()
            .zip(row.quants)
            .for_each(|(w, &q)| *w = i16::from(q));
        for b in 0..nb {
            scales[TILE * (nb * (i / TILE) + b) + i % TILE] = row.scale(b);
        }
    }
    // Stretches of ROWS weight rows (9-24 KB) stay in L1 while every tile of tokens
    // passes over them, so each weight byte comes from memory once per call.
    for r0 in (0..rows).step_by(ROWS) {
        for k in 0..tiles {
            let (t0, n) = (k * TILE, (t - k * TILE).min(TILE));
            let (a, s) =
                (&a16[t0 * cols..(t0 + TILE) * cols], &scales[TILE * nb * k..TILE * nb * (k + 1)]);
            for r in r0..(r0 + ROWS).min(rows) {
                let (dr, nr) =
                    (&d[r * nb..(r + 1) * nb], &nibbles[r * cols / 2..(r + 1) * cols / 2]);
                let o = &mut out[r * t + t0..r * t + t0 + n];
                // (Const generics: the accumulators stay in registers.)
                by_tile_width!(n, [8, 7, 6, 5, 4, 3, 2], q4_1_tile(dr, nr, a, cols, s, o));
                // The minimum term: Σ_b m[b] · (sum of block b's rounded values) per token.
                let mr = &m[r * nb..(r + 1) * nb];
                for (i, o) in o.iter_mut().enumerate() {
                    *o += dot_f32(mr, x.row(t0 + i).sums);
                }
            }
        }
    }
}

/// Weight rows per stretch of [`gemm_q4_1`].
const ROWS: usize = 32;

/// `o[i] = Σ_b d[b] · scales[TILE b + i] · Σ_j q_bj a16[i cols + 32 b + j]` for the
/// `N` activation rows of the tile and one Q4_1 weight row (`d`: its blocks' scales,
/// `nib`: their 16 bytes each).
#[inline(always)]
fn q4_1_tile<const N: usize>(
    d: &[f32],
    nib: &[u8],
    a16: &[i16],
    cols: usize,
    scales: &[f32],
    o: &mut [f32],
) {
    let nb = d.len();
    assert!(
        N <= TILE
            && nib.len() == nb * QK / 2
            && nb * QK <= cols
            && a16.len() >= N * cols
            && scales.len() >= TILE * nb
            && o.len() == N
    );
    let mask = u8x16_splat(0x0f);
    let mut acc = [f32x4_splat(0.0); N];
    let (pn, pa) = (nib.as_ptr(), a16.as_ptr());
    for b in 0..nb {
        // SAFETY: block `b < nb` spans bytes `16 b .. 16 b + 16` of `nib`, and values
        // `i cols + 32 b .. i cols + 32 b + 32` of `a16` for `i < N` (asserted above).
        unsafe {
            let bytes = load16(pn.add(b * QK / 2));
            let (lo, hi) = (v128_and(bytes, mask), u8x16_shr(bytes, 4));
            // Values 0-7, 8-15 (low nibbles), 16-23, 24-31 (high nibbles) as i16.
            let w = [
                u16x8_extend_low_u8x16(lo),
                u16x8_extend_high_u8x16(lo),
                u16x8_extend_low_u8x16(hi),
                u16x8_extend_high_u8x16(hi),
            ];
            let db = d[b];
            for (i, acc) in acc.iter_mut().enumerate() {
                let a = pa.add(i * cols + b * QK);
                let s = i32x4_add(
                    i32x4_add(
                        i32x4_dot_i16x8(w[0], load16(a)),
                        i32x4_dot_i16x8(w[1], load16(a.add(8))),
                    ),
                    i32x4_add(
                        i32x4_dot_i16x8(w[2], load16(a.add(16))),
                        i32x4_dot_i16x8(w[3], load16(a.add(24))),
                    ),
                );
                *acc = f32x4_add(
                    *acc,
                    f32x4_mul(f32x4_convert_i32x4(s), f32x4_splat(db * scales[TILE * b + i])),
                );
            }
        }
    }
    for (o, acc) in o.iter_mut().zip(acc) {
        *o = hsum(acc);
    }
}

/// [`super::int_dot::dot_blocks`] for Q4_K: `row` whole super-blocks times 8-bit
/// activations.
pub(super) fn int_dot_q4_k(row: &[u8], x: Q8Row) -> f32 {
    use crate::formats::{f16_at, q4_k, QK_K};
    let n =
        (row.len() / q4_k::BLOCK_BYTES).min(x.sums.len() / (QK_K / QK)).min(x.quants.len() / QK_K);
    let mask = u8x16_splat(0x0f);
    let mut acc = [f32x4_splat(0.0); 2];
    let mut mins = 0f32;
    for i in 0..n {
        let b = &row[i * q4_k::BLOCK_BYTES..(i + 1) * q4_k::BLOCK_BYTES];
        let (d, dmin) = (f16_at(b, 0), f16_at(b, 2));
        for p in 0..QK_K / 64 {
            let (sc1, m1) = q4_k::scale_min(2 * p, &b[4..16]);
            let (sc2, m2) = q4_k::scale_min(2 * p + 1, &b[4..16]);
            let k = i * 8 + 2 * p;
            // SAFETY: bytes `16 + 32 p .. 48 + 32 p` of the 144-byte block, and
            // activation blocks `k`, `k + 1 < 8 n`.
            let (s1, s2) = unsafe {
                let q = b.as_ptr().add(16 + 32 * p);
                let (q0, q1) = (load16(q), load16(q.add(16)));
                let (a1, a2) = (x.quants.as_ptr().add(k * QK), x.quants.as_ptr().add((k + 1) * QK));
                (
                    i32x4_add(
                        dot_bytes(v128_and(q0, mask), load16(a1), false),
                        dot_bytes(v128_and(q1, mask), load16(a1.add(16)), false),
                    ),
                    i32x4_add(
                        dot_bytes(u8x16_shr(q0, 4), load16(a2), false),
                        dot_bytes(u8x16_shr(q1, 4), load16(a2.add(16)), false),
                    ),
                )
            };
            acc[0] = f32x4_add(
                acc[0],
                f32x4_mul(f32x4_convert_i32x4(s1), f32x4_splat(d * f32::from(sc1) * x.scale(k))),
            );
            acc[1] = f32x4_add(
                acc[1],
                f32x4_mul(
                    f32x4_convert_i32x4(s2),
                    f32x4_splat(d * f32::from(sc2) * x.scale(k + 1)),
                ),
            );
            mins += dmin * (f32::from(m1) * x.sums[k] + f32::from(m2) * x.sums[k + 1]);
        }
    }
    hsum(f32x4_add(acc[0], acc[1])) - mins
}
