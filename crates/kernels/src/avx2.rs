//! AVX2 pieces the x86-64 kernels share: those with f32 activations
//! ([`crate::host_kernels`]) and the integer ones on 8-bit activations
//! (`int_dot_avx2.rs`). The horizontal sum, the values of 32 packed nibbles (the
//! layout of the Q4_0, Q4_1, Q5_0 and Q5_1 blocks) and a tile's sums stored.

use std::arch::x86_64::*;

/// The sum of the eight lanes of `v`.
///
/// # Safety
/// AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn hsum(v: __m256) -> f32 {
    let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    let s = _mm_add_ss(s, _mm_movehdup_ps(s));
    _mm_cvtss_f32(s)
}

/// The 32 values packed in the 16 bytes at `p` (value `j` in the low nibble of byte
/// `j`, value `j + 16` in its high nibble), a byte each: values 0..16 and 16..32.
///
/// # Safety
/// AVX2; 16 bytes readable at `p`.
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn nibble_halves(p: *const u8) -> (__m128i, __m128i) {
    let low = _mm_set1_epi8(0x0f);
    let bytes = _mm_loadu_si128(p as *const __m128i);
    (_mm_and_si128(bytes, low), _mm_and_si128(_mm_srli_epi16(bytes, 4), low))
}

/// [`nibble_halves`] as one vector: values 0..16 in the low lane, 16..32 in the high
/// one.
///
/// # Safety
/// As [`nibble_halves`].
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn nibble_values(p: *const u8) -> __m256i {
    let (lo, hi) = nibble_halves(p);
    _mm256_set_m128i(hi, lo)
}

/// `o[i] = hsum(acc[i])`: a tile's `N` sums stored.
///
/// # Safety
/// AVX2 and FMA; `N` floats writable at `o`.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn store_sums<const N: usize>(acc: [__m256; N], o: *mut f32) {
    for (i, acc) in acc.into_iter().enumerate() {
        *o.add(i) = hsum(acc);
    }
}
