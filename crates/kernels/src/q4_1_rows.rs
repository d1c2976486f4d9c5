//! [`Q4_1Rows`]: consecutive Q4_1 weight rows in the split layout the kernels read (the
//! scales `d`, the minimums `m`, 16 bytes of nibbles per block of 32: value `j` in the
//! low nibble of byte `j`, value `j + 16` in its high nibble), as one argument of the
//! prefill products (`host_kernels::gemm_q4_1` on f32 activations,
//! `int_dot::gemm_q4_1` on 8-bit ones) and their per-ISA bodies.

use crate::formats::QK;

/// `rows` consecutive Q4_1 weight rows: `d` and `m` hold `rows * cols / 32` entries,
/// `nibbles` `rows * cols / 2` bytes.
#[derive(Clone, Copy, Debug)]
pub struct Q4_1Rows<'a> {
    /// The blocks' scales, row after row.
    pub d: &'a [f32],
    /// The blocks' minimums, row after row.
    pub m: &'a [f32],
    /// The blocks' nibbles, 16 bytes a block.
    pub nibbles: &'a [u8],
    /// Number of rows.
    pub rows: usize,
}

impl<'a> Q4_1Rows<'a> {
    /// Rows `first..first + n` of rows of `cols` values.
    pub fn rows(&self, first: usize, n: usize, cols: usize) -> Q4_1Rows<'a> {
        let b = first * cols / QK..(first + n) * cols / QK;
        Q4_1Rows {
            d: &self.d[b.clone()],
            m: &self.m[b],
            nibbles: &self.nibbles[first * cols / 2..(first + n) * cols / 2],
            rows: n,
        }
    }

    /// Whether the three fields hold exactly `rows` rows of `cols` values (`cols` whole
    /// blocks).
    pub fn holds(&self, cols: usize) -> bool {
        cols.is_multiple_of(QK)
            && self.d.len() == self.rows * cols / QK
            && self.m.len() == self.d.len()
            && self.nibbles.len() * 2 == self.rows * cols
    }
}
