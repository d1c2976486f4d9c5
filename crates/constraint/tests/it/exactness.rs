//! Exactness: at random byte positions of real files, for a fixed random sample of
//! 2000 vocabulary tokens, `exact` allows a token iff pushing its bytes through a copy
//! of the incremental recognizer succeeds (the brute-force viable-prefix oracle).
//! Zero disagreements. Also measures how much `syncode` over-approximates (tokens it
//! allows that are not viable) and checks it never under-approximates. The checks are
//! every grammar language's (`common::masks`); Go's run in `go_masks`.

use crate::common;

use common::masks::{Exactness, Rejected};

#[test]
fn exact_masks_equal_the_brute_force_oracle() {
    common::masks::exact_masks_equal_the_brute_force_oracle(
        &common::PYTHON,
        &Exactness {
            seed: 0x5EED_0003,
            positions_per_file: (12, 60),
            stride: (90, 20),
            first: 7,
            max_bytes: 30_000,
            // the grammar's corpus suite accounts for the files it rejects
            rejected: Rejected::Skip,
            newline_tokens: false,
        },
    );
}
