//! The layout the GPU block kernel (`gpu_quantized.rs`) reads a quantized matrix in,
//! built on the host from the GGUF's own blocks, and the exact arithmetic of that
//! kernel on the host (its reference: unit tests and the page's load-time check
//! compare the GPU against it).
//!
//! Every quantized GGUF type goes up with every weight exactly the file's: its blocks read
//! as integers `q` with a scale `d` and a minimum `m` (`block_values.rs`), the value
//! `d * q + m`, then packed in one of three layouts ([`BlockKind`]):
//! - Q4_1: per 32 values `d`, `m` and 16 bytes of nibbles (byte `k` holds value `k` in
//!   its low nibble and value `k + 16` in its high one), `q` in 0..15: Q4_1, Q4_0
//!   (`m = -8 d`) and Q4_K (eight sub-blocks of 32 per super-block). burn 0.22's quantized
//!   tensors are symmetric only, so this affine form needs a kernel of our own.
//! - Q8_0: per 32 values `d` and 32 signed bytes, the value `d * q`: Q8_0 and Q5_0
//!   (`q - 16`). burn could hold these, but one kernel for every type keeps one code path.
//! - Q8_16: per 16 values `d` and `m`, 32 signed bytes per 32: Q5_1, Q5_K, Q6_K (whose
//!   sub-blocks are 16 values), and any matrix whose rows are of types of different layouts
//!   (a Q4_K_M file's fused Q/K/V with Q6_K rows for V).
//!
//! Layout (`rows` output rows, `B = cols / 32` blocks per row): row-major, the blocks'
//! bytes as little-endian `u32` words (`words[(row * B + block) * W + w]`, `W` = 4 for
//! Q4_1, 8 for the 8-bit layouts), so the [`LANES`] units of a workgroup that share one
//! row read neighbouring words; `d` and `m` as f32 at `[row * B + block]` (Q8_16:
//! `[(row * B + block) * 2 + half]`), f16 in the file widened exactly, times the row's
//! factor (e.g. the attention scale folded into Q, as the CPU path does). Bytes per 32
//! weights: 24 (Q4_1), 36 (Q8_0), 48 (Q8_16); f32 takes 128.
//!
//! The kernel's order of sums, which [`GpuBlocks::matmul`] repeats: a row's words are
//! dealt to [`LANES`] lanes (lane `l` takes words `l`, `l + LANES`, ...); a lane adds per
//! word `d * Σ q x + m * Σ x` over the word's values (4 bytes: Q4_1 values `4 w' + b` and
//! `16 + 4 w' + b` of the block, `w'` the word in the block; the 8-bit layouts values
//! `4 w' + b`, Q8_0 without the `m` term); then the lanes' sums fold in halves (lane `l`
//! += lane `l + 16`, then `+ 8`, ... `+ 1`).

use crate::gguf::{GgmlType, QK};

use super::block_values::{blocks_of, Block32};

/// Lanes (units of one workgroup) that share one output row: 32 keeps a 576-wide row
/// (72 Q4_1 words) two or three words per lane, and a power of two for the fold.
pub(crate) const LANES: usize = 32;

/// The layout of a [`GpuBlocks`] matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BlockKind {
    /// `d * q + m` per 32, 4-bit `q` (GGUF Q4_1; Q4_0 and Q4_K in its terms).
    Q4_1,
    /// `d * q` per 32, signed 8-bit `q` (GGUF Q8_0; Q5_0's `q - 16`).
    Q8_0,
    /// `d * q + m` per 16, signed 8-bit `q`: Q5_1, Q5_K and Q6_K (whose halves of 32 have
    /// their own scales), and a matrix whose rows mix layouts (a Q4_K_M file's fused
    /// Q/K/V: Q4_K rows beside Q6_K ones), every block of 32 of any type fitting it.
    Q8_16,
}

impl BlockKind {
    /// The narrowest layout a GGUF type goes up in, `None` for the float types.
    pub(crate) fn of(ty: GgmlType) -> Option<Self> {
        match ty {
            GgmlType::Q4_1 | GgmlType::Q4_0 | GgmlType::Q4_K => Some(BlockKind::Q4_1),
            GgmlType::Q8_0 | GgmlType::Q5_0 => Some(BlockKind::Q8_0),
            GgmlType::Q5_1 | GgmlType::Q5_K | GgmlType::Q6_K => Some(BlockKind::Q8_16),
            GgmlType::F32 | GgmlType::F16 => None,
        }
    }

    /// The layout that holds rows of both: the same, or [`BlockKind::Q8_16`].
    pub(crate) fn join(self, other: Self) -> Self {
        if self == other {
            self
        } else {
            BlockKind::Q8_16
        }
    }

    /// `u32` words of quantized values per block of 32.
    pub(crate) fn words(self) -> usize {
        match self {
            BlockKind::Q4_1 => 4,
            BlockKind::Q8_0 | BlockKind::Q8_16 => 8,
        }
    }

    /// Bits per quantized value (the kernel's compile-time switch).
    pub(crate) fn bits(self) -> u32 {
        match self {
            BlockKind::Q4_1 => 4,
            BlockKind::Q8_0 | BlockKind::Q8_16 => 8,
        }
    }

    /// Scales (and minimums) per block of 32: 2 for [`BlockKind::Q8_16`].
    pub(crate) fn scales_per_block(self) -> usize {
        match self {
            BlockKind::Q8_16 => 2,
            BlockKind::Q4_1 | BlockKind::Q8_0 => 1,
        }
    }

    /// Whether the layout keeps minimums.
    pub(crate) fn has_mins(self) -> bool {
        self != BlockKind::Q8_0
    }

    /// Device bytes per 32 weights: 24, 36, 48 (f32 takes 128).
    pub(crate) fn bytes_per_block(self) -> usize {
        4 * (self.words() + self.scales_per_block() * (1 + usize::from(self.has_mins())))
    }

    /// Whether `block` fits this layout exactly.
    fn holds(self, block: &Block32) -> bool {
        match self {
            BlockKind::Q4_1 => block.one_scale() && block.q.iter().all(|&q| (0..16).contains(&q)),
            BlockKind::Q8_0 => block.one_scale() && block.m[0] == 0.0,
            BlockKind::Q8_16 => true,
        }
    }

    /// The block's quantized bytes in this layout: Q4_1's byte `k` holds values `k` and
    /// `k + 16` in its nibbles; the 8-bit layouts hold one signed value per byte.
    fn bytes(self, block: &Block32) -> Vec<u8> {
        match self {
            BlockKind::Q4_1 => {
                (0..16).map(|k| block.q[k] as u8 | (block.q[k + 16] as u8) << 4).collect()
            }
            BlockKind::Q8_0 | BlockKind::Q8_16 => block.q.iter().map(|&q| q as u8).collect(),
        }
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
    /// `d` per block, `[row * blocks + block]`; per half block for Q8_16,
    /// `[(row * blocks + block) * 2 + half]`.
    pub scales: Vec<f32>,
    /// `m`, indexed as `scales` (empty for Q8_0).
    pub mins: Vec<f32>,
}

impl GpuBlocks {
    /// Packs GGUF rows `(type, one row's block bytes, factor)` of `cols` values each, in
    /// the narrowest layout that holds every row's type ([`BlockKind::of`], joined);
    /// `None` when a row is of a float type or not whole blocks of its type.
    pub(crate) fn from_rows(rows: &[(GgmlType, &[u8], f32)], cols: usize) -> Option<Self> {
        let kind =
            rows.iter().map(|&(ty, _, _)| BlockKind::of(ty)).reduce(|a, b| Some(a?.join(b?)))??;
        let whole = |&(ty, bytes, _): &(GgmlType, &[u8], f32)| {
            cols.is_multiple_of(ty.block_len())
                && bytes.len() == cols / ty.block_len() * ty.block_bytes()
        };
        if cols == 0 || !cols.is_multiple_of(QK) || !rows.iter().all(whole) {
            return None;
        }
        let (n, blocks, w, s) = (rows.len(), cols / QK, kind.words(), kind.scales_per_block());
        let mut words = vec![0u32; blocks * w * n];
        let mut scales = vec![0f32; blocks * s * n];
        let mut mins = if kind.has_mins() { vec![0f32; blocks * s * n] } else { Vec::new() };
        for (r, &(ty, bytes, factor)) in rows.iter().enumerate() {
            for (j, block) in blocks_of(ty, bytes)?.iter().enumerate() {
                if !kind.holds(block) {
                    return None;
                }
                let at = r * blocks + j;
                for h in 0..s {
                    scales[at * s + h] = block.d[h] * factor;
                    if let Some(slot) = mins.get_mut(at * s + h) {
                        *slot = block.m[h] * factor;
                    }
                }
                for (i, word) in kind.bytes(block).chunks_exact(4).enumerate() {
                    words[at * w + i] = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
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
    /// the kernel's order (as f32: 0..15 for Q4_1, -128..127 for the 8-bit layouts).
    #[cfg_attr(not(test), allow(dead_code))] // the host reference: tests
    fn quants(&self, r: usize, j: usize) -> [f32; QK] {
        let (blocks, w) = (self.cols / QK, self.kind.words());
        let byte = |i: usize| (self.words[(r * blocks + j) * w + i / 4] >> (8 * (i % 4))) & 0xff;
        match self.kind {
            BlockKind::Q4_1 => {
                std::array::from_fn(|k| ((byte(k % 16) >> (4 * (k / 16))) & 0xf) as f32)
            }
            BlockKind::Q8_0 | BlockKind::Q8_16 => {
                std::array::from_fn(|k| byte(k) as u8 as i8 as f32)
            }
        }
    }

    /// The scale and minimum of value `k` of block `j` of row `r`.
    #[cfg_attr(not(test), allow(dead_code))]
    fn scale_min(&self, r: usize, j: usize, k: usize) -> (f32, f32) {
        let s = self.kind.scales_per_block();
        let at = (r * (self.cols / QK) + j) * s + k * s / QK;
        (self.scales[at], self.mins.get(at).copied().unwrap_or(0.0))
    }

    /// Row `r`'s values, dequantized from the packed layout.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn row_f32(&self, r: usize, out: &mut [f32]) {
        for (j, chunk) in out.chunks_exact_mut(QK).enumerate().take(self.cols / QK) {
            for (k, (o, q)) in chunk.iter_mut().zip(self.quants(r, j)).enumerate() {
                let (d, m) = self.scale_min(r, j, k);
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
    /// word's values, in the kernel's order (byte by byte; Q4_1 both nibbles together;
    /// a Q8_16 word lies in one half, so one scale and minimum).
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
                sum += xb[k];
            }
        }
        let (d, m) = self.scale_min(r, j, 4 * i);
        match self.kind {
            BlockKind::Q4_1 | BlockKind::Q8_16 => d * dot + m * sum,
            BlockKind::Q8_0 => d * dot,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::llama::block_values::{gguf_rows, noise};
    use GgmlType::*;

    /// Rows of `types` (row `r` of type `types[r % len]`) with factors 1 and 1/8 packed:
    /// in layout `kind` and its bytes, every weight the GGUF reader's times the factor
    /// exactly, and the kernel's arithmetic (`lanes` per row) within 1e-4 of a dense
    /// product of the reader's values, over three activation rows.
    fn check_against_reader(types: &[GgmlType], kind: BlockKind, lanes: usize) {
        let (rows, cols) = (37, 512);
        let data: Vec<(GgmlType, Vec<u8>)> = (0..rows)
            .map(|r| {
                let ty = types[r % types.len()];
                (ty, gguf_rows(ty, 1, cols, 40 + r as u32).remove(0))
            })
            .collect();
        let factor = |r: usize| if r.is_multiple_of(3) { 0.125 } else { 1.0 };
        let input: Vec<(GgmlType, &[u8], f32)> =
            data.iter().enumerate().map(|(r, (ty, b))| (*ty, b.as_slice(), factor(r))).collect();
        let packed = GpuBlocks::from_rows(&input, cols).expect("packs");
        assert_eq!(packed.kind, kind, "{types:?}");
        assert_eq!(packed.bytes(), rows * cols / QK * kind.bytes_per_block(), "{types:?}");
        let t = 3;
        let x: Vec<f32> = noise(t * cols, 5).iter().map(|&b| (b as f32 - 128.0) / 64.0).collect();
        let y = packed.matmul(&x, t, lanes);
        let (mut want, mut got) = (vec![0f32; cols], vec![0f32; cols]);
        for (r, (ty, bytes)) in data.iter().enumerate() {
            ty.dequantize(bytes, &mut want);
            want.iter_mut().for_each(|v| *v *= factor(r));
            packed.row_f32(r, &mut got);
            assert_eq!(got, want, "{ty:?} row {r} of {types:?}");
            assert!(want.iter().filter(|&&v| v != 0.0).count() > cols / 2, "{ty:?}: values");
            for k in 0..t {
                let dense: f32 =
                    want.iter().zip(&x[k * cols..(k + 1) * cols]).map(|(w, x)| w * x).sum();
                let got = y[k * rows + r];
                assert!(
                    (got - dense).abs() <= 1e-4 * (1.0 + dense.abs()),
                    "{ty:?} of {types:?}, t {k} row {r}: {got} vs {dense}"
                );
            }
        }
    }

    #[test]
    fn each_type_packs_in_its_layout_as_the_gguf_reader() {
        for (ty, kind) in [
            (Q4_1, BlockKind::Q4_1),
            (Q4_0, BlockKind::Q4_1),
            (Q4_K, BlockKind::Q4_1),
            (Q8_0, BlockKind::Q8_0),
            (Q5_0, BlockKind::Q8_0),
            (Q5_1, BlockKind::Q8_16),
            (Q5_K, BlockKind::Q8_16),
            (Q6_K, BlockKind::Q8_16),
        ] {
            for lanes in [LANES, 1] {
                check_against_reader(&[ty], kind, lanes);
            }
        }
    }

    /// Rows of several types in one matrix (a fused Q/K/V or gate/up of a Q4_K_M or
    /// Q5_K_M file): the 4-bit types share Q4_1's layout, any other mix goes up in
    /// Q8_16, every weight still the file's.
    #[test]
    fn mixed_rows_pack_in_the_layout_that_holds_them_all() {
        check_against_reader(&[Q4_K, Q4_1, Q4_0], BlockKind::Q4_1, LANES);
        check_against_reader(&[Q4_K, Q4_K, Q6_K], BlockKind::Q8_16, LANES);
        check_against_reader(&[Q5_K, Q6_K], BlockKind::Q8_16, 1);
        check_against_reader(&[Q8_0, Q5_0], BlockKind::Q8_0, LANES);
        check_against_reader(&[Q8_0, Q4_1], BlockKind::Q8_16, LANES);
    }

    #[test]
    fn float_rows_and_partial_rows_are_refused() {
        let cols = 512;
        let q4k = gguf_rows(Q4_K, 1, cols, 1).remove(0);
        let f16_row = vec![0u8; cols * 2];
        assert!(GpuBlocks::from_rows(&[(Q4_K, &q4k, 1.0), (F16, &f16_row, 1.0)], cols).is_none());
        assert!(GpuBlocks::from_rows(&[(F32, &[0u8; 128], 1.0)], 32).is_none());
        assert!(GpuBlocks::from_rows(&[(Q4_K, &q4k[..100], 1.0)], cols).is_none());
        // A K-quant row needs whole super-blocks of 256.
        assert!(GpuBlocks::from_rows(&[(Q4_K, &q4k[..144], 1.0)], 96).is_none());
        assert!(GpuBlocks::from_rows(&[], 32).is_none());
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
}
