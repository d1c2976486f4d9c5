//! The layout the GPU block kernel (`gpu_quantized.rs`) reads a quantized matrix in,
//! built on the host from the GGUF's own blocks, and the exact arithmetic of that
//! kernel on the host (its reference: unit tests and the page's load-time check
//! compare the GPU against it).
//!
//! Two GGUF block types are kept as they are, every weight exactly the file's:
//! - Q4_1: per 32 values a scale `d`, a minimum `m` and 16 bytes of nibbles (byte `k`
//!   holds value `k` in its low nibble and value `k + 16` in its high one); the value is
//!   `d * q + m`, `q` in 0..15. burn 0.22's quantized tensors are symmetric only, so
//!   this affine form needs a kernel of our own.
//! - Q4_0 and Q4_K are Q4_1 in other packings, so they go up in its layout, every weight
//!   the file's: Q4_0's `d * (q - 8)` is `d * q + m` with `m = -8 d`; Q4_K's super-block of
//!   256 is eight sub-blocks of 32, each `(d sc) * q - (dmin m)` with its 6-bit scale and
//!   minimum, its nibbles regrouped (the super-block keeps a sub-block's 32 values in the
//!   low or the high nibbles of 32 bytes). Rows of these three types may share a matrix
//!   (a fused Q/K/V or gate/up). Q5_x and Q6_K (5 and 6 bits) fit neither layout: they
//!   stay f32 on the GPU.
//! - Q8_0: per 32 values a scale `d` and 32 signed bytes; the value is `d * q`. burn
//!   could hold these (symmetric int8 blocks of 32), but one kernel for both types keeps
//!   one layout and one code path, and the output projection is a mat-vec either way.
//!
//! Layout (`rows` output rows, `B = cols / 32` blocks per row): row-major, the blocks'
//! bytes as little-endian `u32` words (`words[(row * B + block) * W + w]`, `W` = 4 for
//! Q4_1, 8 for Q8_0), so the [`LANES`] units of a workgroup that share one row read
//! neighbouring words; `d` and `m` as f32 at `[row * B + block]` (f16 in the file, widened
//! exactly, times the row's factor, e.g. the attention scale folded into Q, as the CPU
//! path does). Bytes per 32 weights: 24 (Q4_1), 36 (Q8_0); f32 takes 128.
//!
//! The kernel's order of sums, which [`GpuBlocks::matmul`] repeats: a row's words are
//! dealt to [`LANES`] lanes (lane `l` takes words `l`, `l + LANES`, ...); a lane adds per
//! word `d * Σ q x + m * Σ x` over the word's values (4 bytes: Q4_1 values `4 w' + b` and
//! `16 + 4 w' + b` of the block, `w'` the word in the block; Q8_0 values `4 w' + b`);
//! then the lanes' sums fold in halves (lane `l` += lane `l + 16`, then `+ 8`, ... `+ 1`).

use half::f16;

use espalier_kernels::formats::q4_k;

use crate::gguf::{GgmlType, QK, QK_K};

/// Lanes (units of one workgroup) that share one output row: 32 keeps a 576-wide row
/// (72 Q4_1 words) two or three words per lane, and a power of two for the fold.
pub(crate) const LANES: usize = 32;

/// The block type of a [`GpuBlocks`] matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BlockKind {
    /// `d * q + m`, 4-bit `q` (GGUF Q4_1).
    Q4_1,
    /// `d * q`, signed 8-bit `q` (GGUF Q8_0).
    Q8_0,
}

impl BlockKind {
    /// The layout a GGUF type goes up in, `None` for the types the kernel cannot read.
    pub(crate) fn of(ty: GgmlType) -> Option<Self> {
        match ty {
            GgmlType::Q4_1 | GgmlType::Q4_0 | GgmlType::Q4_K => Some(BlockKind::Q4_1),
            GgmlType::Q8_0 => Some(BlockKind::Q8_0),
            _ => None,
        }
    }

    /// `u32` words of quantized values per block of 32.
    pub(crate) fn words(self) -> usize {
        match self {
            BlockKind::Q4_1 => 4,
            BlockKind::Q8_0 => 8,
        }
    }

    /// Bits per quantized value (the kernel's compile-time switch).
    pub(crate) fn bits(self) -> u32 {
        match self {
            BlockKind::Q4_1 => 4,
            BlockKind::Q8_0 => 8,
        }
    }
}

/// A block of 32 values in the kernel's terms: `d`, `m` and its quantized bytes (16 of
/// nibbles, byte `k` holding values `k` and `k + 16`, or 32 signed bytes).
struct Block32 {
    d: f32,
    m: f32,
    quants: [u8; 32],
}

/// The blocks of 32 values of one GGUF row of type `ty` (whole blocks of its type).
fn blocks_of(ty: GgmlType, row: &[u8]) -> Vec<Block32> {
    let half = |b: &[u8], i: usize| f16::from_le_bytes([b[i], b[i + 1]]).to_f32();
    let with = |d: f32, m: f32, bytes: &[u8]| {
        let mut quants = [0u8; 32];
        quants[..bytes.len()].copy_from_slice(bytes);
        Block32 { d, m, quants }
    };
    let blocks = row.chunks_exact(ty.block_bytes());
    match ty {
        GgmlType::Q4_1 => blocks.map(|b| with(half(b, 0), half(b, 2), &b[4..20])).collect(),
        GgmlType::Q8_0 => blocks.map(|b| with(half(b, 0), 0.0, &b[2..34])).collect(),
        GgmlType::Q4_0 => blocks.map(|b| with(half(b, 0), -8.0 * half(b, 0), &b[2..18])).collect(),
        GgmlType::Q4_K => blocks
            .flat_map(|b| {
                (0..QK_K / 64).flat_map(move |p| {
                    let q = &b[16 + 32 * p..16 + 32 * p + 32];
                    let [(d1, min1), (d2, min2)] = q4_k::pair_scales(b, p);
                    let low: [u8; 16] = std::array::from_fn(|k| (q[k] & 0x0f) | (q[k + 16] << 4));
                    let high: [u8; 16] = std::array::from_fn(|k| (q[k] >> 4) | (q[k + 16] & 0xf0));
                    [with(d1, -min1, &low), with(d2, -min2, &high)]
                })
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A quantized matrix `[rows][cols]` in the kernel's layout (host side).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GpuBlocks {
    pub kind: BlockKind,
    pub rows: usize,
    pub cols: usize,
    /// `[(row * blocks + block) * W + w]`.
    pub words: Vec<u32>,
    /// `d` per block, `[row * blocks + block]`.
    pub scales: Vec<f32>,
    /// `m` per block, `[row * blocks + block]` (empty for Q8_0).
    pub mins: Vec<f32>,
}

impl GpuBlocks {
    /// Packs GGUF rows `(type, one row's block bytes, factor)` of `cols` values each;
    /// `None` when the rows are not all of types one layout holds (Q4_1, Q4_0, Q4_K in
    /// Q4_1's; Q8_0 in its own) or a row is not whole blocks of its type.
    pub(crate) fn from_rows(rows: &[(GgmlType, &[u8], f32)], cols: usize) -> Option<Self> {
        let kind = BlockKind::of(rows.first()?.0)?;
        let whole = |&(ty, bytes, _): &(GgmlType, &[u8], f32)| {
            BlockKind::of(ty) == Some(kind)
                && cols.is_multiple_of(ty.block_len())
                && bytes.len() == cols / ty.block_len() * ty.block_bytes()
        };
        if cols == 0 || !cols.is_multiple_of(QK) || !rows.iter().all(whole) {
            return None;
        }
        let (n, blocks, w) = (rows.len(), cols / QK, kind.words());
        let mut words = vec![0u32; blocks * w * n];
        let mut scales = vec![0f32; blocks * n];
        let mut mins = if kind == BlockKind::Q4_1 { vec![0f32; blocks * n] } else { Vec::new() };
        for (r, &(ty, bytes, factor)) in rows.iter().enumerate() {
            for (j, block) in blocks_of(ty, bytes).iter().enumerate() {
                scales[r * blocks + j] = block.d * factor;
                if let Some(slot) = mins.get_mut(r * blocks + j) {
                    *slot = block.m * factor;
                }
                for (i, word) in block.quants.chunks_exact(4).take(w).enumerate() {
                    words[(r * blocks + j) * w + i] =
                        u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
                }
            }
        }
        Some(Self { kind, rows: n, cols, words, scales, mins })
    }

    /// Bytes the matrix takes on the device.
    pub(crate) fn bytes(&self) -> usize {
        4 * (self.words.len() + self.scales.len() + self.mins.len())
    }

    /// The 32 quantized values of block `j` of row `r`, read from the packed words in
    /// the kernel's order (as f32: 0..15 for Q4_1, -128..127 for Q8_0).
    #[cfg_attr(not(test), allow(dead_code))] // the host reference: tests
    fn quants(&self, r: usize, j: usize) -> [f32; QK] {
        let (blocks, w) = (self.cols / QK, self.kind.words());
        let word = |i: usize| self.words[(r * blocks + j) * w + i];
        let mut q = [0f32; QK];
        match self.kind {
            BlockKind::Q4_1 => {
                for i in 0..4 {
                    for b in 0..4 {
                        let byte = (word(i) >> (8 * b)) & 0xff;
                        q[4 * i + b] = (byte & 0xf) as f32;
                        q[16 + 4 * i + b] = (byte >> 4) as f32;
                    }
                }
            }
            BlockKind::Q8_0 => {
                for i in 0..8 {
                    for b in 0..4 {
                        q[4 * i + b] = ((word(i) >> (8 * b)) & 0xff) as u8 as i8 as f32;
                    }
                }
            }
        }
        q
    }

    #[cfg_attr(not(test), allow(dead_code))]
    fn min(&self, r: usize, j: usize) -> f32 {
        self.mins.get(r * (self.cols / QK) + j).copied().unwrap_or(0.0)
    }

    /// Row `r`'s values, dequantized from the packed layout.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn row_f32(&self, r: usize, out: &mut [f32]) {
        for (j, chunk) in out.chunks_exact_mut(QK).enumerate().take(self.cols / QK) {
            let (d, m) = (self.scales[r * (self.cols / QK) + j], self.min(r, j));
            for (o, q) in chunk.iter_mut().zip(self.quants(r, j)) {
                *o = d * q + m;
            }
        }
    }

    /// `x · Wᵀ` for `t` rows `x` (`[t][cols]`), with the kernel's arithmetic and order
    /// (the module doc) for `lanes` units a row ([`LANES`], or 1 for one unit per row:
    /// `gpu_quantized.rs`'s `RowSplit`): per lane, words in turn; then the fold. Every
    /// sum in f32.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn matmul(&self, x: &[f32], t: usize, lanes: usize) -> Vec<f32> {
        let mut y = vec![0f32; t * self.rows];
        let width = lanes.clamp(1, LANES);
        for (xt, yt) in x.chunks_exact(self.cols).zip(y.chunks_exact_mut(self.rows)).take(t) {
            for (r, out) in yt.iter_mut().enumerate() {
                let mut lanes = [0f32; LANES];
                for (u, lane) in (0..self.cols / QK * self.kind.words()).zip((0..width).cycle()) {
                    lanes[lane] += self.word_term(r, u, xt);
                }
                let mut half = width / 2;
                while half > 0 {
                    for l in 0..half {
                        lanes[l] += lanes[l + half];
                    }
                    half /= 2;
                }
                *out = lanes[0];
            }
        }
        y
    }

    /// Word `u` of row `r` against activation row `x`: `d * Σ q x + m * Σ x` over the
    /// word's values, in the kernel's order (byte by byte; Q4_1 both nibbles together).
    #[cfg_attr(not(test), allow(dead_code))]
    fn word_term(&self, r: usize, u: usize, x: &[f32]) -> f32 {
        let w = self.kind.words();
        let (j, i) = (u / w, u % w);
        let q = self.quants(r, j);
        let xb = &x[j * QK..(j + 1) * QK];
        let (mut dot, mut sum) = (0f32, 0f32);
        for b in 0..4 {
            let k = 4 * i + b;
            if self.kind == BlockKind::Q4_1 {
                dot += q[k] * xb[k] + q[k + 16] * xb[k + 16];
                sum += xb[k] + xb[k + 16];
            } else {
                dot += q[k] * xb[k];
            }
        }
        let d = self.scales[r * (self.cols / QK) + j];
        match self.kind {
            BlockKind::Q4_1 => d * dot + self.min(r, j) * sum,
            BlockKind::Q8_0 => d * dot,
        }
    }
}

/// Deterministic bytes (a linear congruential sequence): synthetic blocks for the tests
/// and the GPU kernel's self-check (`gpu_kernel_check.rs`, native only).
#[cfg_attr(target_family = "wasm", allow(dead_code))]
pub(crate) fn noise(n: usize, seed: u32) -> Vec<u8> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 24) as u8
        })
        .collect()
}

/// GGUF rows of `ty` with finite, varied scales (random f16 bytes may be NaN).
#[cfg_attr(target_family = "wasm", allow(dead_code))]
pub(crate) fn gguf_rows(ty: GgmlType, rows: usize, cols: usize, seed: u32) -> Vec<Vec<u8>> {
    let bb = ty.block_bytes();
    (0..rows)
        .map(|r| {
            let mut row = noise(cols / QK * bb, seed + r as u32);
            for (j, block) in row.chunks_exact_mut(bb).enumerate() {
                let d = f16::from_f32(0.01 + 0.003 * ((r * 7 + j) % 11) as f32).to_le_bytes();
                block[..2].copy_from_slice(&d);
                if ty == GgmlType::Q4_1 {
                    let m = f16::from_f32(-0.05 + 0.01 * ((r + j) % 9) as f32).to_le_bytes();
                    block[2..4].copy_from_slice(&m);
                }
            }
            row
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_against_reader(ty: GgmlType) {
        let (rows, cols) = (37, 96);
        let data = gguf_rows(ty, rows, cols, 11);
        let factors: Vec<f32> = (0..rows).map(|r| if r % 3 == 0 { 0.125 } else { 1.0 }).collect();
        let input: Vec<(GgmlType, &[u8], f32)> =
            data.iter().zip(&factors).map(|(b, &f)| (ty, b.as_slice(), f)).collect();
        let packed = GpuBlocks::from_rows(&input, cols).expect("packs");
        assert_eq!(packed.bytes(), rows * cols / QK * if ty == GgmlType::Q4_1 { 24 } else { 36 });
        let (mut want, mut got) = (vec![0f32; cols], vec![0f32; cols]);
        for r in 0..rows {
            ty.dequantize(&data[r], &mut want);
            want.iter_mut().for_each(|v| *v *= factors[r]);
            packed.row_f32(r, &mut got);
            assert_eq!(got, want, "{ty:?} row {r}");
        }
        // The kernel's arithmetic against a dense f32 product of the reader's values.
        let t = 3;
        let x: Vec<f32> = noise(t * cols, 5).iter().map(|&b| (b as f32 - 128.0) / 64.0).collect();
        let y = packed.matmul(&x, t, LANES);
        for k in 0..t {
            for r in 0..rows {
                ty.dequantize(&data[r], &mut want);
                let dense: f32 = want
                    .iter()
                    .zip(&x[k * cols..(k + 1) * cols])
                    .map(|(w, x)| w * factors[r] * x)
                    .sum();
                let diff = (y[k * rows + r] - dense).abs();
                assert!(
                    diff <= 1e-4 * (1.0 + dense.abs()),
                    "{ty:?} t {k} row {r}: {} vs {dense}",
                    y[k * rows + r]
                );
            }
        }
    }

    /// Rows of `ty` blocks from noise with sane f16 scales (noise would make some
    /// NaN or huge): `d` (and `dmin` / `m`) where the type keeps them.
    fn noisy_rows(ty: GgmlType, rows: usize, cols: usize, seed: u32) -> Vec<Vec<u8>> {
        let bb = ty.block_bytes();
        (0..rows)
            .map(|r| {
                let mut row = noise(cols / ty.block_len() * bb, seed + r as u32);
                for (j, block) in row.chunks_exact_mut(bb).enumerate() {
                    let d = f16::from_f32(0.004 + 0.001 * ((r * 7 + j) % 11) as f32);
                    let m = f16::from_f32(0.002 + 0.001 * ((r + j) % 5) as f32);
                    block[..2].copy_from_slice(&d.to_le_bytes());
                    if ty != GgmlType::Q4_0 {
                        block[2..4].copy_from_slice(&m.to_le_bytes());
                    }
                }
                row
            })
            .collect()
    }

    /// Q4_0 and Q4_K (and rows of the three 4-bit types in one matrix, as a fused
    /// Q/K/V of a Q4_K_M file may be) go up in Q4_1's layout: every weight the GGUF
    /// reader's exactly, the kernel's arithmetic within 1e-4 of a dense product.
    #[test]
    fn q4_0_and_q4_k_pack_into_q4_1s_layout_exactly() {
        use GgmlType::*;
        let cols = 512;
        for types in [&[Q4_0][..], &[Q4_K], &[Q4_K, Q4_1, Q4_0]] {
            let data: Vec<(GgmlType, Vec<u8>)> = (0..7)
                .map(|r| {
                    let ty = types[r % types.len()];
                    (ty, noisy_rows(ty, 1, cols, 40 + r as u32).remove(0))
                })
                .collect();
            let factor = |r: usize| if r.is_multiple_of(3) { 0.125 } else { 1.0 };
            let input: Vec<(GgmlType, &[u8], f32)> = data
                .iter()
                .enumerate()
                .map(|(r, (ty, b))| (*ty, b.as_slice(), factor(r)))
                .collect();
            let packed = GpuBlocks::from_rows(&input, cols).expect("packs");
            assert_eq!((packed.kind, packed.bytes()), (BlockKind::Q4_1, 7 * cols / QK * 24));
            let (mut want, mut got) = (vec![0f32; cols], vec![0f32; cols]);
            let x: Vec<f32> = noise(cols, 9).iter().map(|&b| (b as f32 - 128.0) / 64.0).collect();
            let y = packed.matmul(&x, 1, LANES);
            for (r, (ty, bytes)) in data.iter().enumerate() {
                ty.dequantize(bytes, &mut want);
                want.iter_mut().for_each(|v| *v *= factor(r));
                packed.row_f32(r, &mut got);
                assert_eq!(got, want, "{ty:?} row {r}");
                assert!(want.iter().filter(|&&v| v != 0.0).count() > cols / 2, "{ty:?}: values");
                let dense: f32 = want.iter().zip(&x).map(|(w, x)| w * x).sum();
                assert!((y[r] - dense).abs() <= 1e-4 * (1.0 + dense.abs()), "{ty:?} row {r}");
            }
        }
        // A 4-bit row beside a Q8_0 one, a Q6_K row, a row short of whole blocks: refused.
        let q4k = noisy_rows(Q4_K, 1, cols, 1).remove(0);
        let q8 = gguf_rows(Q8_0, 1, cols, 2).remove(0);
        let q6k = noisy_rows(Q6_K, 1, cols, 3).remove(0);
        assert!(GpuBlocks::from_rows(&[(Q4_K, &q4k, 1.0), (Q8_0, &q8, 1.0)], cols).is_none());
        assert!(GpuBlocks::from_rows(&[(Q6_K, &q6k, 1.0)], cols).is_none());
        assert!(GpuBlocks::from_rows(&[(Q4_K, &q4k[..100], 1.0)], cols).is_none());
    }

    #[test]
    fn q4_1_packing_dequantizes_as_the_gguf_reader() {
        check_against_reader(GgmlType::Q4_1);
    }

    #[test]
    fn q8_0_packing_dequantizes_as_the_gguf_reader() {
        check_against_reader(GgmlType::Q8_0);
    }

    #[test]
    fn words_are_row_major() {
        // Two Q8_0 rows of two blocks: word w of block j of row r at (r * 2 + j) * 8 + w.
        let rows = gguf_rows(GgmlType::Q8_0, 2, 64, 3);
        let input: Vec<(GgmlType, &[u8], f32)> =
            rows.iter().map(|b| (GgmlType::Q8_0, b.as_slice(), 1.0)).collect();
        let packed = GpuBlocks::from_rows(&input, 64).expect("packs");
        for (r, row) in rows.iter().enumerate() {
            for (j, block) in row.chunks_exact(34).enumerate() {
                for w in 0..8 {
                    let b = &block[2 + 4 * w..6 + 4 * w];
                    assert_eq!(
                        packed.words[(r * 2 + j) * 8 + w],
                        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
                    );
                }
            }
        }
    }

    /// The model's own blocks: a Q4_1 matrix and Q8_0 embedding rows, packed and
    /// multiplied with the kernel's arithmetic, against the CPU path's kernels
    /// (`HostMatrix`, f32 activations) on the same rows.
    #[test]
    fn real_model_blocks_agree_with_the_cpu_kernels() {
        use crate::gguf::Gguf;
        use crate::llama::ActivationFormat;
        use espalier_kernels::HostMatrix;

        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../static/models/SmolLM2-135M-Instruct.Q4_1.gguf"
        );
        let gguf = Gguf::open(espalier_testkit::require(
            path,
            "the model",
            Some("bash scripts/fetch-model.sh"),
        ))
        .expect("model parses");
        for (name, rows, cols) in
            [("blk.0.ffn_down.weight", 576, 1536), ("token_embd.weight", 256, 576)]
        {
            let (info, bytes) = gguf.tensor_bytes(name).expect("tensor");
            let ty = info.ggml_type;
            let row_bytes = cols / QK * ty.block_bytes();
            let input: Vec<(GgmlType, &[u8], f32)> =
                bytes.chunks_exact(row_bytes).take(rows).map(|r| (ty, r, 1.0)).collect();
            let packed = GpuBlocks::from_rows(&input, cols).expect("Q4_1 / Q8_0 rows pack");
            let mut host = HostMatrix::from_gguf_rows(&input, cols);
            host.set_activations(ActivationFormat::F32);
            let x: Vec<f32> =
                noise(2 * cols, 9).iter().map(|&b| (b as f32 - 128.0) / 128.0).collect();
            let (got, want) = (packed.matmul(&x, 2, LANES), host.matmul(&x, 2));
            let worst = got
                .iter()
                .zip(&want)
                .map(|(g, w)| (g - w).abs() / (1.0 + w.abs()))
                .fold(0.0, f32::max);
            assert!(worst < 1e-4, "{name} ({ty:?}): relative difference {worst}");
        }
    }

    #[test]
    fn other_or_mixed_types_are_refused() {
        let q4 = gguf_rows(GgmlType::Q4_1, 1, 32, 1);
        let q8 = gguf_rows(GgmlType::Q8_0, 1, 32, 2);
        let f32_row = vec![0u8; 32 * 4];
        assert!(GpuBlocks::from_rows(&[(GgmlType::F32, &f32_row, 1.0)], 32).is_none());
        assert!(GpuBlocks::from_rows(
            &[(GgmlType::Q4_1, &q4[0], 1.0), (GgmlType::Q8_0, &q8[0], 1.0)],
            32
        )
        .is_none());
        assert!(GpuBlocks::from_rows(&[(GgmlType::Q4_1, &q4[0][..10], 1.0)], 32).is_none());
        assert!(GpuBlocks::from_rows(&[], 32).is_none());
    }
}
