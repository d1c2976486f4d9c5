//! Attention on the host for the CPU weight formats: RoPE, the per-layer key/value
//! store and grouped-query attention over it, all on plain `f32` slices.
//!
//! Why on the host: with the linear layers already on this crate's CPU kernels
//! (`host_matrix`), the attention was the last part of a decode step that went through
//! burn, and burn's CPU backends copied the whole cache every step (`Tensor::cat` to
//! append, then a contiguous copy of the transposed keys for the matmul): a decode step
//! at position 3,245 moved ~150 MB and ran at ~10 tok/s against ~65 on a short prompt.
//! Here appending copies only the new rows (a `Vec` that grows geometrically), rolling
//! back is `Vec::truncate`, and attention reads the cache where it lies.
//!
//! Layout: a row of the fused QKV projection is `[q heads | k heads | v heads]`, each
//! head `head_dim` wide in RoPE's half-split order (see `weights`); the store keeps
//! `[position][kv_heads * head_dim]` for keys and values alike.

use crate::host_kernels::{axpy, dot_f32};
use crate::Isa;

/// Head counts and size of one attention layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Heads {
    /// Query heads (9 for SmolLM2-135M).
    pub heads: usize,
    /// Key/value heads (3); query head `h` reads key/value head `h / (heads / kv_heads)`.
    pub kv_heads: usize,
    /// Width of a head (64).
    pub head_dim: usize,
}

impl Heads {
    /// Floats of one fused QKV row.
    pub fn qkv_width(self) -> usize {
        (self.heads + 2 * self.kv_heads) * self.head_dim
    }

    /// Floats of one cached key (or value) row: every key/value head of a position.
    pub fn kv_width(self) -> usize {
        self.kv_heads * self.head_dim
    }

    fn group(self) -> usize {
        self.heads / self.kv_heads
    }
}

/// RoPE's cos / sin of `position * base^(-2i/d)`, `[context][head_dim / 2]`, computed
/// in f64 and rounded once; shared by the host path and (as tensors) the burn path.
#[derive(Clone, Debug)]
pub struct RopeTable {
    pub half: usize,
    pub cos: Vec<f32>,
    pub sin: Vec<f32>,
}

impl RopeTable {
    /// The table for `context` positions of heads `head_dim` wide; positions are
    /// multiplied by `freq_scale` (linear RoPE scaling; 1 without).
    pub fn new(context: usize, head_dim: usize, base: f32, freq_scale: f32) -> Self {
        let half = head_dim / 2;
        let mut cos = Vec::with_capacity(context * half);
        let mut sin = Vec::with_capacity(context * half);
        for p in 0..context {
            for i in 0..half {
                let freq = (base as f64).powf(-2.0 * i as f64 / head_dim as f64);
                let angle = p as f64 * f64::from(freq_scale) * freq;
                cos.push(angle.cos() as f32);
                sin.push(angle.sin() as f32);
            }
        }
        Self { half, cos, sin }
    }

    /// Rotates the query and key heads of `t` fused QKV rows (row `r` at position
    /// `past + r`, which the caller has checked against the context length) in place.
    pub fn rotate_qk(&self, qkv: &mut [f32], t: usize, past: usize, h: Heads) {
        let (d, half) = (h.head_dim, self.half);
        let rotated = (h.heads + h.kv_heads) * d;
        for (r, row) in qkv.chunks_exact_mut(h.qkv_width()).take(t).enumerate() {
            let p = past + r;
            let (cos, sin) =
                (&self.cos[p * half..(p + 1) * half], &self.sin[p * half..(p + 1) * half]);
            for head in row[..rotated].chunks_exact_mut(d) {
                let (x1, x2) = head.split_at_mut(half);
                for i in 0..half {
                    let (a, b) = (x1[i], x2[i]);
                    x1[i] = a * cos[i] - b * sin[i];
                    x2[i] = b * cos[i] + a * sin[i];
                }
            }
        }
    }
}

/// One layer's cached keys and values, `[position][kv_heads * head_dim]` each.
#[derive(Clone, Debug, Default)]
pub struct HostKv {
    k: Vec<f32>,
    v: Vec<f32>,
}

impl HostKv {
    /// Positions stored (including ones of a step not yet committed).
    pub fn positions(&self, h: Heads) -> usize {
        self.k.len() / h.kv_width()
    }

    /// Appends the (already rotated) keys and the values of `t` fused QKV rows: copies
    /// only the new rows (amortised O(t); the vectors grow geometrically).
    pub fn append_from_qkv(&mut self, qkv: &[f32], t: usize, h: Heads) {
        let (kw, q) = (h.kv_width(), h.heads * h.head_dim);
        self.k.reserve(t * kw);
        self.v.reserve(t * kw);
        for row in qkv.chunks_exact(h.qkv_width()).take(t) {
            self.k.extend_from_slice(&row[q..q + kw]);
            self.v.extend_from_slice(&row[q + kw..q + 2 * kw]);
        }
    }

    /// Keeps the first `len` positions (capacity is kept for the next append).
    pub fn truncate(&mut self, len: usize, h: Heads) {
        self.k.truncate(len * h.kv_width());
        self.v.truncate(len * h.kv_width());
    }

    /// Key and value of `position`'s kv head `kv_head` (tests and checks).
    #[cfg(test)]
    pub fn row(&self, position: usize, kv_head: usize, h: Heads) -> (&[f32], &[f32]) {
        let at = position * h.kv_width() + kv_head * h.head_dim;
        (&self.k[at..at + h.head_dim], &self.v[at..at + h.head_dim])
    }
}

/// Below this many new rows a step attends row by row with dot products (decode, token
/// healing); from it on, per query head and block of rows, with two sgemm calls.
const SGEMM_MIN_ROWS: usize = 8;
/// Query rows per sgemm task (bounds the score buffer to `ROW_BLOCK * positions`).
const ROW_BLOCK: usize = 64;

/// Causal grouped-query attention of the `t` newest positions: `qkv` holds their fused
/// rows (rotated), `kv` every position `0..past + t` (the new ones appended). Row `r`
/// attends to positions `0..=past + r`. Returns `[t][heads * head_dim]`.
pub fn attend(isa: Isa, qkv: &[f32], t: usize, past: usize, kv: &HostKv, h: Heads) -> Vec<f32> {
    debug_assert!(kv.positions(h) >= past + t);
    if t < SGEMM_MIN_ROWS {
        attend_rows(isa, qkv, t, past, kv, h)
    } else {
        attend_blocks(qkv, t, past, kv, h)
    }
}

/// One (row, query head) pair at a time: scores by dot products, softmax, weighted sum
/// of values. Reads each cached row once per query head; no copies.
fn attend_rows(isa: Isa, qkv: &[f32], t: usize, past: usize, kv: &HostKv, h: Heads) -> Vec<f32> {
    let (d, kw, qw, g) = (h.head_dim, h.kv_width(), h.qkv_width(), h.group());
    let mut out = vec![0f32; t * h.heads * d];
    let work = |(i, o): (usize, &mut [f32])| {
        let (r, qh) = (i / h.heads, i % h.heads);
        let kh = qh / g;
        let q = &qkv[r * qw + qh * d..r * qw + (qh + 1) * d];
        let n = past + r + 1;
        let mut scores: Vec<f32> = (0..n)
            .map(|j| dot_f32(isa, q, &kv.k[j * kw + kh * d..j * kw + (kh + 1) * d]))
            .collect();
        let sum = softmax_in_place(&mut scores);
        for (j, &p) in scores.iter().enumerate() {
            let v = &kv.v[j * kw + kh * d..j * kw + (kh + 1) * d];
            axpy(isa, p, v, o);
        }
        let inv = 1.0 / sum;
        o.iter_mut().for_each(|o| *o *= inv);
    };
    // Threads pay off once a task reads a few thousand floats of cache.
    #[cfg(not(target_family = "wasm"))]
    if past + t >= 64 {
        use rayon::prelude::*;
        out.par_chunks_mut(d).enumerate().for_each(work);
        return out;
    }
    out.chunks_mut(d).enumerate().for_each(work);
    out
}

/// Per query head and block of up to [`ROW_BLOCK`] rows: `S = Q Kᵀ` and `O = P V` by
/// `matrixmultiply`'s sgemm straight over the cache (strided, no copies), each block
/// only over the positions its last row can see.
fn attend_blocks(qkv: &[f32], t: usize, past: usize, kv: &HostKv, h: Heads) -> Vec<f32> {
    let (d, kw, qw, g) = (h.head_dim, h.kv_width(), h.qkv_width(), h.group());
    let blocks = t.div_ceil(ROW_BLOCK);
    let task = |i: usize| -> Vec<f32> {
        let (qh, b) = (i / blocks, i % blocks);
        let kh = qh / g;
        let (r0, r1) = (b * ROW_BLOCK, ((b + 1) * ROW_BLOCK).min(t));
        let (m, n) = (r1 - r0, past + r1);
        let mut s = vec![0f32; m * n];
        // S[m][n] = Q[r0..r1, head qh] · K[0..n, head kh]ᵀ. SAFETY: the last element
        // read from `qkv` is (r1 - 1) * qw + qh * d + d - 1 < t * qw, from `kv.k`
        // (n - 1) * kw + kh * d + d - 1 < (past + t) * kw; `s` is m * n.
        unsafe {
            matrixmultiply::sgemm(
                m,
                d,
                n,
                1.0,
                qkv.as_ptr().add(r0 * qw + qh * d),
                qw as isize,
                1,
                kv.k.as_ptr().add(kh * d),
                1,
                kw as isize,
                0.0,
                s.as_mut_ptr(),
                n as isize,
                1,
            );
        }
        for (row, scores) in s.chunks_exact_mut(n).enumerate() {
            let visible = past + r0 + row + 1;
            let sum = softmax_in_place(&mut scores[..visible]);
            let inv = 1.0 / sum;
            scores[..visible].iter_mut().for_each(|p| *p *= inv);
            scores[visible..].iter_mut().for_each(|p| *p = 0.0);
        }
        let mut o = vec![0f32; m * d];
        // O[m][d] = P[m][n] · V[0..n, head kh]. SAFETY: as above for `kv.v`; `o` is m * d.
        unsafe {
            matrixmultiply::sgemm(
                m,
                n,
                d,
                1.0,
                s.as_ptr(),
                n as isize,
                1,
                kv.v.as_ptr().add(kh * d),
                kw as isize,
                1,
                0.0,
                o.as_mut_ptr(),
                d as isize,
                1,
            );
        }
        o
    };
    let tasks = h.heads * blocks;
    #[cfg(not(target_family = "wasm"))]
    let results: Vec<Vec<f32>> = {
        use rayon::prelude::*;
        (0..tasks).into_par_iter().map(task).collect()
    };
    #[cfg(target_family = "wasm")]
    let results: Vec<Vec<f32>> = (0..tasks).map(task).collect();
    let row_width = h.heads * d;
    let mut out = vec![0f32; t * row_width];
    for (i, o) in results.iter().enumerate() {
        let (qh, b) = (i / blocks, i % blocks);
        for (row, src) in o.chunks_exact(d).enumerate() {
            let at = (b * ROW_BLOCK + row) * row_width + qh * d;
            out[at..at + d].copy_from_slice(src);
        }
    }
    out
}

/// Replaces scores by `exp(s - max)` and returns their sum (the caller divides).
fn softmax_in_place(scores: &mut [f32]) -> f32 {
    let max = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0f32;
    for s in scores.iter_mut() {
        *s = (*s - max).exp();
        sum += *s;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_data::values;

    const H: Heads = Heads { heads: 6, kv_heads: 2, head_dim: 8 };

    /// Straightforward f64 attention over explicit key/value lists.
    fn reference(
        qkv: &[f32],
        t: usize,
        past: usize,
        keys: &[f32],
        vals: &[f32],
        h: Heads,
    ) -> Vec<f32> {
        let (d, kw, qw) = (h.head_dim, h.kv_width(), h.qkv_width());
        let mut out = vec![0f32; t * h.heads * d];
        for r in 0..t {
            for qh in 0..h.heads {
                let kh = qh / h.group();
                let q = &qkv[r * qw + qh * d..][..d];
                let n = past + r + 1;
                let s: Vec<f64> = (0..n)
                    .map(|j| (0..d).map(|x| q[x] as f64 * keys[j * kw + kh * d + x] as f64).sum())
                    .collect();
                let max = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let e: Vec<f64> = s.iter().map(|x| (x - max).exp()).collect();
                let z: f64 = e.iter().sum();
                for x in 0..d {
                    let y: f64 = (0..n).map(|j| e[j] / z * vals[j * kw + kh * d + x] as f64).sum();
                    out[r * h.heads * d + qh * d + x] = y as f32;
                }
            }
        }
        out
    }

    fn split_kv(qkv: &[f32], t: usize, h: Heads) -> (Vec<f32>, Vec<f32>) {
        let (kw, q) = (h.kv_width(), h.heads * h.head_dim);
        let mut k = Vec::new();
        let mut v = Vec::new();
        for row in qkv.chunks_exact(h.qkv_width()).take(t) {
            k.extend_from_slice(&row[q..q + kw]);
            v.extend_from_slice(&row[q + kw..]);
        }
        (k, v)
    }

    fn max_diff(a: &[f32], b: &[f32]) -> f32 {
        assert_eq!(a.len(), b.len());
        a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max)
    }

    #[test]
    fn append_truncate_append_keeps_the_right_rows() {
        let mut kv = HostKv::default();
        let first = values(5 * H.qkv_width(), 1);
        kv.append_from_qkv(&first, 5, H);
        kv.truncate(3, H);
        let second = values(4 * H.qkv_width(), 2);
        kv.append_from_qkv(&second, 4, H);
        assert_eq!(kv.positions(H), 7);
        let (ek1, ev1) = split_kv(&first, 3, H);
        let (ek2, ev2) = split_kv(&second, 4, H);
        let (keys, vals) = ([ek1, ek2].concat(), [ev1, ev2].concat());
        for p in 0..7 {
            for kh in 0..H.kv_heads {
                let at = p * H.kv_width() + kh * H.head_dim;
                let (k, v) = kv.row(p, kh, H);
                assert_eq!(k, &keys[at..at + H.head_dim], "key of position {p}, head {kh}");
                assert_eq!(v, &vals[at..at + H.head_dim], "value of position {p}, head {kh}");
            }
        }
    }

    #[test]
    fn both_kernels_match_the_reference() {
        // Row counts on both sides of SGEMM_MIN_ROWS and across ROW_BLOCK boundaries.
        for &(past, t) in &[(0, 1), (0, 5), (13, 1), (70, 3), (0, 9), (5, 64), (37, 150)] {
            let old = values(past * H.qkv_width(), 3);
            let new = values(t * H.qkv_width(), 4 + t as u64);
            let mut kv = HostKv::default();
            kv.append_from_qkv(&old, past, H);
            kv.append_from_qkv(&new, t, H);
            let (k0, v0) = split_kv(&old, past, H);
            let (k1, v1) = split_kv(&new, t, H);
            let want = reference(&new, t, past, &[k0, k1].concat(), &[v0, v1].concat(), H);
            for isa in [Isa::Portable, Isa::detect()] {
                let got = attend(isa, &new, t, past, &kv, H);
                let diff = max_diff(&got, &want);
                assert!(diff < 1e-5, "past {past}, t {t}: max diff {diff}");
            }
            let rows = attend_rows(Isa::detect(), &new, t, past, &kv, H);
            assert!(max_diff(&rows, &want) < 1e-5, "row kernel, past {past}, t {t}");
        }
    }

    #[test]
    fn rope_rotates_q_and_k_but_not_v() {
        let table = RopeTable::new(16, H.head_dim, 10000.0, 1.0);
        let orig = values(2 * H.qkv_width(), 9);
        let mut x = orig.clone();
        table.rotate_qk(&mut x, 2, 5, H);
        let v_start = (H.heads + H.kv_heads) * H.head_dim;
        for r in 0..2 {
            let row = r * H.qkv_width();
            assert_eq!(
                x[row + v_start..row + H.qkv_width()],
                orig[row + v_start..row + H.qkv_width()]
            );
            // Position 5 + r, pair (0, half): angle = position (frequency 1).
            let (c, s) = (((5 + r) as f64).cos() as f32, ((5 + r) as f64).sin() as f32);
            let (a, b) = (orig[row], orig[row + H.head_dim / 2]);
            assert!((x[row] - (a * c - b * s)).abs() < 1e-6);
            assert!((x[row + H.head_dim / 2] - (b * c + a * s)).abs() < 1e-6);
        }
    }
}
