//! Errors of the GGUF reader. Every variant names what was being read (a metadata key,
//! a tensor, a header field) and the byte offset in the file, so a user can tell a
//! truncated download from a file of the wrong kind.

use std::path::PathBuf;

/// Why a GGUF file could not be read or a value could not be extracted from it.
#[derive(Debug, thiserror::Error)]
pub enum GgufError {
    /// The file could not be opened or read from disk.
    #[error("cannot read {path}: {source} (run scripts/fetch-model.sh to fetch the model)")]
    Io {
        /// The path that failed.
        path: PathBuf,
        /// The operating-system error.
        source: std::io::Error,
    },
    /// The file ends before a field that must be there.
    #[error(
        "GGUF file truncated: {what} at byte {offset} needs {needed} bytes, only {available} left"
    )]
    Truncated {
        /// What was being read (a header field, a key's value, a tensor name).
        what: String,
        /// Byte offset where the read started.
        offset: u64,
        /// Bytes the read needed.
        needed: u64,
        /// Bytes left in the file from `offset`.
        available: u64,
    },
    /// The first four bytes are not `GGUF`.
    #[error("not a GGUF file: magic bytes {found:02x?} at offset 0 (expected \"GGUF\")")]
    BadMagic {
        /// The four bytes found.
        found: [u8; 4],
    },
    /// A GGUF version this reader does not know (only 2 and 3 are supported).
    #[error("unsupported GGUF version {version} at byte 4 (supported: 2, 3)")]
    UnsupportedVersion {
        /// The version field.
        version: u32,
    },
    /// A metadata value type id outside the GGUF specification.
    #[error("metadata key {key:?}: unknown value type {type_id} at byte {offset}")]
    BadValueType {
        /// The key whose value has the bad type.
        key: String,
        /// The type id found.
        type_id: u32,
        /// Byte offset of the type id.
        offset: u64,
    },
    /// A string that is not valid UTF-8.
    #[error("{what}: invalid UTF-8 string at byte {offset}")]
    InvalidUtf8 {
        /// Which string (a key name, a value, a tensor name).
        what: String,
        /// Byte offset of the string's bytes.
        offset: u64,
    },
    /// A count or length that cannot fit in the file (a corrupt length prefix).
    #[error(
        "{what}: length {len} at byte {offset} exceeds the {available} bytes left in the file"
    )]
    BadLength {
        /// What the length describes.
        what: String,
        /// The length found.
        len: u64,
        /// Byte offset of the length field.
        offset: u64,
        /// Bytes left in the file.
        available: u64,
    },
    /// An array nested deeper than the reader allows.
    #[error("metadata key {key:?}: arrays nested deeper than {max} levels at byte {offset}")]
    TooDeep {
        /// The key being read.
        key: String,
        /// The nesting limit.
        max: usize,
        /// Byte offset of the nested array.
        offset: u64,
    },
    /// A required metadata key is absent.
    #[error("metadata key {key:?} is missing")]
    MissingKey {
        /// The key.
        key: String,
    },
    /// A metadata key has a value of an unexpected type.
    #[error("metadata key {key:?} has type {found}, expected {expected}")]
    WrongKeyType {
        /// The key.
        key: String,
        /// The expected type.
        expected: &'static str,
        /// The type found.
        found: &'static str,
    },
    /// A tensor uses a ggml type this reader cannot decode.
    #[error("tensor {tensor:?}: unsupported ggml type {type_id} ({type_name}) in its info at byte {offset}; supported: F32, F16, Q8_0, Q4_1")]
    UnsupportedTensorType {
        /// The tensor's name.
        tensor: String,
        /// The ggml type id.
        type_id: u32,
        /// The type's name where known.
        type_name: &'static str,
        /// Byte offset of the tensor's info record.
        offset: u64,
    },
    /// A tensor's shape is impossible (too many dimensions, overflow, rows not a
    /// multiple of the block size).
    #[error("tensor {tensor:?}: bad shape {dims:?} in its info at byte {offset}: {reason}")]
    BadShape {
        /// The tensor's name.
        tensor: String,
        /// The dimensions found (GGUF order, innermost first).
        dims: Vec<u64>,
        /// Byte offset of the tensor's info record.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A tensor's data lies (partly) outside the file or is misaligned.
    #[error("tensor {tensor:?}: data at bytes {start}..{end} is outside the file ({file_len} bytes) or misaligned (alignment {alignment})")]
    TensorOutOfBounds {
        /// The tensor's name.
        tensor: String,
        /// Absolute start offset of the data.
        start: u64,
        /// Absolute end offset of the data.
        end: u64,
        /// The file's length.
        file_len: u64,
        /// The file's alignment.
        alignment: u64,
    },
    /// No tensor of this name is in the file.
    #[error("tensor {name:?} is missing from the GGUF file")]
    MissingTensor {
        /// The name looked up.
        name: String,
    },
    /// A tensor has a shape other than the one the model expects.
    #[error("tensor {tensor:?} has shape {found:?}, expected {expected:?}")]
    UnexpectedShape {
        /// The tensor's name.
        tensor: String,
        /// The expected shape (GGUF order, innermost first).
        expected: Vec<u64>,
        /// The shape found.
        found: Vec<u64>,
    },
    /// The `general.alignment` key is zero or not a power of two.
    #[error("general.alignment = {alignment} is not a power of two")]
    BadAlignment {
        /// The value found.
        alignment: u64,
    },
    /// Two tensors share a name.
    #[error("tensor {tensor:?} appears twice (second info at byte {offset})")]
    DuplicateTensor {
        /// The name.
        tensor: String,
        /// Byte offset of the second info record.
        offset: u64,
    },
}
