//! The AVX2 versions of [`super::int_dot`]'s kernels (x86-64, chosen at run time):
//! 32 byte products per `_mm256_maddubs_epi16` (unsigned weights × signed
//! activations, pairs summed to i16) then `_mm256_madd_epi16` (pairs to i32, times 1
//! or a sub-block scale); one float multiply-add per block of 32 (Q8_0, Q4_1, Q4_0,
//! Q5_0, Q5_1: their fifth bits spread to bytes as ggml's `bytes_from_bits_32`) or per
//! super-block of 256 (Q4_K, Q5_K, Q6_K, whose activations share one scale per 256,
//! so the sub-block scales are applied in integers as ggml's `q8_K` kernels do). The
//! limits: a pair of products must fit an i16, which holds for 6-bit weights
//! (63 · 127 · 2) and for Q8_0 with the sign trick (|w| ≤ 128, |a| ≤ 127: 32,512);
//! a super-block's sum fits an i32 (Q6_K: 16 · 16 · 32 · 127 · 128 < 2^31).
//! Prefill tiles (one weight row by several activation rows, the weights unpacked
//! once per tile): Q4_1 and Q8_0 (8 rows), Q4_K (4 rows; its scales unpacked once per
//! weight row). Layouts as in `formats/`; the tests in `int_dot` compare each
//! kernel with exact sums and each tile with one dot product per pair.

use std::arch::x86_64::*;

use crate::formats::{f16_at, q4_0, q4_k, q5_0, q5_1, q5_k, q6_k, QK, QK_K};

use super::q8_activations::{Q8Activations, Q8Row};
use crate::avx2::{hsum, nibble_values, store_sums};
use crate::tile_width::by_tile_width;
use crate::{Q4_1Rows, Q8_0Rows};

/// 32 activation bytes of block `k`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn act(x: &Q8Row, k: usize) -> __m256i {
    _mm256_loadu_si256(x.quants.as_ptr().add(k * QK) as *const __m256i)
}

/// Σ of unsigned `q` (each < 128) times signed `a`, eight i32 partial sums.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn sum_u8_i8(q: __m256i, a: __m256i) -> __m256i {
    _mm256_madd_epi16(_mm256_maddubs_epi16(q, a), _mm256_set1_epi16(1))
}

/// # Safety
/// AVX2 and FMA; `quants.len() == x.quants.len() == 32 * scales.len()`, `x` rounded in
/// blocks of 32.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn dot_q8_0(scales: &[f32], quants: &[i8], x: Q8Row) -> f32 {
    debug_assert_eq!(x.shift, 0);
    let n = scales.len().min(quants.len() / QK).min(x.sums.len()).min(x.scales.len());
    // Block `k`'s `Σ w a` (|w| · (a with w's sign): unsigned × signed for maddubs).
    // (Macros, not closures: closures do not inherit `target_feature`.)
    macro_rules! sum {
        ($k:expr) => {{
            let w = _mm256_loadu_si256(quants.as_ptr().add($k * QK) as *const __m256i);
            let a = act(&x, $k);
            _mm256_cvtepi32_ps(_mm256_madd_epi16(
                _mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(a, w)),
                _mm256_set1_epi16(1),
            ))
        }};
    }
    let (mut acc0, mut acc1) = (_mm256_setzero_ps(), _mm256_setzero_ps());
    let mut k = 0;
    // Eight blocks at a time: their eight scale products in one multiplication.
    while k + 8 <= n {
        let mut ds = [0f32; 8];
        _mm256_storeu_ps(
            ds.as_mut_ptr(),
            _mm256_mul_ps(
                _mm256_loadu_ps(scales.as_ptr().add(k)),
                _mm256_loadu_ps(x.scales.as_ptr().add(k)),
            ),
        );
        for j in (0..8).step_by(2) {
            acc0 = _mm256_fmadd_ps(sum!(k + j), _mm256_broadcast_ss(&ds[j]), acc0);
            acc1 = _mm256_fmadd_ps(sum!(k + j + 1), _mm256_broadcast_ss(&ds[j + 1]), acc1);
        }
        k += 8;
    }
    while k < n {
        acc0 = _mm256_fmadd_ps(sum!(k), _mm256_set1_ps(scales[k] * x.scales[k]), acc0);
        k += 1;
    }
    hsum(_mm256_add_ps(acc0, acc1))
}

/// # Safety
/// AVX2 and FMA; `x.quants.len() == 2 * nibbles.len() == 32 * d.len() == 32 * m.len()`,
/// `x` rounded in blocks of 32.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn dot_q4_1(d: &[f32], m: &[f32], nibbles: &[u8], x: Q8Row) -> f32 {
    debug_assert_eq!(x.shift, 0);
    let n =
        d.len().min(m.len()).min(nibbles.len() / (QK / 2)).min(x.sums.len()).min(x.scales.len());
    // Block `k`'s `Σ q a`.
    macro_rules! sum {
        ($k:expr) => {{
            let q = nibble_values(nibbles.as_ptr().add($k * QK / 2));
            _mm256_cvtepi32_ps(sum_u8_i8(q, act(&x, $k)))
        }};
    }
    let (mut acc0, mut acc1, mut mins) =
        (_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps());
    let mut k = 0;
    // Eight blocks at a time: their scale products and minimum terms in vectors.
    while k + 8 <= n {
        let mut ds = [0f32; 8];
        _mm256_storeu_ps(
            ds.as_mut_ptr(),
            _mm256_mul_ps(
                _mm256_loadu_ps(d.as_ptr().add(k)),
                _mm256_loadu_ps(x.scales.as_ptr().add(k)),
            ),
        );
        mins = _mm256_fmadd_ps(
            _mm256_loadu_ps(m.as_ptr().add(k)),
            _mm256_loadu_ps(x.sums.as_ptr().add(k)),
            mins,
        );
        for j in (0..8).step_by(2) {
            acc0 = _mm256_fmadd_ps(sum!(k + j), _mm256_broadcast_ss(&ds[j]), acc0);
            acc1 = _mm256_fmadd_ps(sum!(k + j + 1), _mm256_broadcast_ss(&ds[j + 1]), acc1);
        }
        k += 8;
    }
    let mut tail = 0f32;
    while k < n {
        acc0 = _mm256_fmadd_ps(sum!(k), _mm256_set1_ps(d[k] * x.scales[k]), acc0);
        tail += m[k] * x.sums[k];
        k += 1;
    }
    hsum(_mm256_add_ps(acc0, acc1)) + hsum(mins) + tail
}

/// # Safety
/// AVX2 and FMA; `row` whole Q4_K blocks of as many values as `x` holds, `x` rounded
/// in blocks of 256 (one scale per super-block).
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn dot_q4_k(row: &[u8], x: Q8Row) -> f32 {
    dot_q45_k::<false>(row, x)
}

/// # Safety
/// AVX2 and FMA; `row` whole Q6_K blocks of as many values as `x` holds, `x` rounded
/// in blocks of 256 (one scale per super-block).
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn dot_q6_k(row: &[u8], x: Q8Row) -> f32 {
    debug_assert_eq!(x.shift, 3);
    let n = (row.len() / q6_k::BLOCK_BYTES).min(x.scales.len()).min(x.sums.len() / 8);
    let (m4, m3) = (_mm256_set1_epi8(0x0f), _mm256_set1_epi8(3));
    let offset = _mm256_set1_epi8(32);
    let mut acc = _mm256_setzero_ps();
    for i in 0..n {
        let b = &row[i * q6_k::BLOCK_BYTES..(i + 1) * q6_k::BLOCK_BYTES];
        let d = f16_at(b, 208);
        // The super-block's Σ sc Σ (q - 32) a over its sixteen 16-value groups.
        let mut sum = _mm256_setzero_si256();
        for half in 0..2 {
            let p = b.as_ptr().add(64 * half);
            let (ql0, ql1) = (
                _mm256_loadu_si256(p as *const __m256i),
                _mm256_loadu_si256(p.add(32) as *const __m256i),
            );
            let qh = _mm256_loadu_si256(b.as_ptr().add(128 + 32 * half) as *const __m256i);
            // (A macro, not a closure: closures do not inherit `target_feature`.)
            macro_rules! high {
                ($shift:literal) => {
                    _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, $shift), m3), 4)
                };
            }
            // The four quarters of the half, values 0..64 (q + 32).
            let quarters = [
                _mm256_or_si256(_mm256_and_si256(ql0, m4), high!(0)),
                _mm256_or_si256(_mm256_and_si256(ql1, m4), high!(2)),
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), m4), high!(4)),
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), m4), high!(6)),
            ];
            let sc = &b[192 + 8 * half..200 + 8 * half];
            for (c, q) in quarters.into_iter().enumerate() {
                let a = act(&x, i * 8 + 4 * half + c);
                // Σ (q - 32) a in pairs, then times each 16 values' scale.
                let pairs =
                    _mm256_sub_epi16(_mm256_maddubs_epi16(q, a), _mm256_maddubs_epi16(offset, a));
                let scales = _mm256_set_m128i(
                    _mm_set1_epi16(i16::from(sc[2 * c + 1] as i8)),
                    _mm_set1_epi16(i16::from(sc[2 * c] as i8)),
                );
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(pairs, scales));
            }
        }
        acc = _mm256_fmadd_ps(
            _mm256_cvtepi32_ps(sum),
            _mm256_set1_ps(d * *x.scales.get_unchecked(i)),
            acc,
        );
    }
    hsum(acc)
}

/// The 32 bits at `p` as 32 bytes, byte `j` 0xff where bit `j` is set (ggml's
/// `bytes_from_bits_32`).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn bytes_from_bits(p: *const u8) -> __m256i {
    let bits = std::ptr::read_unaligned(p as *const u32) as i32;
    let shuffle =
        _mm256_set_epi64x(0x0303_0303_0303_0303, 0x0202_0202_0202_0202, 0x0101_0101_0101_0101, 0);
    let bytes = _mm256_shuffle_epi8(_mm256_set1_epi32(bits), shuffle);
    let mask = _mm256_set1_epi64x(0x7fbf_dfef_f7fb_fdfe);
    _mm256_cmpeq_epi8(_mm256_or_si256(bytes, mask), _mm256_set1_epi64x(-1))
}

/// The blocks of 32 without a host layout: Q4_0 (`T = 0`: `d`, 16 nibble bytes;
/// `(q - 8) d`), Q5_0 (`T = 1`: `d`, 32 high bits, nibbles; `(q - 16) d`) and Q5_1
/// (`T = 2`: `d`, `m`, high bits, nibbles; `q d + m`). Value `j` of a block is the low
/// nibble of byte `j` (`j < 16`) or the high nibble of byte `j - 16`, plus 16 where
/// bit `j` of the high bits is set.
///
/// # Safety
/// AVX2 and FMA; `row` whole blocks of the type, as many values as `x` holds, `x`
/// rounded in blocks of 32.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn dot_q32<const T: u8>(row: &[u8], x: Q8Row) -> f32 {
    debug_assert_eq!(x.shift, 0);
    let (bytes, high, nibbles, offset) = match T {
        0 => (q4_0::BLOCK_BYTES, None, 2, 8),
        1 => (q5_0::BLOCK_BYTES, Some(2), 6, 16),
        _ => (q5_1::BLOCK_BYTES, Some(4), 8, 0),
    };
    let n = (row.len() / bytes).min(x.scales.len()).min(x.sums.len());
    let (bit4, off) = (_mm256_set1_epi8(0x10), _mm256_set1_epi8(offset));
    let (mut acc0, mut acc1) = (_mm256_setzero_ps(), _mm256_setzero_ps());
    let mut mins = 0f32;
    for k in 0..n {
        let b = row.as_ptr().add(k * bytes);
        let mut q = nibble_values(b.add(nibbles));
        if let Some(h) = high {
            q = _mm256_or_si256(q, _mm256_and_si256(bytes_from_bits(b.add(h)), bit4));
        }
        let a = act(&x, k);
        // Σ (q - offset) a in pairs (each within an i16: 31 · 127 · 2).
        let mut pairs = _mm256_maddubs_epi16(q, a);
        if offset != 0 {
            pairs = _mm256_sub_epi16(pairs, _mm256_maddubs_epi16(off, a));
        }
        let sum = _mm256_cvtepi32_ps(_mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
        let block = std::slice::from_raw_parts(b, bytes);
        let ds = _mm256_set1_ps(f16_at(block, 0) * *x.scales.get_unchecked(k));
        if k % 2 == 0 {
            acc0 = _mm256_fmadd_ps(sum, ds, acc0);
        } else {
            acc1 = _mm256_fmadd_ps(sum, ds, acc1);
        }
        if T == 2 {
            mins += f16_at(block, 2) * *x.sums.get_unchecked(k);
        }
    }
    hsum(_mm256_add_ps(acc0, acc1)) + mins
}

/// # Safety
/// AVX2 and FMA; `row` whole Q5_K blocks of as many values as `x` holds, `x` rounded
/// in blocks of 256 (one scale per super-block).
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn dot_q5_k(row: &[u8], x: Q8Row) -> f32 {
    dot_q45_k::<true>(row, x)
}

/// [`dot_q4_k`] (`FIFTH` false) and [`dot_q5_k`] (`FIFTH` true): a Q5_K super-block is a
/// Q4_K one (`d`, `dmin`, the packed scales and minimums, then the low nibbles) with 32
/// bytes of fifth bits before the nibbles. The branches on `FIFTH` are resolved at
/// compile time: each instance is the kernel it was alone.
///
/// # Safety
/// As [`dot_q4_k`] and [`dot_q5_k`].
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_q45_k<const FIFTH: bool>(row: &[u8], x: Q8Row) -> f32 {
    debug_assert_eq!(x.shift, 3);
    let (block_bytes, nibbles_at) =
        if FIFTH { (q5_k::BLOCK_BYTES, 48) } else { (q4_k::BLOCK_BYTES, 16) };
    let n = (row.len() / block_bytes).min(x.scales.len()).min(x.sums.len() / 8);
    let (low, one) = (_mm256_set1_epi8(0x0f), _mm256_set1_epi8(1));
    let (mut acc, mut mins) = (_mm256_setzero_ps(), _mm256_setzero_ps());
    for i in 0..n {
        let b = &row[i * block_bytes..(i + 1) * block_bytes];
        let (d, dmin) = (f16_at(b, 0), f16_at(b, 2));
        let (mut sc, mut mn) = ([0u8; 8], [0u8; 8]);
        for j in 0..8 {
            (sc[j], mn[j]) = q4_k::scale_min(j, &b[4..16]);
        }
        // Q5_K: bit `s` of high byte `l` is the fifth bit of value `l` of sub-block `s`.
        let qh = if FIFTH {
            _mm256_loadu_si256(b.as_ptr().add(16) as *const __m256i)
        } else {
            _mm256_setzero_si256()
        };
        // (A macro, not a closure: closures do not inherit `target_feature`.)
        macro_rules! high {
            ($s:expr) => {
                _mm256_slli_epi16(
                    _mm256_and_si256(_mm256_srl_epi16(qh, _mm_cvtsi32_si128($s)), one),
                    4,
                )
            };
        }
        // The super-block's Σ sc_s Σ q a over its eight sub-blocks, in integers (values
        // < 32: a pair of products fits an i16).
        let mut sum = _mm256_setzero_si256();
        for p in 0..QK_K / 64 {
            let q = _mm256_loadu_si256(b.as_ptr().add(nibbles_at + 32 * p) as *const __m256i);
            let k = i * 8 + 2 * p;
            let (mut q1, mut q2) =
                (_mm256_and_si256(q, low), _mm256_and_si256(_mm256_srli_epi16(q, 4), low));
            if FIFTH {
                q1 = _mm256_or_si256(q1, high!(2 * p as i32));
                q2 = _mm256_or_si256(q2, high!(2 * p as i32 + 1));
            }
            let p1 = _mm256_maddubs_epi16(q1, act(&x, k));
            let p2 = _mm256_maddubs_epi16(q2, act(&x, k + 1));
            sum = _mm256_add_epi32(
                sum,
                _mm256_madd_epi16(p1, _mm256_set1_epi16(i16::from(sc[2 * p]))),
            );
            sum = _mm256_add_epi32(
                sum,
                _mm256_madd_epi16(p2, _mm256_set1_epi16(i16::from(sc[2 * p + 1]))),
            );
        }
        acc = _mm256_fmadd_ps(
            _mm256_cvtepi32_ps(sum),
            _mm256_set1_ps(d * *x.scales.get_unchecked(i)),
            acc,
        );
        // The minimums against the sums of the eight sub-blocks' rounded activations.
        let m = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(
            mn.as_ptr() as *const __m128i
        )));
        let sums = _mm256_loadu_ps(x.sums.as_ptr().add(i * 8));
        mins = _mm256_fmadd_ps(_mm256_mul_ps(m, _mm256_set1_ps(dmin)), sums, mins);
    }
    hsum(acc) - hsum(mins)
}

/// [`super::int_dot::gemm_q4_1`]: tiles of one Q4_1 weight row by up to 8 activation
/// rows, each weight block unpacked once per tile.
///
/// # Safety
/// AVX2 and FMA; the lengths as `super::int_dot::gemm_q4_1` checks them.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn gemm_q4_1(w: Q4_1Rows, x: &Q8Activations, t: usize, out: &mut [f32]) {
    let Q4_1Rows { d, m, nibbles, rows } = w;
    let nb = d.len() / rows.max(1);
    let mut t0 = 0;
    // The tile's activation scales, block-major (`scales[8 b + i]`), and its rows.
    let mut scales = vec![0f32; nb * 8];
    while t0 < t {
        let n = (t - t0).min(8);
        let tile: Vec<Q8Row> = (t0..t0 + n).map(|i| x.row(i)).collect();
        for (i, r) in tile.iter().enumerate() {
            for b in 0..nb {
                scales[8 * b + i] = r.scale(b);
            }
        }
        let mut a = [tile[0].quants.as_ptr(); 8];
        for (i, r) in tile.iter().enumerate() {
            a[i] = r.quants.as_ptr();
        }
        for r in 0..rows {
            let (dr, nr) = (d.as_ptr().add(r * nb), nibbles.as_ptr().add(r * nb * QK / 2));
            let o = out.as_mut_ptr().add(r * t + t0);
            // (Const generics: the accumulators stay in registers.)
            by_tile_width!(n, [8, 7, 6, 5, 4, 3, 2], q4_1_tile(dr, nr, nb, &a, scales.as_ptr(), o));
            // The minimum term: Σ_b m[b] · (sum of block b's rounded values) per activation row.
            let mr = &m[r * nb..(r + 1) * nb];
            for (i, row) in tile.iter().enumerate() {
                *o.add(i) += dot_f32(mr, row.sums);
            }
        }
        t0 += n;
    }
}

/// `o[i] = Σ_b d[b] · s_i[b] · Σ_j q_bj a_i[32 b + j]` for `N` activation rows `a_i`
/// with block scales `s_i[b] = scales[8 b + i]`.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn q4_1_tile<const N: usize>(
    d: *const f32,
    nib: *const u8,
    nb: usize,
    a: &[*const i8; 8],
    scales: *const f32,
    o: *mut f32,
) {
    let mut acc = [_mm256_setzero_ps(); N];
    for b in 0..nb {
        let q = nibble_values(nib.add(b * QK / 2));
        let db = _mm256_set1_ps(*d.add(b));
        for (i, acc) in acc.iter_mut().enumerate() {
            let s = sum_u8_i8(q, _mm256_loadu_si256(a[i].add(b * QK) as *const __m256i));
            let ds = _mm256_mul_ps(db, _mm256_broadcast_ss(&*scales.add(8 * b + i)));
            *acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), ds, *acc);
        }
    }
    store_sums(acc, o);
}

/// Activation rows `t0..t0 + n` of `x` as pointers (at most 8), for the tiles.
fn tile_rows<'a>(x: &'a Q8Activations, t0: usize, n: usize) -> Vec<Q8Row<'a>> {
    (t0..t0 + n).map(|i| x.row(i)).collect()
}

/// Prefill's `x · Wᵀ` for `rows` Q8_0 weight rows in the host layout (`scales`: one
/// per block, `quants`: the i8 values), tiles of one weight row by up to 8 activation
/// rows, each weight block's signs taken once per tile. `out[row * t + token]`.
///
/// # Safety
/// AVX2 and FMA; `scales.len() == rows * cols / 32`, `quants.len() == rows * cols`,
/// `x` rounded in blocks of 32 with at least `t` rows, `out.len() == rows * t`.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn gemm_q8_0(w: Q8_0Rows, x: &Q8Activations, t: usize, out: &mut [f32]) {
    let Q8_0Rows { scales, quants, rows } = w;
    let nb = scales.len() / rows.max(1);
    let mut t0 = 0;
    while t0 < t {
        let n = (t - t0).min(8);
        let tile = tile_rows(x, t0, n);
        for r in 0..rows {
            let (s, q) = (scales.as_ptr().add(r * nb), quants.as_ptr().add(r * nb * QK));
            let o = out.as_mut_ptr().add(r * t + t0);
            by_tile_width!(n, [8, 7, 6, 5, 4, 3, 2], q8_0_tile(s, q, nb, &tile, o));
        }
        t0 += n;
    }
}

/// `o[i] = Σ_b d[b] · s_i[b] · Σ_j w_bj a_i[32 b + j]` for the `N` rows of `tile`.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn q8_0_tile<const N: usize>(
    d: *const f32,
    w: *const i8,
    nb: usize,
    tile: &[Q8Row],
    o: *mut f32,
) {
    let mut acc = [_mm256_setzero_ps(); N];
    for b in 0..nb {
        let wb = _mm256_loadu_si256(w.add(b * QK) as *const __m256i);
        let abs = _mm256_sign_epi8(wb, wb);
        let db = *d.add(b);
        for (i, acc) in acc.iter_mut().enumerate() {
            let row = tile.get_unchecked(i);
            let a = act(row, b);
            let s = _mm256_madd_epi16(
                _mm256_maddubs_epi16(abs, _mm256_sign_epi8(a, wb)),
                _mm256_set1_epi16(1),
            );
            *acc = _mm256_fmadd_ps(
                _mm256_cvtepi32_ps(s),
                _mm256_set1_ps(db * *row.scales.get_unchecked(b)),
                *acc,
            );
        }
    }
    store_sums(acc, o);
}

/// Prefill's `x · Wᵀ` for `rows` Q4_K weight rows (`row_bytes` each): per weight row,
/// its super-blocks' scales and minimums are unpacked once, then the row is
/// multiplied with tiles of up to 4 activation rows (three accumulators each stay in
/// registers), its nibbles unpacked once per tile. `out[row * t + token]`, without the
/// rows' factors.
///
/// # Safety
/// AVX2 and FMA; `bytes.len() == rows * row_bytes`, whole Q4_K blocks of `x`'s
/// width, `x` rounded in blocks of 256 with at least `t` rows, `out.len() == rows * t`.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn gemm_q4_k(
    bytes: &[u8],
    row_bytes: usize,
    rows: usize,
    x: &Q8Activations,
    t: usize,
    out: &mut [f32],
) {
    let nsb = row_bytes / q4_k::BLOCK_BYTES;
    let acts = tile_rows(x, 0, t);
    let mut unpacked = vec![Q4kScales { d: 0.0, sc: [0; 8], mins: _mm256_setzero_ps() }; nsb];
    for r in 0..rows {
        let row = &bytes[r * row_bytes..(r + 1) * row_bytes];
        for (u, b) in unpacked.iter_mut().zip(row.chunks_exact(q4_k::BLOCK_BYTES)) {
            let mut mn = [0u8; 8];
            for (j, (sc_j, mn_j)) in u.sc.iter_mut().zip(&mut mn).enumerate() {
                let (sc, m) = q4_k::scale_min(j, &b[4..16]);
                (*sc_j, *mn_j) = (i16::from(sc), m);
            }
            u.d = f16_at(b, 0);
            let m = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(
                mn.as_ptr() as *const __m128i
            )));
            u.mins = _mm256_mul_ps(m, _mm256_set1_ps(f16_at(b, 2)));
        }
        let o = out.as_mut_ptr().add(r * t);
        let mut t0 = 0;
        while t0 < t {
            let n = (t - t0).min(4);
            let tile = &acts[t0..t0 + n];
            by_tile_width!(n, [4, 3, 2], q4_k_tile(row, &unpacked, tile, o.add(t0)));
            t0 += n;
        }
    }
}

/// A Q4_K super-block's unpacked scales: `d`, the eight sub-block scales, and the
/// eight minimums times `dmin`.
#[derive(Clone, Copy)]
struct Q4kScales {
    d: f32,
    sc: [i16; 8],
    mins: __m256,
}

/// [`dot_q4_k`] for the `N` rows of `tile` at once, the scales unpacked.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn q4_k_tile<const N: usize>(
    row: &[u8],
    unpacked: &[Q4kScales],
    tile: &[Q8Row],
    o: *mut f32,
) {
    let low = _mm256_set1_epi8(0x0f);
    let (mut acc, mut mins) = ([_mm256_setzero_ps(); N], [_mm256_setzero_ps(); N]);
    for (i, (b, u)) in row.chunks_exact(q4_k::BLOCK_BYTES).zip(unpacked).enumerate() {
        let mut sum = [_mm256_setzero_si256(); N];
        for p in 0..QK_K / 64 {
            let q = _mm256_loadu_si256(b.as_ptr().add(16 + 32 * p) as *const __m256i);
            let (lo, hi) =
                (_mm256_and_si256(q, low), _mm256_and_si256(_mm256_srli_epi16(q, 4), low));
            let (s1, s2) = (_mm256_set1_epi16(u.sc[2 * p]), _mm256_set1_epi16(u.sc[2 * p + 1]));
            let k = i * 8 + 2 * p;
            for (n, sum) in sum.iter_mut().enumerate() {
                let x = tile.get_unchecked(n);
                let p1 = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, act(x, k)), s1);
                let p2 = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, act(x, k + 1)), s2);
                *sum = _mm256_add_epi32(*sum, _mm256_add_epi32(p1, p2));
            }
        }
        for n in 0..N {
            let x = tile.get_unchecked(n);
            acc[n] = _mm256_fmadd_ps(
                _mm256_cvtepi32_ps(sum[n]),
                _mm256_set1_ps(u.d * *x.scales.get_unchecked(i)),
                acc[n],
            );
            mins[n] = _mm256_fmadd_ps(u.mins, _mm256_loadu_ps(x.sums.as_ptr().add(i * 8)), mins[n]);
        }
    }
    for n in 0..N {
        *o.add(n) = hsum(acc[n]) - hsum(mins[n]);
    }
}

/// `a · b` over f32 rows of equal length (the minimum terms).
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let mut acc = _mm256_setzero_ps();
    let mut i = 0;
    while i + 8 <= n {
        acc = _mm256_fmadd_ps(
            _mm256_loadu_ps(a.as_ptr().add(i)),
            _mm256_loadu_ps(b.as_ptr().add(i)),
            acc,
        );
        i += 8;
    }
    let mut sum = hsum(acc);
    while i < n {
        sum += a[i] * b[i];
        i += 1;
    }
    sum
}
