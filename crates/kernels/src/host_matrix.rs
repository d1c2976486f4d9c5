//! A weight matrix held in host memory in a compact format (f32, f16, Q8_0 or Q4_1) and
//! multiplied by activation rows with this crate's CPU kernels ([`crate::host_kernels`]):
//! espalier-model's linear layers on its CPU backends.
//!
//! Why not burn's matmul on the CPU: burn-ndarray multiplies through `matrixmultiply`,
//! which packs the whole f32 weight matrix on every call, so a one-token decode step
//! moved as many bytes as a 64-token prefill (decode 7.9 tok/s against llama.cpp's 21-32
//! on this machine); burn-flex's `gemm` has a matrix-vector path but only in f32, one
//! thread; burn's quantized tensors dequantize the whole matrix before each matmul.
//! Here the weights stay in their compact format, each output row is streamed from
//! memory once per call and multiplied in registers, output rows are split over the
//! rayon threads natively (sequential in wasm). The burn path (espalier-model's
//! `WeightFormat::BurnF32`) stays as the twin these kernels are tested
//! against, and is what the GPU backends use.
//!
//! Layout: row-major `[out][in]` (one output feature per row), the GGUF's own order.
//!
//! Over 600 lines because of its tests (about 300: every format and row count, with
//! f32 and 8-bit activations, against f64 references); the code is one type.

use std::sync::Arc;

use half::f16;

use crate::block_kernels::{decode_row, dot_blocks};
use crate::formats::QK;
use crate::host_kernels::{
    block_sums, dot_f16, dot_f32, dot_q4_1, dot_q8, gemm_q4_1, has_gemm_q4_1,
};
use crate::int_dot;
use crate::q8_activations::{ActivationFormat, Q8Activations};
use crate::{GgmlType, Isa, Q4KRows, Q4_1Rows, Q8_0Rows};

/// The element format a [`HostMatrix`] stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostFormat {
    /// 4 bytes per weight; exact with respect to the dequantized GGUF.
    F32,
    /// 2 bytes per weight; ~3 significant digits.
    F16,
    /// ggml's Q8_0: blocks of 32 `i8` with one scale (kept as f32 here): 1.125 bytes
    /// per weight; exact for GGUF Q8_0 tensors, ~0.6% relative RMS error on Q4_1 ones.
    Q8_0,
    /// ggml's Q4_1 taken as it is from the GGUF (blocks of 32 4-bit values with a scale
    /// and a minimum, kept as f32 here): 0.75 bytes per weight, exact. Matrices that do
    /// not come from Q4_1 blocks are stored as Q8_0 instead.
    Q4_1,
    /// The GGUF's own blocks of any other supported type (Q4_0, Q5_0, Q5_1, Q4_K, Q5_K,
    /// Q6_K; `block_kernels`), or a stack of matrices in different encodings (a fused
    /// matrix whose parts the file stores in different types, as Q4_K_M files do).
    Gguf,
}

#[derive(Clone, Debug)]
enum Data {
    F32(Vec<f32>),
    F16(Vec<f16>),
    Q8 {
        scales: Vec<f32>,
        quants: Vec<i8>,
    },
    Q4 {
        scales: Vec<f32>,
        mins: Vec<f32>,
        nibbles: Vec<u8>,
    },
    /// Raw blocks of `ty`, row after row, and a factor per row applied to its dot
    /// products (the attention scale folded into Q; 1 elsewhere).
    Blocks {
        ty: GgmlType,
        bytes: Vec<u8>,
        row_bytes: usize,
        factors: Vec<f32>,
    },
    /// Matrices of the same width stacked vertically (rows of the first, then the next).
    Stack(Vec<HostMatrix>),
}

/// An `[rows, cols]` weight matrix on the host; `y = x · Wᵀ` for activation rows `x`.
#[derive(Clone, Debug)]
pub struct HostMatrix {
    rows: usize,
    cols: usize,
    data: Arc<Data>,
    isa: Isa,
    /// Whether decode steps round the activations to 8 bits for the integer kernels.
    activations: ActivationFormat,
}

impl HostMatrix {
    /// Stores row-major `[rows][cols]` f32 data in `format`. Q8_0 needs `cols` to be a
    /// multiple of 32; otherwise the matrix is kept as f16 (a documented fallback, not
    /// an error: every format gives the same results within its rounding).
    pub fn from_rows(data: &[f32], rows: usize, cols: usize, format: HostFormat) -> Self {
        debug_assert_eq!(data.len(), rows * cols);
        let data = match format {
            HostFormat::F32 => Data::F32(data.to_vec()),
            HostFormat::F16 => Data::F16(data.iter().map(|&v| f16::from_f32(v)).collect()),
            // Values given as f32 have no encoding of their own: `Gguf` holds them as Q8_0.
            HostFormat::Q8_0 | HostFormat::Q4_1 | HostFormat::Gguf if cols.is_multiple_of(QK) => {
                let (scales, quants) = quantize_q8_0(data);
                Data::Q8 { scales, quants }
            }
            HostFormat::Q8_0 | HostFormat::Q4_1 | HostFormat::Gguf => {
                Data::F16(data.iter().map(|&v| f16::from_f32(v)).collect())
            }
        };
        Self {
            rows,
            cols,
            data: Arc::new(data),
            isa: Isa::detect(),
            activations: ActivationFormat::default(),
        }
    }

    /// Takes GGUF Q8_0 blocks (`d: f16` then 32 `i8`, row after row) as they are.
    /// `bytes` must hold exactly `rows * cols / 32` blocks and `cols % 32 == 0` (checked
    /// by the caller against the tensor's shape).
    pub fn from_q8_0_blocks(bytes: &[u8], rows: usize, cols: usize) -> Self {
        let blocks = rows * cols / QK;
        let mut scales = Vec::with_capacity(blocks);
        let mut quants = Vec::with_capacity(rows * cols);
        for b in bytes.chunks_exact(2 + QK).take(blocks) {
            scales.push(f16::from_le_bytes([b[0], b[1]]).to_f32());
            quants.extend(b[2..].iter().map(|&q| q as i8));
        }
        Self {
            rows,
            cols,
            data: Arc::new(Data::Q8 { scales, quants }),
            isa: Isa::detect(),
            activations: ActivationFormat::default(),
        }
    }

    /// Takes GGUF Q4_1 rows as they are: each entry is one row's blocks (`cols / 32`
    /// blocks of `d: f16, m: f16, 16 bytes`, checked by the caller) and a factor both
    /// `d` and `m` are multiplied by (exact for powers of two, e.g. the attention scale
    /// 1/8 folded into Q).
    pub fn from_q4_1_rows(rows: &[(&[u8], f32)], cols: usize) -> Self {
        let blocks = rows.len() * cols / QK;
        let mut scales = Vec::with_capacity(blocks);
        let mut mins = Vec::with_capacity(blocks);
        let mut nibbles = Vec::with_capacity(blocks * QK / 2);
        for &(row, factor) in rows {
            for b in row.chunks_exact(4 + QK / 2).take(cols / QK) {
                scales.push(f16::from_le_bytes([b[0], b[1]]).to_f32() * factor);
                mins.push(f16::from_le_bytes([b[2], b[3]]).to_f32() * factor);
                nibbles.extend_from_slice(&b[4..]);
            }
        }
        Self {
            rows: rows.len(),
            cols,
            data: Arc::new(Data::Q4 { scales, mins, nibbles }),
            isa: Isa::detect(),
            activations: ActivationFormat::default(),
        }
    }

    /// A matrix of GGUF rows of any supported type, kept in their own encoding: each
    /// entry is one row's bytes (whole blocks of `cols` values, checked by the caller),
    /// its type and a factor its values are multiplied by. Consecutive rows of one type
    /// form one matrix (Q4_1 and Q8_0 with their kernels, F32 / F16 as such, the other
    /// types as raw blocks); rows of several types give a stack of those.
    pub fn from_gguf_rows(rows: &[(GgmlType, &[u8], f32)], cols: usize) -> Self {
        let mut parts = Vec::new();
        let mut start = 0;
        while start < rows.len() {
            let ty = rows[start].0;
            let end = start + rows[start..].iter().take_while(|r| r.0 == ty).count();
            parts.push(Self::one_type(ty, &rows[start..end], cols));
            start = end;
        }
        if parts.len() == 1 {
            return parts.pop().expect("one part");
        }
        let rows = parts.iter().map(|p| p.rows).sum();
        Self {
            rows,
            cols,
            data: Arc::new(Data::Stack(parts)),
            isa: Isa::detect(),
            activations: ActivationFormat::default(),
        }
    }

    /// [`HostMatrix::from_gguf_rows`] for rows all of type `ty`.
    fn one_type(ty: GgmlType, rows: &[(GgmlType, &[u8], f32)], cols: usize) -> Self {
        match ty {
            GgmlType::Q4_1 => {
                Self::from_q4_1_rows(&rows.iter().map(|r| (r.1, r.2)).collect::<Vec<_>>(), cols)
            }
            GgmlType::Q8_0 => {
                let bytes: Vec<u8> = rows.iter().flat_map(|r| r.1.iter().copied()).collect();
                let mut m = Self::from_q8_0_blocks(&bytes, rows.len(), cols);
                if let Data::Q8 { scales, .. } = Arc::get_mut(&mut m.data).expect("fresh matrix") {
                    for (s, r) in scales.chunks_exact_mut(cols / QK).zip(rows) {
                        s.iter_mut().for_each(|s| *s *= r.2);
                    }
                }
                m
            }
            GgmlType::F32 | GgmlType::F16 => {
                let mut values = vec![0f32; rows.len() * cols];
                for (out, r) in values.chunks_exact_mut(cols).zip(rows) {
                    ty.dequantize(r.1, out);
                    out.iter_mut().for_each(|v| *v *= r.2);
                }
                let format = if ty == GgmlType::F32 { HostFormat::F32 } else { HostFormat::F16 };
                Self::from_rows(&values, rows.len(), cols, format)
            }
            _ => {
                let row_bytes = rows.first().map_or(0, |r| r.1.len());
                let bytes: Vec<u8> = rows.iter().flat_map(|r| r.1.iter().copied()).collect();
                let factors = rows.iter().map(|r| r.2).collect();
                let data = Data::Blocks { ty, bytes, row_bytes, factors };
                Self {
                    rows: rows.len(),
                    cols,
                    data: Arc::new(data),
                    isa: Isa::detect(),
                    activations: ActivationFormat::default(),
                }
            }
        }
    }

    /// `self` with its products taking the activations as `activations` says.
    pub fn set_activations(&mut self, activations: ActivationFormat) {
        self.activations = activations;
    }

    /// Output features (rows of W).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The format the weights are stored in.
    pub fn format(&self) -> HostFormat {
        match *self.data {
            Data::F32(_) => HostFormat::F32,
            Data::F16(_) => HostFormat::F16,
            Data::Q8 { .. } => HostFormat::Q8_0,
            Data::Q4 { .. } => HostFormat::Q4_1,
            Data::Blocks { .. } | Data::Stack(_) => HostFormat::Gguf,
        }
    }

    /// Whether `self` and `other` are the same storage (the tied embedding / output).
    pub fn shares_storage(&self, other: &HostMatrix) -> bool {
        Arc::ptr_eq(&self.data, &other.data)
    }

    /// Bytes the weights take in memory.
    pub fn bytes(&self) -> usize {
        match &*self.data {
            Data::F32(v) => v.len() * 4,
            Data::F16(v) => v.len() * 2,
            Data::Q8 { scales, quants } => scales.len() * 4 + quants.len(),
            Data::Q4 { scales, mins, nibbles } => (scales.len() + mins.len()) * 4 + nibbles.len(),
            Data::Blocks { bytes, factors, .. } => bytes.len() + factors.len() * 4,
            Data::Stack(parts) => parts.iter().map(HostMatrix::bytes).sum(),
        }
    }

    /// Writes row `r` (`r < rows`, checked by the caller) as f32 into `out`
    /// (`cols` long): the embedding lookup.
    pub fn row_f32(&self, r: usize, out: &mut [f32]) {
        let c = self.cols;
        match &*self.data {
            Data::F32(v) => out.copy_from_slice(&v[r * c..(r + 1) * c]),
            Data::F16(v) => {
                out.iter_mut().zip(&v[r * c..(r + 1) * c]).for_each(|(o, h)| *o = h.to_f32())
            }
            Data::Q8 { scales, quants } => {
                let q = &quants[r * c..(r + 1) * c];
                let s = &scales[r * c / QK..(r + 1) * c / QK];
                for ((o, q), &d) in out.chunks_exact_mut(QK).zip(q.chunks_exact(QK)).zip(s) {
                    o.iter_mut().zip(q).for_each(|(o, &q)| *o = d * f32::from(q));
                }
            }
            Data::Q4 { scales, mins, nibbles } => {
                let (b0, nb) = (r * c / QK, c / QK);
                let q = &nibbles[b0 * QK / 2..(b0 + nb) * QK / 2];
                for (i, (o, q)) in out.chunks_exact_mut(QK).zip(q.chunks_exact(QK / 2)).enumerate()
                {
                    let (d, m) = (scales[b0 + i], mins[b0 + i]);
                    let (lo, hi) = o.split_at_mut(QK / 2);
                    for (j, &byte) in q.iter().enumerate() {
                        lo[j] = f32::from(byte & 0x0f) * d + m;
                        hi[j] = f32::from(byte >> 4) * d + m;
                    }
                }
            }
            Data::Blocks { ty, bytes, row_bytes, factors } => {
                decode_row(*ty, &bytes[r * row_bytes..(r + 1) * row_bytes], out);
                if factors[r] != 1.0 {
                    out.iter_mut().for_each(|v| *v *= factors[r]);
                }
            }
            Data::Stack(parts) => {
                let mut r = r;
                for p in parts {
                    if r < p.rows {
                        return p.row_f32(r, out);
                    }
                    r -= p.rows;
                }
            }
        }
    }

    /// `x · Wᵀ` for `t` activation rows `x` (`[t][cols]`, row-major); returns `[t][rows]`.
    pub fn matmul(&self, x: &[f32], t: usize) -> Vec<f32> {
        self.matmul_as(x, t, self.activations)
    }

    /// [`HostMatrix::matmul`] with the activations taken as `activations` says.
    fn matmul_as(&self, x: &[f32], t: usize, activations: ActivationFormat) -> Vec<f32> {
        debug_assert_eq!(x.len(), t * self.cols);
        if let Data::Stack(parts) = &*self.data {
            return self.stacked_matmul(parts, x, t, activations);
        }
        // The activations are rounded to 8 bits once, for all rows (each activation row
        // on its own, so a prompt's rows round as the same rows fed one at a time).
        let int8 = match activations {
            ActivationFormat::Int8 => {
                self.int_kernel().filter(|&ty| t == 1 || int_dot::prefill_takes_int8(self.isa, ty))
            }
            ActivationFormat::F32 => None,
        };
        let q8 = int8.map(|ty| Q8Activations::rows(x, self.cols, int_dot::activation_block(ty)));
        let int8 = int8.is_some();
        // Output rows per task: enough tasks to balance the threads, few enough that
        // each streams a long contiguous stretch of weights.
        // With several rows (prefill) a task is one sgemm call of `BATCH_ROWS` rows.
        let chunk = if t > 1 { BATCH_ROWS } else { (self.rows / 32).clamp(16, 512) };
        // [rows][t]: each task owns a contiguous stretch; transposed after when t > 1.
        let mut out_t = vec![0f32; self.rows * t];
        // Q4_1's minimum term needs each block's activation sum: once per call, not per
        // row (`[t][cols / 32]`: `x`'s rows are whole blocks).
        let direct = (t == 1 && !int8) || (t > 1 && has_gemm_q4_1(self.isa));
        let xsum = if direct && matches!(*self.data, Data::Q4 { .. }) {
            block_sums(x)
        } else {
            Vec::new()
        };
        let work = |(ci, out): (usize, &mut [f32])| {
            self.rows_into(ci * chunk, x, &xsum, q8.as_ref(), t, out)
        };
        #[cfg(not(target_family = "wasm"))]
        {
            use rayon::prelude::*;
            out_t.par_chunks_mut(chunk * t).enumerate().for_each(work);
        }
        #[cfg(target_family = "wasm")]
        out_t.chunks_mut(chunk * t).enumerate().for_each(work);
        if t == 1 {
            return out_t;
        }
        transpose(&out_t, self.rows, t)
    }

    /// `x · Wᵀ` of a stack: each part's product, placed side by side in each output row.
    fn stacked_matmul(
        &self,
        parts: &[HostMatrix],
        x: &[f32],
        t: usize,
        activations: ActivationFormat,
    ) -> Vec<f32> {
        let mut out = vec![0f32; t * self.rows];
        let mut first = 0;
        for p in parts {
            let y = p.matmul_as(x, t, activations);
            for (o, y) in out.chunks_exact_mut(self.rows).zip(y.chunks_exact(p.rows)) {
                o[first..first + p.rows].copy_from_slice(y);
            }
            first += p.rows;
        }
        out
    }

    /// The weight type whose integer kernels (8-bit activations) this matrix uses on
    /// this CPU, if it has them.
    fn int_kernel(&self) -> Option<GgmlType> {
        let ty = match &*self.data {
            Data::Q8 { .. } => GgmlType::Q8_0,
            Data::Q4 { .. } => GgmlType::Q4_1,
            Data::Blocks { ty, .. } => *ty,
            Data::F32(_) | Data::F16(_) | Data::Stack(_) => return None,
        };
        (self.cols.is_multiple_of(int_dot::activation_block(ty))
            && int_dot::has_kernel(self.isa, ty))
        .then_some(ty)
    }

    /// Whether [`HostMatrix::int_kernel`] finds one.
    #[cfg(test)]
    fn has_int_kernel(&self) -> bool {
        self.int_kernel().is_some()
    }

    /// Rows `first..first + out.len() / t` of `x · Wᵀ`, written `[row][t]` into `out`;
    /// with `q8` (one activation row rounded to 8 bits) through the integer kernels.
    fn rows_into(
        &self,
        first: usize,
        x: &[f32],
        xsum: &[f32],
        q8: Option<&Q8Activations>,
        t: usize,
        out: &mut [f32],
    ) {
        if let Some(q8) = q8 {
            return self.rows_into_int8(first, q8, t, out);
        }
        if t > 1 {
            return self.rows_into_batched(first, x, xsum, t, out);
        }
        let (c, isa) = (self.cols, self.isa);
        for (j, o) in out.iter_mut().enumerate() {
            let r = first + j;
            *o = match &*self.data {
                Data::F32(v) => dot_f32(isa, &v[r * c..(r + 1) * c], x),
                Data::F16(v) => dot_f16(isa, &v[r * c..(r + 1) * c], x),
                Data::Q8 { scales, quants } => dot_q8(
                    isa,
                    &scales[r * c / QK..(r + 1) * c / QK],
                    &quants[r * c..(r + 1) * c],
                    x,
                ),
                Data::Q4 { scales, mins, nibbles } => {
                    let b = r * c / QK..(r + 1) * c / QK;
                    dot_q4_1(
                        isa,
                        &scales[b.clone()],
                        &mins[b],
                        &nibbles[r * c / 2..(r + 1) * c / 2],
                        x,
                        xsum,
                    )
                }
                Data::Blocks { ty, bytes, row_bytes, factors } => {
                    factors[r] * dot_blocks(isa, *ty, &bytes[r * row_bytes..(r + 1) * row_bytes], x)
                }
                // Stacks are multiplied part by part (`stacked_matmul`).
                Data::Stack(_) => 0.0,
            };
        }
    }

    /// [`HostMatrix::rows_into`] for `t` activation rows rounded to 8 bits (a type with
    /// integer kernels, [`HostMatrix::has_int_kernel`]): one integer dot product per
    /// (weight row, activation row), the weight row staying in L1 across the `t` rows.
    fn rows_into_int8(&self, first: usize, q8: &Q8Activations, t: usize, out: &mut [f32]) {
        let (c, isa) = (self.cols, self.isa);
        if let (Data::Q4 { scales, mins, nibbles }, true) = (&*self.data, t > 1) {
            // Prefill of Q4_1: each weight block unpacked once per tile of tokens.
            let w = Q4_1Rows { d: scales, m: mins, nibbles, rows: scales.len() * QK / c };
            return int_dot::gemm_q4_1(isa, w.rows(first, out.len() / t, c), q8, t, out);
        }
        if t > 1 {
            // Prefill of Q8_0 and Q4_K: tiles of tokens per weight block, as Q4_1's.
            let n = out.len() / t;
            match &*self.data {
                Data::Q8 { scales, quants } => {
                    let w = Q8_0Rows { scales, quants, rows: quants.len() / c };
                    return int_dot::gemm_q8_0(isa, w.rows(first, n, c), q8, t, out);
                }
                Data::Blocks { ty: GgmlType::Q4_K, bytes, row_bytes, factors } => {
                    let bytes = &bytes[first * row_bytes..(first + n) * row_bytes];
                    let w = Q4KRows { bytes, row_bytes: *row_bytes, rows: n };
                    int_dot::gemm_q4_k(isa, w, q8, t, out);
                    for (k, o) in out.iter_mut().enumerate() {
                        *o *= factors[first + k / t];
                    }
                    return;
                }
                _ => {}
            }
        }
        for (k, o) in out.iter_mut().enumerate() {
            let (r, x) = (first + k / t, q8.row(k % t));
            *o = match &*self.data {
                Data::Q8 { scales, quants } => int_dot::dot_q8_0(
                    isa,
                    &scales[r * c / QK..(r + 1) * c / QK],
                    &quants[r * c..(r + 1) * c],
                    x,
                ),
                Data::Q4 { scales, mins, nibbles } => {
                    let b = r * c / QK..(r + 1) * c / QK;
                    int_dot::dot_q4_1(
                        isa,
                        &scales[b.clone()],
                        &mins[b],
                        &nibbles[r * c / 2..(r + 1) * c / 2],
                        x,
                    )
                }
                Data::Blocks { ty, bytes, row_bytes, factors } => {
                    factors[r]
                        * int_dot::dot_blocks(
                            isa,
                            *ty,
                            &bytes[r * row_bytes..(r + 1) * row_bytes],
                            x,
                        )
                }
                // No integer kernels (`has_int_kernel`).
                Data::F32(_) | Data::F16(_) | Data::Stack(_) => {
                    unreachable!("no integer kernel for this format")
                }
            };
        }
    }

    /// [`HostMatrix::rows_into`] for several activation rows (prefill). Q4_1 weights
    /// with a kernel for this CPU go through [`gemm_q4_1`]: each block is decoded in
    /// registers once per tile of activation rows (on a 64-token prompt the decoding
    /// to f32 and sgemm's packing below took as long as sgemm's multiplications).
    /// Otherwise stretches of [`BATCH_ROWS`] weight rows are decoded to f32 once and
    /// multiplied with all of `x` by `matrixmultiply`'s sgemm (register-blocked,
    /// SIMD), which on a 64-token prompt ran ~2x faster than one dot product per
    /// (row, token) pair.
    fn rows_into_batched(&self, first: usize, x: &[f32], xsum: &[f32], t: usize, out: &mut [f32]) {
        let c = self.cols;
        let n_rows = out.len() / t;
        if let Data::Q4 { scales, mins, nibbles } = &*self.data {
            if has_gemm_q4_1(self.isa) {
                let w = Q4_1Rows { d: scales, m: mins, nibbles, rows: scales.len() * QK / c };
                return gemm_q4_1(self.isa, w.rows(first, n_rows, c), x, xsum, t, out);
            }
        }
        let mut buf = if matches!(*self.data, Data::F32(_)) {
            Vec::new()
        } else {
            vec![0f32; BATCH_ROWS * c]
        };
        let mut j = 0;
        while j < n_rows {
            let n = BATCH_ROWS.min(n_rows - j);
            let r0 = first + j;
            let w: &[f32] = match &*self.data {
                Data::F32(v) => &v[r0 * c..(r0 + n) * c],
                _ => {
                    for (k, row) in buf.chunks_exact_mut(c).take(n).enumerate() {
                        self.row_f32(r0 + k, row);
                    }
                    &buf[..n * c]
                }
            };
            let o = &mut out[j * t..(j + n) * t];
            // o[n][t] = w[n][c] · x[t][c]ᵀ. SAFETY: the pointers cover `n * c`, `t * c`
            // and `n * t` floats with the given strides, as the slices above guarantee.
            unsafe {
                matrixmultiply::sgemm(
                    n,
                    c,
                    t,
                    1.0,
                    w.as_ptr(),
                    c as isize,
                    1,
                    x.as_ptr(),
                    1,
                    c as isize,
                    0.0,
                    o.as_mut_ptr(),
                    t as isize,
                    1,
                );
            }
            j += n;
        }
    }
}

/// Weight rows decoded per sgemm call in prefill: 64 rows of up to 1536 floats (384 KB)
/// stay in L2 while sgemm packs them.
const BATCH_ROWS: usize = 64;

/// ggml's reference Q8_0 quantization (`quantize_row_q8_0_ref`): per block of 32,
/// `d = max |x| / 127`, `q = round(x / d)`; `d` is stored as f16 (and used here as the
/// f16 value, so the scales equal what a GGUF Q8_0 file would hold).
fn quantize_q8_0(data: &[f32]) -> (Vec<f32>, Vec<i8>) {
    let mut scales = Vec::with_capacity(data.len() / QK);
    let mut quants = Vec::with_capacity(data.len());
    for block in data.chunks_exact(QK) {
        let amax = block.iter().fold(0f32, |m, &v| m.max(v.abs()));
        let d = amax / 127.0;
        let id = if d != 0.0 { 1.0 / d } else { 0.0 };
        scales.push(f16::from_f32(d).to_f32());
        quants.extend(block.iter().map(|&v| (v * id).round().clamp(-127.0, 127.0) as i8));
    }
    (scales, quants)
}

/// `[rows][t]` -> `[t][rows]`, in parallel natively: tasks of `TILE` output rows, so
/// each read of the source takes `TILE` neighbouring values (a prompt's products were
/// spending a seventh of their time in this copy on one thread).
fn transpose(src: &[f32], rows: usize, t: usize) -> Vec<f32> {
    const TILE: usize = 8;
    let mut out = vec![0f32; t * rows];
    let work = |(k, out): (usize, &mut [f32])| {
        let i0 = k * TILE;
        let n = out.len() / rows;
        for r in 0..rows {
            let s = &src[r * t + i0..r * t + i0 + n];
            for (ii, &v) in s.iter().enumerate() {
                out[ii * rows + r] = v;
            }
        }
    };
    #[cfg(not(target_family = "wasm"))]
    {
        use rayon::prelude::*;
        out.par_chunks_mut(TILE * rows).enumerate().for_each(work);
    }
    #[cfg(target_family = "wasm")]
    out.chunks_mut(TILE * rows).enumerate().for_each(work);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_data::{quant_blocks, values, varied};

    /// How far output `k` of `x · Wᵀ` (`[t][rows]`, value `want`) may be from the f64
    /// reference: `rel` of float rounding, plus the activations' rounding bound where
    /// the product takes 8-bit activations (a type with integer kernels).
    fn tolerance(m: &HostMatrix, x: &[f32], k: usize, want: f32, rel: f32) -> f32 {
        let base = rel * (1.0 + want.abs());
        if m.activations != ActivationFormat::Int8 || !m.has_int_kernel() {
            return base;
        }
        let (i, r) = (k / m.rows, k % m.rows);
        let mut row = vec![0f32; m.cols];
        m.row_f32(r, &mut row);
        let block = int_dot::activation_block(m.int_kernel().expect("has an integer kernel"));
        let q = Q8Activations::rows(&x[i * m.cols..(i + 1) * m.cols], m.cols, block);
        base + q.row(0).rounding_bound(&row) as f32
    }

    /// `x · Wᵀ` in f64 from the matrix's own dequantized rows.
    fn reference(m: &HostMatrix, x: &[f32], t: usize) -> Vec<f32> {
        let mut row = vec![0f32; m.cols];
        let mut out = vec![0f32; t * m.rows];
        for r in 0..m.rows {
            m.row_f32(r, &mut row);
            for i in 0..t {
                let xi = &x[i * m.cols..(i + 1) * m.cols];
                out[i * m.rows + r] =
                    row.iter().zip(xi).map(|(&a, &b)| f64::from(a) * f64::from(b)).sum::<f64>()
                        as f32;
            }
        }
        out
    }

    #[test]
    fn matmul_matches_reference_for_every_format_and_row_count() {
        let (rows, cols) = (1000, 96);
        let w = values(rows * cols, 1);
        for format in [HostFormat::F32, HostFormat::F16, HostFormat::Q8_0] {
            for activations in [ActivationFormat::Int8, ActivationFormat::F32] {
                let mut m = HostMatrix::from_rows(&w, rows, cols, format);
                m.set_activations(activations);
                assert_eq!(m.format(), format);
                for t in [1, 3] {
                    let x = values(t * cols, 2 + t as u64);
                    let got = m.matmul(&x, t);
                    let want = reference(&m, &x, t);
                    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                        let tol = tolerance(&m, &x, k, *w, 1e-4);
                        assert!(
                            (g - w).abs() < tol,
                            "{format:?} {activations:?} t={t} at {k}: {g} vs {w}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn q8_0_quantization_error_is_small_and_q8_0_blocks_load_exactly() {
        let w = values(64 * 64, 3);
        let m = HostMatrix::from_rows(&w, 64, 64, HostFormat::Q8_0);
        let mut row = vec![0f32; 64];
        let (mut err, mut norm) = (0f64, 0f64);
        for r in 0..64 {
            m.row_f32(r, &mut row);
            for (a, b) in row.iter().zip(&w[r * 64..(r + 1) * 64]) {
                err += f64::from(a - b).powi(2);
                norm += f64::from(*b).powi(2);
            }
        }
        assert!((err / norm).sqrt() < 0.01, "relative RMS error {}", (err / norm).sqrt());

        // One GGUF Q8_0 block: d = 0.5, q = -16..16.
        let mut block = f16::from_f32(0.5).to_le_bytes().to_vec();
        block.extend((0..32).map(|i| (i as i8 - 16) as u8));
        let m = HostMatrix::from_q8_0_blocks(&block, 1, 32);
        let mut row = vec![0f32; 32];
        m.row_f32(0, &mut row);
        assert_eq!(row[0], -8.0);
        assert_eq!(row[31], 7.5);
        assert_eq!(m.bytes(), 36);
    }

    #[test]
    fn q4_1_rows_match_the_gguf_dequantization_and_multiply_like_the_reference() {
        use crate::GgmlType;
        let (rows, cols) = (300, 64);
        let bytes = quant_blocks(GgmlType::Q4_1, rows * cols / QK, 7);
        let row_bytes = cols / QK * 20;
        let list: Vec<(&[u8], f32)> = bytes.chunks_exact(row_bytes).map(|r| (r, 1.0)).collect();
        let m = HostMatrix::from_q4_1_rows(&list, cols);
        assert_eq!((m.rows(), m.format()), (rows, HostFormat::Q4_1));
        let mut want = vec![0f32; cols];
        let mut got = vec![0f32; cols];
        for r in [0, 1, 299] {
            GgmlType::Q4_1.dequantize(&bytes[r * row_bytes..(r + 1) * row_bytes], &mut want);
            m.row_f32(r, &mut got);
            assert_eq!(got, want, "row {r}");
        }
        for activations in [ActivationFormat::Int8, ActivationFormat::F32] {
            let mut m = m.clone();
            m.set_activations(activations);
            for t in [1, 4] {
                let x = values(t * cols, 9 + t as u64);
                let want = reference(&m, &x, t);
                for (k, (g, w)) in m.matmul(&x, t).iter().zip(&want).enumerate() {
                    let tol = tolerance(&m, &x, k, *w, 1e-3);
                    assert!((g - w).abs() < tol, "{activations:?} t={t} at {k}: {g} vs {w}");
                }
            }
        }
        // A factor scales d and m, so every weight.
        let halved: Vec<(&[u8], f32)> = list.iter().map(|&(r, _)| (r, 0.5)).collect();
        HostMatrix::from_q4_1_rows(&halved, cols).row_f32(1, &mut got);
        GgmlType::Q4_1.dequantize(&bytes[row_bytes..2 * row_bytes], &mut want);
        assert!(got.iter().zip(&want).all(|(g, w)| *g == w * 0.5));
    }

    #[test]
    fn q4_1_prefill_kernel_matches_the_reference_for_every_tile_width() {
        // Token counts 2..=19 cover every tile width of the prefill kernel (8, 8, 3, ...)
        // and rows beyond one task's stretch; each output must equal the f64 reference
        // from the dequantized rows, so a skipped block, row or token fails.
        let (rows, cols) = (150, 96);
        let blocks = quant_blocks(crate::GgmlType::Q4_1, rows * cols / QK, 21);
        let row_bytes = cols / QK * 20;
        let list: Vec<(&[u8], f32)> = blocks.chunks_exact(row_bytes).map(|r| (r, 1.0)).collect();
        for activations in [ActivationFormat::F32, ActivationFormat::Int8] {
            let mut m = HostMatrix::from_q4_1_rows(&list, cols);
            m.set_activations(activations);
            for t in 2..20 {
                let x = values(t * cols, 30 + t as u64);
                let want = reference(&m, &x, t);
                for (k, (g, w)) in m.matmul(&x, t).iter().zip(&want).enumerate() {
                    let tol = tolerance(&m, &x, k, *w, 1e-4);
                    assert!((g - w).abs() < tol, "{activations:?} t={t} at {k}: {g} vs {w}");
                }
            }
        }
    }

    #[test]
    fn gguf_blocks_and_stacks_multiply_like_the_reference() {
        // Q4_K and Q6_K rows (integer kernels on AVX2) and a stack of both with a Q4_1
        // part: one decode row within the activations' rounding, prefill rows exactly.
        use crate::GgmlType;
        let cols = 512;
        let block = |ty: GgmlType, rows: usize, seed: u64| {
            quant_blocks(ty, rows * cols / ty.block_len(), seed)
        };
        let (k4, k6, q41) = (
            block(GgmlType::Q4_K, 40, 61),
            block(GgmlType::Q6_K, 24, 62),
            block(GgmlType::Q4_1, 8, 63),
        );
        fn rows(ty: GgmlType, bytes: &[u8], cols: usize) -> Vec<(GgmlType, &[u8], f32)> {
            bytes
                .chunks_exact(cols / ty.block_len() * ty.block_bytes())
                .map(|r| (ty, r, 0.5))
                .collect()
        }
        let mut stack = rows(GgmlType::Q4_K, &k4, cols);
        stack.extend(rows(GgmlType::Q6_K, &k6, cols));
        stack.extend(rows(GgmlType::Q4_1, &q41, cols));
        for list in [rows(GgmlType::Q4_K, &k4, cols), rows(GgmlType::Q6_K, &k6, cols), stack] {
            let m = HostMatrix::from_gguf_rows(&list, cols);
            for t in [1, 3] {
                let x = varied(t * cols, 64 + t as u64, 9);
                let want = reference(&m, &x, t);
                for (k, (g, w)) in m.matmul(&x, t).iter().zip(&want).enumerate() {
                    // A stack's parts each take the bound of their own rows.
                    let tol = stack_tolerance(&m, &x, k, *w);
                    assert!((g - w).abs() < tol, "{} rows t={t} at {k}: {g} vs {w}", list.len());
                }
            }
        }
    }

    /// [`tolerance`] for output `k` of a matrix or a stack.
    fn stack_tolerance(m: &HostMatrix, x: &[f32], k: usize, want: f32) -> f32 {
        let (i, mut r) = (k / m.rows, k % m.rows);
        let xi = &x[i * m.cols..(i + 1) * m.cols];
        match &*m.data {
            Data::Stack(parts) => {
                for p in parts {
                    if r < p.rows {
                        return tolerance(p, xi, r, want, 1e-4);
                    }
                    r -= p.rows;
                }
                unreachable!("row inside the stack")
            }
            _ => tolerance(m, xi, r, want, 1e-4),
        }
    }

    #[test]
    fn prompt_rows_multiply_as_single_rows_do() {
        // With 8-bit activations each row is rounded on its own: a prompt's product must
        // equal the products of its rows fed one at a time (what the KV cache relies
        // on), whatever the rows' magnitudes (10^-2 .. 10^2, so a row read with another
        // row's scale is far off).
        use crate::GgmlType;
        let (rows, cols) = (70, 256);
        let q41 = quant_blocks(GgmlType::Q4_1, rows * cols / QK, 81);
        let list: Vec<(&[u8], f32)> = q41.chunks_exact(cols / QK * 20).map(|r| (r, 1.0)).collect();
        let mut k4: Vec<u8> =
            values(rows * cols / 256 * 144, 82).iter().map(|v| ((v + 1.0) * 127.9) as u8).collect();
        for blk in k4.chunks_exact_mut(144) {
            blk[1] = 0x2c;
            blk[3] = 0x2c;
        }
        let k4_rows: Vec<(GgmlType, &[u8], f32)> =
            k4.chunks_exact(144).map(|r| (GgmlType::Q4_K, r, 1.0)).collect();
        let matrices = [
            HostMatrix::from_q4_1_rows(&list, cols),
            HostMatrix::from_rows(&values(rows * cols, 83), rows, cols, HostFormat::Q8_0),
            HostMatrix::from_gguf_rows(&k4_rows, cols),
        ];
        for m in &matrices {
            for t in [2, 5, 9, 17] {
                let x: Vec<f32> = values(t * cols, 84 + t as u64)
                    .iter()
                    .enumerate()
                    .map(|(i, v)| v * 10f32.powi((i / cols) as i32 % 5 - 2))
                    .collect();
                let all = m.matmul(&x, t);
                for i in 0..t {
                    let one = m.matmul(&x[i * cols..(i + 1) * cols], 1);
                    for (r, (a, b)) in all[i * rows..(i + 1) * rows].iter().zip(&one).enumerate() {
                        assert!(
                            (a - b).abs() <= 1e-4 * (1.0 + b.abs()),
                            "{:?} t={t} token {i} row {r}: prompt {a} vs single {b}",
                            m.format()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn q8_0_with_odd_width_falls_back_to_f16() {
        let m = HostMatrix::from_rows(&values(3 * 40, 4), 3, 40, HostFormat::Q8_0);
        assert_eq!(m.format(), HostFormat::F16);
    }
}
