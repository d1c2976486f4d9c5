//! Model loading from corrupt or hostile GGUFs of the new architectures and formats: a
//! tiny `qwen2` / `llama` file written here (Q4_K, Q6_K, Q5_0, Q8_0 and F16 matrices),
//! then truncated, bit-flipped, or given absurd dimensions. Loading returns an error
//! naming what is wrong, never panics and never allocates for a size the file cannot
//! hold; the intact file loads and runs.
#![cfg(feature = "ndarray")]

use espalier_model::{BackendKind, Gguf, Llama, ModelError};

use crate::common::{put_str, Rng};

const H: u64 = 256;
const FFN: u64 = 256;
const VOCAB: u64 = 16;
const HEADS: u32 = 4;
const KV: u32 = 2;

enum Meta<'a> {
    U32(u32),
    F32(f32),
    Str(&'a str),
}

/// (type id, elements per block, bytes per block, offsets of f16 scales in a block)
fn layout(ty: u32) -> (u64, u64, &'static [usize]) {
    match ty {
        0 => (1, 4, &[]),
        1 => (1, 2, &[]),
        6 => (32, 22, &[0]),
        8 => (32, 34, &[0]),
        12 => (256, 144, &[0, 2]),
        14 => (256, 210, &[208]),
        _ => unreachable!(),
    }
}

/// A model file: `arch`, one block, matrices of type `ty` (Q/K/V of `qkv_ty`).
fn model(arch: &str, ty: u32, qkv_ty: u32) -> Vec<u8> {
    let d = H / HEADS as u64;
    let kv = KV as u64 * d;
    let meta = [
        ("general.architecture".to_string(), Meta::Str(arch)),
        (format!("{arch}.embedding_length"), Meta::U32(H as u32)),
        (format!("{arch}.block_count"), Meta::U32(1)),
        (format!("{arch}.feed_forward_length"), Meta::U32(FFN as u32)),
        (format!("{arch}.attention.head_count"), Meta::U32(HEADS)),
        (format!("{arch}.attention.head_count_kv"), Meta::U32(KV)),
        (format!("{arch}.context_length"), Meta::U32(64)),
        (format!("{arch}.rope.freq_base"), Meta::F32(1e6)),
        (format!("{arch}.attention.layer_norm_rms_epsilon"), Meta::F32(1e-6)),
    ];
    let mut tensors: Vec<(String, Vec<u64>, u32)> =
        vec![("token_embd.weight".into(), vec![H, VOCAB], 8)];
    let b = |s: &str| format!("blk.0.{s}");
    tensors.push((b("attn_norm.weight"), vec![H], 0));
    tensors.push((b("attn_q.weight"), vec![H, H], qkv_ty));
    tensors.push((b("attn_k.weight"), vec![H, kv], qkv_ty));
    tensors.push((b("attn_v.weight"), vec![H, kv], qkv_ty));
    if arch == "qwen2" {
        tensors.push((b("attn_q.bias"), vec![H], 0));
        tensors.push((b("attn_k.bias"), vec![kv], 0));
        tensors.push((b("attn_v.bias"), vec![kv], 0));
    }
    tensors.push((b("attn_output.weight"), vec![H, H], ty));
    tensors.push((b("ffn_norm.weight"), vec![H], 0));
    tensors.push((b("ffn_gate.weight"), vec![H, FFN], ty));
    tensors.push((b("ffn_up.weight"), vec![H, FFN], ty));
    tensors.push((b("ffn_down.weight"), vec![FFN, H], 1));
    tensors.push(("output_norm.weight".into(), vec![H], 0));
    if arch == "llama" {
        tensors.push(("output.weight".into(), vec![H, VOCAB], ty));
    }

    let mut f = b"GGUF".to_vec();
    f.extend_from_slice(&3u32.to_le_bytes());
    f.extend_from_slice(&(tensors.len() as u64).to_le_bytes());
    f.extend_from_slice(&(meta.len() as u64).to_le_bytes());
    for (k, v) in &meta {
        put_str(&mut f, k);
        match v {
            Meta::U32(x) => {
                f.extend_from_slice(&4u32.to_le_bytes());
                f.extend_from_slice(&x.to_le_bytes());
            }
            Meta::F32(x) => {
                f.extend_from_slice(&6u32.to_le_bytes());
                f.extend_from_slice(&x.to_le_bytes());
            }
            Meta::Str(s) => {
                f.extend_from_slice(&8u32.to_le_bytes());
                put_str(&mut f, s);
            }
        }
    }
    let mut data = Vec::new();
    let mut rng = Rng(5);
    for (name, dims, ty) in &tensors {
        put_str(&mut f, name);
        f.extend_from_slice(&(dims.len() as u32).to_le_bytes());
        dims.iter().for_each(|d| f.extend_from_slice(&d.to_le_bytes()));
        f.extend_from_slice(&ty.to_le_bytes());
        f.extend_from_slice(&(data.len() as u64).to_le_bytes());
        let (per, bytes, halves) = layout(*ty);
        let blocks = dims.iter().product::<u64>() / per;
        for _ in 0..blocks {
            let start = data.len();
            if *ty == 0 {
                // Norms and biases: values near 1 (norms) or small (biases).
                let v = if name.ends_with("norm.weight") { 1.0f32 } else { 0.01 };
                data.extend_from_slice(&v.to_le_bytes());
                continue;
            }
            data.extend((0..bytes).map(|_| rng.next() as u8));
            for &h in halves {
                // A finite small scale: 0x2000 is 2^-7 in f16.
                data[start + h] = 0;
                data[start + h + 1] = 0x20;
            }
            if *ty == 1 {
                // F16 values: keep them finite and small.
                data[start + 1] = (data[start + 1] & 0x83) | 0x20;
            }
        }
        while data.len() % 32 != 0 {
            data.push(0);
        }
    }
    while !f.len().is_multiple_of(32) {
        f.push(0);
    }
    f.extend_from_slice(&data);
    f
}

fn load(bytes: Vec<u8>) -> Result<Llama, ModelError> {
    let gguf = Gguf::from_bytes(bytes)?;
    Llama::load(&gguf, &BackendKind::Ndarray.device().unwrap())
}

#[test]
fn intact_files_load_and_run() {
    for (arch, ty, qkv) in [("qwen2", 12, 14), ("llama", 6, 12), ("qwen2", 8, 8)] {
        let m = load(model(arch, ty, qkv)).unwrap_or_else(|e| panic!("{arch}: {e}"));
        assert_eq!(m.config().arch.name(), arch);
        let mut cache = m.new_cache();
        let logits = m.forward(&[1, 2, 3], &mut cache).unwrap();
        assert_eq!(logits.len(), VOCAB as usize);
        assert!(logits.iter().all(|x| x.is_finite()), "{arch}: {logits:?}");
    }
}

#[test]
fn named_errors() {
    assert!(load(model("qwen2", 12, 12)).is_ok());
    // Another architecture name of the same length.
    let mut b = model("qwen2", 12, 12);
    let at = b.windows(5).position(|w| w == b"qwen2").unwrap();
    b[at..at + 5].copy_from_slice(b"gemma");
    let e = load(b).unwrap_err().to_string();
    assert!(e.contains("\"gemma\"") && e.contains("qwen2"), "{e}");
    // A missing tensor: rename one.
    let mut b = model("qwen2", 12, 12);
    let at = b.windows(11).position(|w| w == b"attn_k.bias").unwrap();
    b[at..at + 11].copy_from_slice(b"attn_x.bias");
    let e = load(b).unwrap_err().to_string();
    assert!(e.contains("blk.0.attn_k.bias"), "{e}");
}

#[test]
fn truncations_and_bit_flips_are_errors_not_panics() {
    let full = model("qwen2", 12, 14);
    let mut rng = Rng(99);
    for i in 0..300 {
        let mut b = full.clone();
        if i % 3 == 0 {
            b.truncate((rng.next() % b.len() as u64) as usize);
            assert!(load(b).is_err(), "a truncated file loaded");
        } else {
            // Flip bits in the header (metadata, tensor infos), where sizes live.
            for _ in 0..1 + rng.next() % 4 {
                let at = (rng.next() % 1200) as usize;
                b[at] ^= 1 << (rng.next() % 8);
            }
            if let Ok(m) = load(b) {
                let mut cache = m.new_cache();
                let _ = m.forward(&[0], &mut cache);
            }
        }
    }
}

#[test]
fn absurd_dimensions_are_refused() {
    // Patch a u32 value right after its key.
    fn set(b: &mut [u8], key: &str, v: u32) {
        let k = key.as_bytes();
        let at = b.windows(k.len()).position(|w| w == k).unwrap() + k.len() + 4;
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    for (key, v) in [
        ("qwen2.embedding_length", u32::MAX),
        ("qwen2.block_count", 1_000_000_000),
        ("qwen2.feed_forward_length", u32::MAX),
        ("qwen2.attention.head_count", 0),
        ("qwen2.attention.head_count_kv", 3),
        ("qwen2.context_length", u32::MAX),
    ] {
        let mut b = model("qwen2", 12, 12);
        set(&mut b, key, v);
        match load(b) {
            Err(e) => println!("{key} = {v}: {e}"),
            // A huge context is capped (MAX_CONTEXT), not allocated.
            Ok(m) => assert!(
                key.ends_with("context_length")
                    && m.config().context_len <= espalier_model::MAX_CONTEXT,
                "{key} = {v} loaded"
            ),
        }
    }
}
