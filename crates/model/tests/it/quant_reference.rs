//! Dequantization of every ggml block type against gguf-py's reference
//! (`gguf.quants.dequantize`, numpy: an implementation independent of ours). The
//! vectors in `tests/data/quant/` (random blocks with finite f16 scales, and gguf-py's
//! values for them) are written by `scripts/synthetic/quant_reference.py`.

use espalier_model::gguf::{GgmlType, Gguf};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/quant");

/// (type, ggml type id)
const TYPES: [(&str, u32); 8] = [
    ("Q4_0", 2),
    ("Q4_1", 3),
    ("Q5_0", 6),
    ("Q5_1", 7),
    ("Q8_0", 8),
    ("Q4_K", 12),
    ("Q5_K", 13),
    ("Q6_K", 14),
];

#[test]
fn every_block_type_dequantizes_like_gguf_py() {
    for (name, id) in TYPES {
        let ty = GgmlType::from_id(id).unwrap_or_else(|n| panic!("{name}: type {n} unsupported"));
        assert_eq!(ty.name(), name);
        let blocks = std::fs::read(format!("{DIR}/{name}.bin")).unwrap();
        let want: Vec<f32> = std::fs::read(format!("{DIR}/{name}.f32"))
            .unwrap()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(ty.byte_len(want.len() as u64), Some(blocks.len() as u64), "{name}: block size");
        let mut got = vec![f32::NAN; want.len()];
        ty.dequantize(&blocks, &mut got);
        let mut worst = 0f32;
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let err = (g - w).abs();
            // gguf-py evaluates the same products in numpy's f32; allow one rounding.
            assert!(err <= 1e-6 * (1.0 + w.abs()), "{name} value {i}: {g} vs gguf-py {w}");
            worst = worst.max(err);
        }
        println!("{name}: {} values, largest difference {worst:e}", want.len());
    }
}

/// A GGUF file with one 1-D tensor `t` of type `id`, `elements` long, and `data` as
/// its data section.
fn one_tensor_file(id: u32, elements: u64, data: &[u8]) -> Vec<u8> {
    let mut f = Vec::new();
    f.extend_from_slice(b"GGUF");
    f.extend_from_slice(&3u32.to_le_bytes());
    f.extend_from_slice(&1u64.to_le_bytes()); // tensors
    f.extend_from_slice(&0u64.to_le_bytes()); // metadata
    f.extend_from_slice(&1u64.to_le_bytes());
    f.push(b't');
    f.extend_from_slice(&1u32.to_le_bytes());
    f.extend_from_slice(&elements.to_le_bytes());
    f.extend_from_slice(&id.to_le_bytes());
    f.extend_from_slice(&0u64.to_le_bytes());
    while f.len() % 32 != 0 {
        f.push(0);
    }
    f.extend_from_slice(data);
    f
}

/// A tensor of each type inside a GGUF file reads back through `tensor_f32` like the
/// reference (the reader's sizes and offsets for the type are right); a file one byte
/// short, or a row that is not a whole number of blocks, is an error.
#[test]
fn block_types_read_from_a_gguf_file() {
    for (name, id) in TYPES {
        let blocks = std::fs::read(format!("{DIR}/{name}.bin")).unwrap();
        let want = std::fs::read(format!("{DIR}/{name}.f32")).unwrap();
        let elements = (want.len() / 4) as u64;
        let gguf = Gguf::from_bytes(one_tensor_file(id, elements, &blocks)).unwrap();
        let got = gguf.tensor_f32("t").unwrap();
        let want: Vec<f32> =
            want.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        assert!(
            got.iter().zip(&want).all(|(g, w)| (g - w).abs() <= 1e-6 * (1.0 + w.abs())),
            "{name}"
        );
        let short = one_tensor_file(id, elements, &blocks[..blocks.len() - 1]);
        assert!(Gguf::from_bytes(short).is_err(), "{name}: truncated data accepted");
        let ragged = one_tensor_file(id, elements - 1, &blocks);
        assert!(Gguf::from_bytes(ragged).is_err(), "{name}: partial block accepted");
    }
}
