//! Property test of the GGUF reader: truncated and bit-flipped files never panic and
//! never read out of bounds; they parse or return an error. Uses a small synthetic
//! file (always) and the real model's header (when the model is fetched).

use espalier_model::gguf::{GgmlType, Gguf, GgufError};

use crate::common::{put_str, Rng};

/// A valid GGUF v3 with a few metadata kinds and one tensor of each supported type.
fn synthetic() -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend_from_slice(&3u32.to_le_bytes());
    // (name, type id, elements, bytes): one tensor of every supported type.
    let tensors: [(&str, u32, u64, u64); 10] = [
        ("f32", 0, 32, 4 * 32),
        ("f16", 1, 32, 2 * 32),
        ("q8", 8, 32, 34),
        ("q40", 2, 32, 18),
        ("q50", 6, 32, 22),
        ("q51", 7, 32, 24),
        ("q4k", 12, 256, 144),
        ("q5k", 13, 256, 176),
        ("q6k", 14, 256, 210),
        ("q41", 3, 32, 20),
    ];
    b.extend_from_slice(&(tensors.len() as u64).to_le_bytes());
    b.extend_from_slice(&3u64.to_le_bytes());
    put_str(&mut b, "general.architecture");
    b.extend_from_slice(&8u32.to_le_bytes());
    put_str(&mut b, "llama");
    put_str(&mut b, "general.alignment");
    b.extend_from_slice(&4u32.to_le_bytes());
    b.extend_from_slice(&32u32.to_le_bytes());
    put_str(&mut b, "tokenizer.ggml.tokens");
    b.extend_from_slice(&9u32.to_le_bytes());
    b.extend_from_slice(&8u32.to_le_bytes());
    b.extend_from_slice(&2u64.to_le_bytes());
    put_str(&mut b, "a");
    put_str(&mut b, "Ġb");
    let mut offset = 0u64;
    let mut end = 0u64;
    for (name, ty, elements, bytes) in tensors {
        put_str(&mut b, name);
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&elements.to_le_bytes());
        b.extend_from_slice(&ty.to_le_bytes());
        b.extend_from_slice(&offset.to_le_bytes());
        end = offset + bytes;
        offset += bytes.div_ceil(32) * 32;
    }
    while !b.len().is_multiple_of(32) {
        b.push(0);
    }
    let mut rng = Rng(7);
    // The last tensor ends the file: any truncation cuts into some tensor.
    for _ in 0..end {
        b.push(rng.next() as u8 & 0x3f);
    }
    b
}

/// Parses and, when that succeeds, decodes every tensor and reads every key.
fn exercise(bytes: Vec<u8>) -> Result<(), GgufError> {
    let g = Gguf::from_bytes(bytes)?;
    for t in g.tensors().to_vec() {
        if t.elements() <= 1 << 20 {
            g.tensor_f32(&t.name)?;
        }
    }
    for k in g.metadata().keys() {
        let _ = g.get_u64(k);
        let _ = g.get_str_array(k);
    }
    Ok(())
}

#[test]
fn synthetic_file_parses_and_decodes() {
    let g = Gguf::from_bytes(synthetic()).unwrap();
    assert_eq!(g.tensors().len(), 10);
    assert_eq!(g.tensor_info("q6k").unwrap().ggml_type, GgmlType::Q6_K);
    assert_eq!(g.tensor_f32("q4k").unwrap().len(), 256);
    assert_eq!(g.tensor_info("q41").unwrap().ggml_type, GgmlType::Q4_1);
    assert_eq!(g.get_str_array("tokenizer.ggml.tokens").unwrap(), vec!["a", "Ġb"]);
    assert_eq!(g.tensor_f32("q8").unwrap().len(), 32);
}

#[test]
fn every_truncation_is_an_error_not_a_panic() {
    let full = synthetic();
    for len in 0..full.len() {
        let err = exercise(full[..len].to_vec());
        assert!(err.is_err(), "truncated to {len} bytes parsed");
    }
}

#[test]
fn bit_flips_never_panic() {
    let full = synthetic();
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for _ in 0..20_000 {
        let mut b = full.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(b.len());
            b[at] ^= 1 << rng.below(8);
        }
        let _ = exercise(b);
    }
}

#[test]
fn named_errors() {
    let mut b = synthetic();
    b[0] = b'X';
    assert!(matches!(Gguf::from_bytes(b), Err(GgufError::BadMagic { .. })));
    let err = Gguf::from_bytes(synthetic()[..400].to_vec()).unwrap_err();
    assert!(err.to_string().contains("truncated"), "{err}");
    let err = Gguf::from_bytes(synthetic()).unwrap().tensor_f32("nope").unwrap_err();
    assert!(err.to_string().contains("\"nope\""), "{err}");
}

#[test]
fn real_model_header_mutations_never_panic() {
    let path =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/models/SmolLM2-135M-Instruct.Q4_1.gguf");
    let full = std::fs::read(espalier_testkit::require(
        path,
        "the model",
        Some("bash scripts/fetch-model.sh"),
    ))
    .expect("read the model");
    let g = Gguf::from_bytes(full.clone()).expect("real model parses");
    let data_start = g.tensors().iter().map(|t| t.data_start).min().unwrap() as usize;
    // The header (metadata and tensor infos) is what can be corrupt in interesting
    // ways; mutate it, keep a little data after it, and parse.
    let head = &full[..data_start + 4096];
    let mut rng = Rng(42);
    for i in 0..300 {
        let mut b = head.to_vec();
        if i % 3 == 0 {
            b.truncate(rng.below(b.len()));
        } else {
            for _ in 0..1 + rng.below(8) {
                let at = rng.below(data_start);
                b[at] ^= 1 << rng.below(8);
            }
        }
        let _ = exercise(b);
    }
}
