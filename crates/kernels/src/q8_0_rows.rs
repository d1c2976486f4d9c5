//! [`Q8_0Rows`]: consecutive Q8_0 weight rows in the split layout the kernels read (a
//! scale per block of 32, the `i8` values), as one argument of the prefill product on
//! 8-bit activations (`int_dot::gemm_q8_0`) and its AVX2 body.

use crate::formats::QK;

/// `rows` consecutive Q8_0 weight rows: `scales` holds `rows * cols / 32` entries,
/// `quants` `rows * cols` values.
#[derive(Clone, Copy, Debug)]
pub struct Q8_0Rows<'a> {
    /// The blocks' scales, row after row.
    pub scales: &'a [f32],
    /// The values, row after row.
    pub quants: &'a [i8],
    /// Number of rows.
    pub rows: usize,
}

impl<'a> Q8_0Rows<'a> {
    /// Rows `first..first + n` of rows of `cols` values.
    pub fn rows(&self, first: usize, n: usize, cols: usize) -> Q8_0Rows<'a> {
        Q8_0Rows {
            scales: &self.scales[first * cols / QK..(first + n) * cols / QK],
            quants: &self.quants[first * cols..(first + n) * cols],
            rows: n,
        }
    }

    /// Whether the fields hold exactly `rows` rows of `cols` values (`cols` whole
    /// blocks).
    pub fn holds(&self, cols: usize) -> bool {
        cols.is_multiple_of(QK)
            && self.scales.len() == self.rows * cols / QK
            && self.quants.len() == self.rows * cols
    }
}
