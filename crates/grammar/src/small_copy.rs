//! [`copy_vec`]: `dst = src` for the short vectors a recognizer state is made of
//! (LR stacks, the pending lexeme's bytes, indentation levels), with one copy.
//!
//! Why not `Vec::clone_from`: it copies the part `dst` already holds and the rest
//! separately, two `memcpy` calls even when one is empty. Natively a `memcpy` of a
//! few bytes costs a few nanoseconds; in wasm each is a `memory.copy`, which V8
//! runs as a call out of the wasm code. Exact masks clone recognizer states a few
//! hundred times each (the mask benchmark's wasm profile: clone_from, clone_into and
//! V8's `memory_copy_wrapper` took ~5% of the time against ~1% natively).

/// Makes `dst` equal to `src`, keeping `dst`'s allocation: one copy, none when `src`
/// is empty.
#[inline]
pub(crate) fn copy_vec<T: Copy>(dst: &mut Vec<T>, src: &[T]) {
    dst.clear();
    if !src.is_empty() {
        dst.extend_from_slice(src);
    }
}

/// `a == b`, element by element: a slice comparison is a call to `memcmp`, which in
/// wasm is compiler-builtins' loop over single bytes.
#[inline]
pub(crate) fn same<T: Copy + PartialEq>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_whatever_the_lengths() {
        let mut d = vec![9u32; 5];
        copy_vec(&mut d, &[1, 2]);
        assert_eq!(d, [1, 2]);
        copy_vec(&mut d, &[3, 4, 5, 6, 7, 8]);
        assert_eq!(d, [3, 4, 5, 6, 7, 8]);
        copy_vec(&mut d, &[]);
        assert!(d.is_empty());
    }
}
