//! A [`MaskStore`] as bytes: [`MaskStore::to_bytes`] / [`MaskStore::from_bytes`]
//! (little-endian, versioned by a magic, keyed by [`store_key`] so a store built for
//! another grammar or vocabulary is refused; every table's size and every id checked on
//! read, so corrupt bytes give a [`StoreError`], never a panic) and the native file
//! cache [`MaskStore::load_or_build`].

use espalier_grammar::Language;

use super::{densify, store_key, MaskStore, MAGIC, NONE};
use crate::Vocab;

/// Why a store could not be loaded or saved.
#[derive(Debug)]
pub enum StoreError {
    /// The bytes are not a store of this version (or were cut short) at `offset`.
    Format {
        /// Byte offset where reading failed.
        offset: usize,
        /// What was expected there.
        what: &'static str,
    },
    /// The store was built for another grammar or vocabulary.
    Stale {
        /// The key the caller expects.
        expected: u64,
        /// The key in the file.
        found: u64,
    },
    /// Reading or writing the cache file failed.
    Io {
        /// The file.
        path: String,
        /// The OS error.
        error: std::io::Error,
    },
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Format { offset, what } => {
                write!(f, "mask store: expected {what} at byte {offset} (corrupt or old file: delete it to rebuild)")
            }
            StoreError::Stale { expected, found } => write!(
                f,
                "mask store built for another grammar or vocabulary (key {found:016x}, expected {expected:016x}): rebuild it"
            ),
            StoreError::Io { path, error } => write!(f, "mask store file {path}: {error}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl MaskStore {
    /// Serializes the store (little-endian, versioned, with its key).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.memory_bytes() + 64);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.key.to_le_bytes());
        for x in [self.num_states, self.num_terms, self.vocab_len] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        let put = |out: &mut Vec<u8>, v: &[u32]| {
            out.extend_from_slice(&(v.len() as u64).to_le_bytes());
            for &x in v {
                out.extend_from_slice(&x.to_le_bytes());
            }
        };
        put(&mut out, &self.m0);
        put(&mut out, &self.m1_any);
        put(&mut out, &self.m1_start);
        let flat: Vec<u32> = self.m1_pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        put(&mut out, &flat);
        put(&mut out, &self.offsets);
        put(&mut out, &self.tokens);
        put(&mut out, &self.layout_terms);
        out
    }

    /// Reads a store written by [`MaskStore::to_bytes`], refusing one built for
    /// another key (pass [`store_key`] of the grammar and vocabulary in use).
    pub fn from_bytes(bytes: &[u8], expected_key: u64) -> Result<MaskStore, StoreError> {
        let mut r = Reader { bytes, pos: 0 };
        if r.take(8, "the magic ESPMS002")? != MAGIC {
            return Err(StoreError::Format { offset: 0, what: "the magic ESPMS002" });
        }
        let key = u64::from_le_bytes(r.take(8, "the key")?.try_into().unwrap_or([0; 8]));
        if key != expected_key {
            return Err(StoreError::Stale { expected: expected_key, found: key });
        }
        let num_states = r.u32()?;
        let num_terms = r.u32()?;
        let vocab_len = r.u32()?;
        let m0 = r.vec()?;
        let m1_any = r.vec()?;
        let m1_start = r.vec()?;
        let flat = r.vec()?;
        let m1_pairs = flat.chunks_exact(2).map(|c| (c[0], c[1])).collect();
        let offsets = r.vec()?;
        let tokens = r.vec()?;
        let layout_terms = r.vec()?;
        let cells = num_states as usize * num_terms as usize;
        if m0.len() != cells
            || m1_any.len() != cells
            || m1_start.len() != cells + 1
            || offsets.is_empty()
        {
            return Err(StoreError::Format {
                offset: r.pos,
                what: "tables matching the header's sizes",
            });
        }
        let rows = offsets.len() as u32 - 1;
        let in_range = |v: &[u32]| v.iter().all(|&x| x == NONE || x < rows);
        if !in_range(&m0)
            || !in_range(&m1_any)
            || offsets.iter().any(|&o| o as usize > tokens.len())
            || tokens.iter().any(|&t| t >= vocab_len)
            || m1_start.iter().any(|&s| s as usize > flat.len() / 2)
            || !flat.chunks_exact(2).all(|c| c[1] == NONE || c[1] < rows)
        {
            return Err(StoreError::Format {
                offset: r.pos,
                what: "row ids and token ids in range",
            });
        }
        let (dense_of, dense) = densify(&offsets, &tokens, vocab_len as usize);
        Ok(MaskStore {
            key,
            num_states,
            num_terms,
            vocab_len,
            m0,
            m1_any,
            m1_start,
            m1_pairs,
            offsets,
            tokens,
            layout_terms,
            dense_of,
            dense,
        })
    }

    /// Native convenience: loads the store from `path` if it holds one for this
    /// grammar and vocabulary, otherwise builds it and writes it there (creating the
    /// directory). On the web, keep the bytes where the app likes and use
    /// [`MaskStore::from_bytes`].
    pub fn load_or_build(
        lang: &Language,
        vocab: &Vocab,
        path: &std::path::Path,
    ) -> Result<MaskStore, StoreError> {
        let key = store_key(lang, vocab);
        if let Ok(bytes) = std::fs::read(path) {
            if let Ok(store) = MaskStore::from_bytes(&bytes, key) {
                return Ok(store);
            }
        }
        let store = MaskStore::build(lang, vocab);
        let io = |error| StoreError::Io { path: path.display().to_string(), error };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        // Write then rename, so a concurrent reader never sees half a store.
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, store.to_bytes()).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)?;
        Ok(store)
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], StoreError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else { return Err(StoreError::Format { offset: self.pos, what }) };
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, StoreError> {
        let b = self.take(4, "a 32-bit number")?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn vec(&mut self) -> Result<Vec<u32>, StoreError> {
        let n = self.take(8, "an array length")?;
        let n = u64::from_le_bytes(n.try_into().unwrap_or([0; 8])) as usize;
        let raw = self.take(n.saturating_mul(4), "array contents")?;
        Ok(raw.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }
}
