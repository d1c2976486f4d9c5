//! A bounds-checked little-endian reader over the file's bytes. Every read checks the
//! remaining length first and reports what it was reading, so corrupt input yields a
//! [`GgufError`] instead of a panic or an out-of-bounds access.

use super::GgufError;

/// Reads little-endian fields from a byte slice, tracking the offset.
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, pos: 0 }
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// Takes `n` bytes, or reports that `what` is truncated.
    pub(crate) fn take(
        &mut self,
        n: u64,
        what: &dyn Fn() -> String,
    ) -> Result<&'a [u8], GgufError> {
        let available = self.remaining() as u64;
        if n > available {
            return Err(GgufError::Truncated {
                what: what(),
                offset: self.pos as u64,
                needed: n,
                available,
            });
        }
        let n = n as usize;
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &dyn Fn() -> String) -> Result<[u8; N], GgufError> {
        let slice = self.take(N as u64, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(slice);
        Ok(out)
    }

    pub(crate) fn u8(&mut self, what: &dyn Fn() -> String) -> Result<u8, GgufError> {
        Ok(self.array::<1>(what)?[0])
    }
    pub(crate) fn u16(&mut self, what: &dyn Fn() -> String) -> Result<u16, GgufError> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }
    pub(crate) fn u32(&mut self, what: &dyn Fn() -> String) -> Result<u32, GgufError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
    pub(crate) fn u64(&mut self, what: &dyn Fn() -> String) -> Result<u64, GgufError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// A GGUF string: u64 length, then that many UTF-8 bytes.
    pub(crate) fn string(&mut self, what: &dyn Fn() -> String) -> Result<String, GgufError> {
        let len_at = self.pos as u64;
        let len = self.u64(what)?;
        let available = self.remaining() as u64;
        if len > available {
            return Err(GgufError::BadLength { what: what(), len, offset: len_at, available });
        }
        let at = self.pos as u64;
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec())
            .map_err(|_| GgufError::InvalidUtf8 { what: what(), offset: at })
    }

    /// Moves to the next multiple of `alignment` (a power of two).
    pub(crate) fn align(
        &mut self,
        alignment: usize,
        what: &dyn Fn() -> String,
    ) -> Result<(), GgufError> {
        let pad = (alignment - self.pos % alignment) % alignment;
        self.take(pad as u64, what).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_little_endian_and_reports_truncation() {
        let mut c = Cursor::new(&[1, 0, 0, 0, 2]);
        assert_eq!(c.u32(&|| "x".into()).unwrap(), 1);
        let err = c.u16(&|| "field y".into()).unwrap_err();
        assert!(
            matches!(err, GgufError::Truncated { offset: 4, needed: 2, available: 1, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("field y"));
    }

    #[test]
    fn huge_string_length_is_an_error() {
        let mut bytes = u64::MAX.to_le_bytes().to_vec();
        bytes.extend_from_slice(b"abc");
        let err = Cursor::new(&bytes).string(&|| "key".into()).unwrap_err();
        assert!(matches!(err, GgufError::BadLength { len: u64::MAX, .. }), "{err}");
    }
}
