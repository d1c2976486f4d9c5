//! Byte classes of sLua's lexemes: [`ByteSet`] (a set of ASCII bytes as one `u128`,
//! for look-ahead classes and first-character sets), the classes every lexeme uses,
//! and the whitespace between lexemes.

/// Characters that continue an identifier.
pub fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whitespace allowed between lexemes.
pub fn is_ws(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\n' || b == b'\r'
}

/// A set of ASCII bytes (look-ahead classes, first-character sets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByteSet(pub u128);

/// `0-9`.
pub const DIGITS: ByteSet = ByteSet::range(b'0', b'9');
/// `A-Z`.
pub const UPPER: ByteSet = ByteSet::range(b'A', b'Z');
/// `a-z`.
pub const LOWER: ByteSet = ByteSet::range(b'a', b'z');
/// Bytes that continue an identifier ([`is_ident_byte`]).
pub const IDENT: ByteSet = DIGITS.union(UPPER).union(LOWER).union(ByteSet::byte(b'_'));
/// Whitespace between lexemes ([`is_ws`]).
pub const WS_BYTES: ByteSet = ByteSet::byte(b' ')
    .union(ByteSet::byte(b'\t'))
    .union(ByteSet::byte(b'\n'))
    .union(ByteSet::byte(b'\r'));

impl ByteSet {
    /// The bytes `lo..=hi` (ASCII).
    pub const fn range(lo: u8, hi: u8) -> ByteSet {
        let mut s = 0u128;
        let mut b = lo;
        while b <= hi && b < 128 {
            s |= 1u128 << b;
            b += 1;
        }
        ByteSet(s)
    }
    /// The set of one (ASCII) byte.
    pub const fn byte(b: u8) -> ByteSet {
        ByteSet(if b < 128 { 1u128 << b } else { 0 })
    }
    /// The union of two sets.
    pub const fn union(self, other: ByteSet) -> ByteSet {
        ByteSet(self.0 | other.0)
    }
    /// Whether `b` is in the set.
    pub fn contains(&self, b: u8) -> bool {
        b < 128 && self.0 & (1u128 << b) != 0
    }
    /// Adds `b` (non-ASCII bytes are ignored).
    pub fn insert(&mut self, b: u8) {
        if b < 128 {
            self.0 |= 1u128 << b;
        }
    }
    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }
    /// The members, increasing.
    pub fn iter(&self) -> impl Iterator<Item = u8> + '_ {
        (0u8..128).filter(|b| self.contains(*b))
    }
    /// Renders the set as a regex character class.
    pub fn class(&self) -> String {
        let mut s = String::from("[");
        for b in self.iter() {
            match b {
                b'\n' => s.push_str("\\n"),
                b'\t' => s.push_str("\\t"),
                b'\r' => s.push_str("\\r"),
                b'\\' | b']' | b'[' | b'^' | b'-' | b'&' | b'~' => {
                    s.push('\\');
                    s.push(b as char)
                }
                _ => s.push(b as char),
            }
        }
        s.push(']');
        s
    }
    /// The set of bytes satisfying `f`.
    pub fn from_fn(f: impl Fn(u8) -> bool) -> ByteSet {
        let mut s = ByteSet::default();
        for b in 0u8..128 {
            if f(b) {
                s.insert(b);
            }
        }
        s
    }
}

/// The whitespace class, as regex.
pub const WS: &str = "[\\t\\n\\r ]*";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_set_constants_match_their_predicates() {
        assert_eq!(IDENT, ByteSet::from_fn(is_ident_byte));
        assert_eq!(WS_BYTES, ByteSet::from_fn(is_ws));
        assert_eq!(DIGITS, ByteSet::from_fn(|b| b.is_ascii_digit()));
        assert_eq!(UPPER.union(LOWER), ByteSet::from_fn(|b| b.is_ascii_alphabetic()));
    }
}
