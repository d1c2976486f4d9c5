//! A GGUF writer: metadata and tensors in, the bytes of a version-3 file out (what
//! [`super::Gguf::from_bytes`] reads). It serves the synthetic models
//! ([`crate::synthetic`]) that prove a user's own GGUF end to end without the real
//! weights; by hand for the same reason as the reader (no small crate writes GGUF).

use super::{GgmlType, MetadataValue, DEFAULT_ALIGNMENT};

/// A GGUF file being put together in memory.
#[derive(Default)]
pub struct GgufWriter {
    metadata: Vec<(String, MetadataValue)>,
    tensors: Vec<(String, Vec<u64>, GgmlType, Vec<u8>)>,
}

impl GgufWriter {
    /// An empty file.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the metadata key `key`.
    pub fn metadata(&mut self, key: &str, value: MetadataValue) -> &mut Self {
        self.metadata.retain(|(k, _)| k != key);
        self.metadata.push((key.to_owned(), value));
        self
    }

    /// Adds a tensor: `dims` in GGUF order (innermost first), `data` already encoded as
    /// `ggml_type` (its length is not checked here; the reader checks it).
    pub fn tensor(
        &mut self,
        name: &str,
        dims: &[u64],
        ggml_type: GgmlType,
        data: Vec<u8>,
    ) -> &mut Self {
        self.tensors.push((name.to_owned(), dims.to_vec(), ggml_type, data));
        self
    }

    /// Leaves out the tensor `name` (for files that lack one on purpose).
    pub fn remove_tensor(&mut self, name: &str) -> &mut Self {
        self.tensors.retain(|(n, ..)| n != name);
        self
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let align = DEFAULT_ALIGNMENT as usize;
        let mut f = b"GGUF".to_vec();
        f.extend_from_slice(&3u32.to_le_bytes());
        f.extend_from_slice(&(self.tensors.len() as u64).to_le_bytes());
        f.extend_from_slice(&(self.metadata.len() as u64).to_le_bytes());
        for (key, value) in &self.metadata {
            put_str(&mut f, key);
            f.extend_from_slice(&type_id(value).to_le_bytes());
            put_value(&mut f, value);
        }
        let mut offset = 0usize;
        for (name, dims, ty, data) in &self.tensors {
            put_str(&mut f, name);
            f.extend_from_slice(&(dims.len() as u32).to_le_bytes());
            dims.iter().for_each(|d| f.extend_from_slice(&d.to_le_bytes()));
            f.extend_from_slice(&ty.id().to_le_bytes());
            f.extend_from_slice(&(offset as u64).to_le_bytes());
            offset += data.len().next_multiple_of(align);
        }
        f.resize(f.len().next_multiple_of(align), 0);
        for (_, _, _, data) in &self.tensors {
            f.extend_from_slice(data);
            f.resize(f.len().next_multiple_of(align), 0);
        }
        f
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// GGUF's value type ids.
fn type_id(v: &MetadataValue) -> u32 {
    match v {
        MetadataValue::U8(_) => 0,
        MetadataValue::I8(_) => 1,
        MetadataValue::U16(_) => 2,
        MetadataValue::I16(_) => 3,
        MetadataValue::U32(_) => 4,
        MetadataValue::I32(_) => 5,
        MetadataValue::F32(_) => 6,
        MetadataValue::Bool(_) => 7,
        MetadataValue::String(_) => 8,
        MetadataValue::Array(_) => 9,
        MetadataValue::U64(_) => 10,
        MetadataValue::I64(_) => 11,
        MetadataValue::F64(_) => 12,
    }
}

fn put_value(out: &mut Vec<u8>, v: &MetadataValue) {
    match v {
        MetadataValue::U8(x) => out.push(*x),
        MetadataValue::I8(x) => out.extend_from_slice(&x.to_le_bytes()),
        MetadataValue::U16(x) => out.extend_from_slice(&x.to_le_bytes()),
        MetadataValue::I16(x) => out.extend_from_slice(&x.to_le_bytes()),
        MetadataValue::U32(x) => out.extend_from_slice(&x.to_le_bytes()),
        MetadataValue::I32(x) => out.extend_from_slice(&x.to_le_bytes()),
        MetadataValue::U64(x) => out.extend_from_slice(&x.to_le_bytes()),
        MetadataValue::I64(x) => out.extend_from_slice(&x.to_le_bytes()),
        MetadataValue::F32(x) => out.extend_from_slice(&x.to_le_bytes()),
        MetadataValue::F64(x) => out.extend_from_slice(&x.to_le_bytes()),
        MetadataValue::Bool(x) => out.push(u8::from(*x)),
        MetadataValue::String(s) => put_str(out, s),
        MetadataValue::Array(items) => {
            // An empty array's element type is not known: uint32 then.
            let elem = items.first().map_or(4, type_id);
            out.extend_from_slice(&elem.to_le_bytes());
            out.extend_from_slice(&(items.len() as u64).to_le_bytes());
            items.iter().for_each(|item| put_value(out, item));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Gguf;

    #[test]
    fn what_the_writer_writes_the_reader_reads_back() {
        let mut w = GgufWriter::new();
        w.metadata("general.architecture", MetadataValue::String("qwen2".into()))
            .metadata("n", MetadataValue::U32(7))
            .metadata("x", MetadataValue::F64(0.5))
            .metadata("ok", MetadataValue::Bool(true))
            .metadata(
                "list",
                MetadataValue::Array(vec![
                    MetadataValue::String("a".into()),
                    MetadataValue::String("bc".into()),
                ]),
            )
            .metadata("empty", MetadataValue::Array(vec![]));
        let values: Vec<u8> = [1.5f32, -2.0, 0.25].iter().flat_map(|v| v.to_le_bytes()).collect();
        w.tensor("t.weight", &[3], GgmlType::F32, values);
        w.tensor("u.weight", &[32, 2], GgmlType::F16, vec![0; 128]);
        let g = Gguf::from_bytes(w.to_bytes()).unwrap();
        assert_eq!(g.get_str("general.architecture").unwrap(), "qwen2");
        assert_eq!(g.get_u64("n").unwrap(), 7);
        assert_eq!(g.get_f64("x").unwrap(), 0.5);
        assert_eq!(g.get("ok").unwrap(), &MetadataValue::Bool(true));
        assert_eq!(g.get_str_array("list").unwrap(), vec!["a", "bc"]);
        assert!(g.get_array("empty").unwrap().is_empty());
        assert_eq!(g.tensor_f32("t.weight").unwrap(), vec![1.5, -2.0, 0.25]);
        assert_eq!(g.tensor_info("u.weight").unwrap().dims, vec![32, 2]);
        assert_eq!(g.tensor_f32("u.weight").unwrap(), vec![0.0; 64]);
    }

    #[test]
    fn type_ids_round_trip() {
        use GgmlType::*;
        for ty in [F32, F16, Q8_0, Q4_1, Q4_0, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K] {
            assert_eq!(GgmlType::from_id(ty.id()), Ok(ty));
        }
    }
}
