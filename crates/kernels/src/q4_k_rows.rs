//! [`Q4KRows`]: consecutive Q4_K weight rows as the GGUF stores them (whole super-blocks
//! of 256 values, 144 bytes each), as one argument of the prefill product on 8-bit
//! activations (`int_dot::gemm_q4_k`) and its AVX2 body, like [`crate::Q4_1Rows`] and
//! [`crate::Q8_0Rows`] for their formats.

use crate::formats::{q4_k, QK_K};

/// `rows` consecutive Q4_K weight rows of `row_bytes` bytes each.
#[derive(Clone, Copy, Debug)]
pub struct Q4KRows<'a> {
    /// The rows' super-blocks, row after row.
    pub bytes: &'a [u8],
    /// Bytes per row: `cols / 256` super-blocks.
    pub row_bytes: usize,
    /// Number of rows.
    pub rows: usize,
}

impl<'a> Q4KRows<'a> {
    /// Row `r`'s super-blocks.
    pub fn row(&self, r: usize) -> &'a [u8] {
        &self.bytes[r * self.row_bytes..(r + 1) * self.row_bytes]
    }

    /// Whether the lengths are those of `rows` rows of `cols` values.
    pub fn holds(&self, cols: usize) -> bool {
        cols.is_multiple_of(QK_K)
            && self.row_bytes == cols / QK_K * q4_k::BLOCK_BYTES
            && self.bytes.len() == self.rows * self.row_bytes
    }
}
