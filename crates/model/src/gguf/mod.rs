//! A GGUF reader: the header, the metadata key/value pairs, the tensor infos and the
//! aligned tensor data, with dequantization of F32, F16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1,
//! Q4_K, Q5_K and Q6_K.
//!
//! Written by hand (about 300 lines) because the GGUF crates found either truncate long
//! arrays (the tokenizer's 49152 tokens) or pull in a whole inference framework. The
//! whole file is held in memory (98 MB for SmolLM2-135M Q4_1) so the same code works in
//! the browser, where the file arrives as bytes. Parsing is bounds-checked throughout:
//! corrupt input yields a [`GgufError`] naming the key or tensor and the byte offset.

mod cursor;
mod error;
mod value;
mod writer;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use cursor::Cursor;
pub use error::GgufError;
// The ggml element types and their block layouts live with the kernels that read them.
pub use espalier_kernels::{GgmlType, QK, QK_K};
pub use value::MetadataValue;
pub use writer::GgufWriter;

/// Arrays nested deeper than this are rejected (GGUF files use one level).
const MAX_ARRAY_DEPTH: usize = 4;
/// ggml tensors have at most four dimensions.
const MAX_DIMS: u32 = 4;
/// Alignment of the data section when `general.alignment` is absent.
const DEFAULT_ALIGNMENT: u64 = 32;

/// Where one tensor lives in the file and how it is encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorInfo {
    /// The tensor's name, e.g. `blk.0.attn_q.weight`.
    pub name: String,
    /// Dimensions in GGUF order: innermost (contiguous) first. A `[out, in]` weight
    /// matrix of PyTorch is stored as `dims = [in, out]`.
    pub dims: Vec<u64>,
    /// Element encoding.
    pub ggml_type: GgmlType,
    /// Absolute byte offset of the data in the file.
    pub data_start: u64,
    /// Bytes of data.
    pub data_len: u64,
    /// Byte offset of this tensor's info record (for error messages).
    pub info_offset: u64,
}

impl TensorInfo {
    /// Number of elements.
    pub fn elements(&self) -> u64 {
        self.dims.iter().product()
    }
}

/// A parsed GGUF file: metadata, tensor infos, and the bytes holding the data.
pub struct Gguf {
    bytes: Vec<u8>,
    version: u32,
    alignment: u64,
    metadata: BTreeMap<String, MetadataValue>,
    tensors: Vec<TensorInfo>,
    by_name: HashMap<String, usize>,
}

impl std::fmt::Debug for Gguf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gguf")
            .field("bytes", &self.bytes.len())
            .field("version", &self.version)
            .field("metadata_keys", &self.metadata.len())
            .field("tensors", &self.tensors.len())
            .finish()
    }
}

/// The magic, the version (2 or 3) and the two counts, each count checked against the
/// bytes left before any memory is reserved for it.
fn read_header(c: &mut Cursor<'_>) -> Result<(u32, u64, u64), GgufError> {
    let magic = c.take(4, &|| "magic".into())?;
    if magic != b"GGUF" {
        let mut found = [0u8; 4];
        found.copy_from_slice(magic);
        return Err(GgufError::BadMagic { found });
    }
    let version = c.u32(&|| "version".into())?;
    if !(2..=3).contains(&version) {
        return Err(GgufError::UnsupportedVersion { version });
    }
    let tensor_count = c.u64(&|| "tensor count".into())?;
    let kv_count = c.u64(&|| "metadata count".into())?;
    // Each key/value pair takes at least 12 bytes, each tensor info at least 24:
    // reject impossible counts before reserving memory for them.
    check_count(c, kv_count, 12, "metadata count", 16)?;
    check_count(c, tensor_count, 24, "tensor count", 8)?;
    Ok((version, tensor_count, kv_count))
}

fn read_metadata(
    c: &mut Cursor<'_>,
    kv_count: u64,
) -> Result<BTreeMap<String, MetadataValue>, GgufError> {
    let mut metadata = BTreeMap::new();
    for i in 0..kv_count {
        let key = c.string(&|| format!("metadata key #{i}"))?;
        let type_at = c.pos() as u64;
        let type_id = c.u32(&|| format!("type of metadata key {key:?}"))?;
        let value = read_value(c, &key, type_id, type_at, 0)?;
        metadata.insert(key, value);
    }
    Ok(metadata)
}

/// `general.alignment` (a power of two up to 1 MiB), or the default.
fn alignment_of(metadata: &BTreeMap<String, MetadataValue>) -> Result<u64, GgufError> {
    let Some(v) = metadata.get("general.alignment") else { return Ok(DEFAULT_ALIGNMENT) };
    let a = v.as_u64().ok_or(GgufError::WrongKeyType {
        key: "general.alignment".into(),
        expected: "unsigned integer",
        found: v.type_name(),
    })?;
    if a == 0 || !a.is_power_of_two() || a > 1 << 20 {
        return Err(GgufError::BadAlignment { alignment: a });
    }
    Ok(a)
}

/// A tensor's entry in the header, as read: not yet checked against its type or the
/// data section.
struct RawInfo {
    name: String,
    dims: Vec<u64>,
    type_id: u32,
    offset: u64,
    info_offset: u64,
}

impl RawInfo {
    fn read(c: &mut Cursor<'_>, i: u64) -> Result<RawInfo, GgufError> {
        let info_offset = c.pos() as u64;
        let name = c.string(&|| format!("name of tensor #{i}"))?;
        let n_dims = c.u32(&|| format!("dimension count of tensor {name:?}"))?;
        if n_dims == 0 || n_dims > MAX_DIMS {
            return Err(GgufError::BadShape {
                tensor: name,
                dims: vec![],
                offset: info_offset,
                reason: format!("{n_dims} dimensions (ggml allows 1 to {MAX_DIMS})"),
            });
        }
        let mut dims = Vec::with_capacity(n_dims as usize);
        for d in 0..n_dims {
            dims.push(c.u64(&|| format!("dimension {d} of tensor {name:?}"))?);
        }
        let type_id = c.u32(&|| format!("type of tensor {name:?}"))?;
        let offset = c.u64(&|| format!("data offset of tensor {name:?}"))?;
        Ok(RawInfo { name, dims, type_id, offset, info_offset })
    }
}

/// Where the tensor data starts, the file's length and the alignment every tensor's
/// offset must keep.
struct DataSection {
    start: u64,
    file_len: u64,
    alignment: u64,
}

impl DataSection {
    /// The tensor's type and shape checked (whole blocks per row, no overflow) and its
    /// bytes placed inside the file.
    fn place(&self, raw: RawInfo) -> Result<TensorInfo, GgufError> {
        let RawInfo { name, dims, type_id, offset, info_offset } = raw;
        let ggml_type =
            GgmlType::from_id(type_id).map_err(|type_name| GgufError::UnsupportedTensorType {
                tensor: name.clone(),
                type_id,
                type_name,
                offset: info_offset,
            })?;
        let bad_shape = |reason: &str| GgufError::BadShape {
            tensor: name.clone(),
            dims: dims.clone(),
            offset: info_offset,
            reason: reason.to_owned(),
        };
        let elements = dims
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| bad_shape("element count overflows"))?;
        if dims[0] % ggml_type.block_len() as u64 != 0 {
            return Err(bad_shape(&format!(
                "rows of {} elements are not a whole number of {}-element blocks",
                dims[0],
                ggml_type.block_len()
            )));
        }
        let data_len =
            ggml_type.byte_len(elements).ok_or_else(|| bad_shape("byte size overflows"))?;
        let data_start = self.start.checked_add(offset);
        let data_end = data_start.and_then(|s| s.checked_add(data_len));
        match (data_start, data_end) {
            (Some(start), Some(end)) if end <= self.file_len && offset % self.alignment == 0 => {
                Ok(TensorInfo { name, dims, ggml_type, data_start: start, data_len, info_offset })
            }
            _ => Err(GgufError::TensorOutOfBounds {
                tensor: name,
                start: self.start.saturating_add(offset),
                end: self.start.saturating_add(offset).saturating_add(data_len),
                file_len: self.file_len,
                alignment: self.alignment,
            }),
        }
    }
}

impl Gguf {
    /// Reads and parses the file at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, GgufError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path)
            .map_err(|source| GgufError::Io { path: path.to_owned(), source })?;
        Self::from_bytes(bytes)
    }

    /// Parses a GGUF file held in memory (in the browser the file arrives this way).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, GgufError> {
        let mut c = Cursor::new(&bytes);
        let (version, tensor_count, kv_count) = read_header(&mut c)?;
        let metadata = read_metadata(&mut c, kv_count)?;
        let alignment = alignment_of(&metadata)?;
        let raw_infos =
            (0..tensor_count).map(|i| RawInfo::read(&mut c, i)).collect::<Result<Vec<_>, _>>()?;
        // A file without tensors (llama.cpp's vocabulary-only GGUFs) may end right after
        // its metadata, with no padding.
        if !raw_infos.is_empty() {
            c.align(alignment as usize, &|| "padding before the tensor data".into())?;
        }
        let data = DataSection { start: c.pos() as u64, file_len: bytes.len() as u64, alignment };
        let mut tensors = Vec::with_capacity(raw_infos.len());
        let mut by_name = HashMap::with_capacity(raw_infos.len());
        for raw in raw_infos {
            let info = data.place(raw)?;
            if by_name.insert(info.name.clone(), tensors.len()).is_some() {
                return Err(GgufError::DuplicateTensor {
                    tensor: info.name,
                    offset: info.info_offset,
                });
            }
            tensors.push(info);
        }
        Ok(Self { bytes, version, alignment, metadata, tensors, by_name })
    }

    /// Bytes of the whole file (held in memory).
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether the file is empty (never, for a parsed file; for clippy's `len` rule).
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The GGUF format version (2 or 3).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The data section's alignment.
    pub fn alignment(&self) -> u64 {
        self.alignment
    }

    /// All metadata, sorted by key.
    pub fn metadata(&self) -> &BTreeMap<String, MetadataValue> {
        &self.metadata
    }

    /// All tensor infos, in file order.
    pub fn tensors(&self) -> &[TensorInfo] {
        &self.tensors
    }

    /// One metadata value, or [`GgufError::MissingKey`].
    pub fn get(&self, key: &str) -> Result<&MetadataValue, GgufError> {
        self.metadata.get(key).ok_or_else(|| GgufError::MissingKey { key: key.into() })
    }

    /// A metadata value that must be an unsigned integer.
    pub fn get_u64(&self, key: &str) -> Result<u64, GgufError> {
        let v = self.get(key)?;
        v.as_u64().ok_or(GgufError::WrongKeyType {
            key: key.into(),
            expected: "unsigned integer",
            found: v.type_name(),
        })
    }

    /// A metadata value that must be a number.
    pub fn get_f64(&self, key: &str) -> Result<f64, GgufError> {
        let v = self.get(key)?;
        v.as_f64().ok_or(GgufError::WrongKeyType {
            key: key.into(),
            expected: "number",
            found: v.type_name(),
        })
    }

    /// A metadata value that must be a string.
    pub fn get_str(&self, key: &str) -> Result<&str, GgufError> {
        let v = self.get(key)?;
        v.as_str().ok_or(GgufError::WrongKeyType {
            key: key.into(),
            expected: "string",
            found: v.type_name(),
        })
    }

    /// A metadata value that must be an array.
    pub fn get_array(&self, key: &str) -> Result<&[MetadataValue], GgufError> {
        let v = self.get(key)?;
        v.as_array().ok_or(GgufError::WrongKeyType {
            key: key.into(),
            expected: "array",
            found: v.type_name(),
        })
    }

    /// A metadata value that must be an array of strings.
    pub fn get_str_array(&self, key: &str) -> Result<Vec<&str>, GgufError> {
        self.get_array(key)?
            .iter()
            .map(|v| {
                v.as_str().ok_or(GgufError::WrongKeyType {
                    key: key.into(),
                    expected: "array of strings",
                    found: v.type_name(),
                })
            })
            .collect()
    }

    /// The info of the tensor `name`, or [`GgufError::MissingTensor`].
    pub fn tensor_info(&self, name: &str) -> Result<&TensorInfo, GgufError> {
        self.by_name
            .get(name)
            .map(|&i| &self.tensors[i])
            .ok_or_else(|| GgufError::MissingTensor { name: name.into() })
    }

    /// The encoded bytes of tensor `name` (bounds were checked when parsing).
    pub fn tensor_bytes(&self, name: &str) -> Result<(&TensorInfo, &[u8]), GgufError> {
        let info = self.tensor_info(name)?;
        let start = info.data_start as usize;
        Ok((info, &self.bytes[start..start + info.data_len as usize]))
    }

    /// Tensor `name` dequantized to f32, in GGUF order (innermost dimension contiguous).
    pub fn tensor_f32(&self, name: &str) -> Result<Vec<f32>, GgufError> {
        let (info, bytes) = self.tensor_bytes(name)?;
        let mut out = vec![0f32; info.elements() as usize];
        info.ggml_type.dequantize(bytes, &mut out);
        Ok(out)
    }

    /// Like [`Gguf::tensor_f32`], first checking the shape (GGUF order).
    pub fn tensor_f32_shaped(&self, name: &str, dims: &[u64]) -> Result<Vec<f32>, GgufError> {
        let info = self.tensor_info(name)?;
        if info.dims != dims {
            return Err(GgufError::UnexpectedShape {
                tensor: name.into(),
                expected: dims.to_vec(),
                found: info.dims.clone(),
            });
        }
        self.tensor_f32(name)
    }
}

fn check_count(
    c: &Cursor<'_>,
    count: u64,
    min_bytes: u64,
    what: &str,
    offset: u64,
) -> Result<(), GgufError> {
    let available = c.remaining() as u64;
    if count.saturating_mul(min_bytes) > available {
        return Err(GgufError::BadLength { what: what.into(), len: count, offset, available });
    }
    Ok(())
}

/// Reads one value of type `type_id`; `key` names it in errors.
fn read_value(
    c: &mut Cursor<'_>,
    key: &str,
    type_id: u32,
    type_at: u64,
    depth: usize,
) -> Result<MetadataValue, GgufError> {
    let what = || format!("value of metadata key {key:?}");
    Ok(match type_id {
        0 => MetadataValue::U8(c.u8(&what)?),
        1 => MetadataValue::I8(c.u8(&what)? as i8),
        2 => MetadataValue::U16(c.u16(&what)?),
        3 => MetadataValue::I16(c.u16(&what)? as i16),
        4 => MetadataValue::U32(c.u32(&what)?),
        5 => MetadataValue::I32(c.u32(&what)? as i32),
        6 => MetadataValue::F32(f32::from_bits(c.u32(&what)?)),
        7 => MetadataValue::Bool(c.u8(&what)? != 0),
        8 => MetadataValue::String(c.string(&what)?),
        9 => {
            if depth >= MAX_ARRAY_DEPTH {
                return Err(GgufError::TooDeep {
                    key: key.into(),
                    max: MAX_ARRAY_DEPTH,
                    offset: type_at,
                });
            }
            let elem_at = c.pos() as u64;
            let elem_type = c.u32(&what)?;
            if elem_type > 12 {
                return Err(GgufError::BadValueType {
                    key: key.into(),
                    type_id: elem_type,
                    offset: elem_at,
                });
            }
            let len_at = c.pos() as u64;
            let len = c.u64(&what)?;
            // Every element takes at least one byte (strings at least eight).
            let min = match elem_type {
                8 => 8,
                9 => 12,
                _ => 1,
            };
            let available = c.remaining() as u64;
            if len.saturating_mul(min) > available {
                return Err(GgufError::BadLength { what: what(), len, offset: len_at, available });
            }
            let mut items = Vec::with_capacity(len as usize);
            for _ in 0..len {
                items.push(read_value(c, key, elem_type, elem_at, depth + 1)?);
            }
            MetadataValue::Array(items)
        }
        10 => MetadataValue::U64(c.u64(&what)?),
        11 => MetadataValue::I64(c.u64(&what)? as i64),
        12 => MetadataValue::F64(f64::from_bits(c.u64(&what)?)),
        _ => return Err(GgufError::BadValueType { key: key.into(), type_id, offset: type_at }),
    })
}
