//! [`by_tile_width`]: a tile's run-time width (how many activation rows it holds) turned
//! into the const width of the tile kernel that takes them. The kernels are generic over
//! the width so that their `N` accumulators stay in registers; every caller picks one of
//! the instances by the same table, written here once.

/// `by_tile_width!(n, [8, 7, 6, 5, 4, 3, 2], tile(args...))` calls `tile::<W>(args...)`
/// for the listed width `W` equal to `n`, and `tile::<1>(args...)` for any other (the
/// callers' `n` is at least 1 and at most the largest listed width). A macro, not a
/// function: a function cannot take a kernel generic over its const width.
macro_rules! by_tile_width {
    ($n:expr, [$($w:literal),+], $tile:ident $args:tt) => {
        match $n {
            $($w => $tile::<$w> $args,)+
            _ => $tile::<1> $args,
        }
    };
}

pub(crate) use by_tile_width;
