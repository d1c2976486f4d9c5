//! The GPU block kernel's self-check (`gpu_quantized.rs`) on a cubecl device: the kernel
//! against its host twin ([`GpuBlocks::matmul`], the same sums in the same order) on
//! deterministic blocks of each layout (Q4_1, Q8_0, Q5_1; Q6_K and Q4_K + Q6_K rows in
//! one matrix) of several shapes (a partial last workgroup, one to
//! three activation rows, SmolLM2's widths), and the launch geometry the kernel sees
//! (every row's index, activation row and scalar arguments, read back); then the greedy
//! argmax under a token mask (`gpu_argmax.rs`) against its host twin, with ties, NaN,
//! infinities, refused ids and an empty mask; then the kernels around the products
//! (`gpu_fused_check.rs`).
//!
//! Public so that it runs where `cargo test` cannot: a binary carried to a GPU machine
//! without Rust (the agreement test prints it before the model runs; issue 20 found the
//! kernel wrong on CUDA while right on WebGPU, and this tells a wrong launch from wrong
//! arithmetic without the model).

use burn::tensor::{Device, Tensor, TensorData};

use super::block_values::{gguf_rows, noise};
use super::gpu_blocks::GpuBlocks;
pub use super::gpu_check_report::GpuKernelCheck;
use super::gpu_matvec::launch_geometry;
use super::gpu_quantized::{GpuQuantized, RowSplit};
use super::ModelError;
use crate::gguf::GgmlType;

/// Tolerance relative to `1 + |host|`: the device sums in the host's order, so only
/// fused multiply-adds and the compiler's reassociation can differ.
const TOLERANCE: f64 = 1e-4;

/// (rows, cols, activation rows): a partial workgroup (37, 100), one block column,
/// SmolLM2's projections (576 -> 1536, 1536 -> 576), and prompts of more than one tile of
/// activation rows (the last one partial: `gpu_quantized::PREFILL_TILE`).
const SHAPES: [(usize, usize, usize); 8] = [
    (37, 96, 1),
    (37, 96, 3),
    (100, 32, 2),
    (64, 576, 1),
    (1536, 576, 2),
    (576, 1536, 1),
    (64, 576, 19),
    (1536, 576, 10),
];

/// Runs the launch-geometry probe and the kernel on every shape of both block types on
/// `device` (a cubecl device: wgpu or cuda).
pub fn run(device: &Device) -> Result<GpuKernelCheck, ModelError> {
    let mut check = GpuKernelCheck::default();
    report_burn_matmul(&mut check, device)?;
    use GgmlType::*;
    for split in RowSplit::ALL {
        for t in [1, 3, 19] {
            check_geometry(&mut check, device, split, t)?;
        }
        // One type per layout (Q4_1, Q8_0, Q8_16) on every shape.
        for ty in [Q4_1, Q8_0, Q5_1] {
            for (rows, cols, t) in SHAPES {
                check_kernel(&mut check, device, split, (&[ty], rows, cols, t), None)?;
            }
        }
        // Q6_K's halves with their own scales, and a Q4_K_M file's fused Q/K/V (Q4_K
        // rows beside Q6_K ones: Q8_16), on a width of whole super-blocks.
        for types in [&[Q6_K][..], &[Q4_K, Q4_K, Q6_K]] {
            check_kernel(&mut check, device, split, (types, 576, 1536, 2), None)?;
        }
        // A matrix over the device's one-allocation cap goes up in parts of rows: here
        // parts of 200 rows (768-byte rows of words), the last one partial, a prompt.
        check_kernel(&mut check, device, split, (&[Q4_1], 576, 1536, 3), Some(200 * 768))?;
    }
    #[cfg(not(feature = "fusion"))]
    check_argmax(&mut check, device)?;
    #[cfg(not(feature = "fusion"))]
    check_top(&mut check, device)?;
    #[cfg(not(feature = "fusion"))]
    super::gpu_fused_check::run(&mut check, device)?;
    Ok(check)
}

/// The GPU argmax (its id read back both blocking and asynchronously) against
/// [`host_argmax`] on 49,152 logits (SmolLM2's vocabulary) and on 1,000 (a partial last
/// mask word): dense and sparse masks, refused ids, a tie
/// planted at the maximum, NaN and infinite logits, and a mask that allows nothing.
#[cfg(not(feature = "fusion"))]
fn check_argmax(check: &mut GpuKernelCheck, device: &Device) -> Result<(), ModelError> {
    use super::device_logits::{device_words, host_argmax, mask_words};
    use super::gpu_argmax::{device_argmax, device_argmax_async};

    let mut wrong = Vec::new();
    let mut cases = 0;
    for (n, seed) in [(49_152usize, 31u32), (1_000, 32)] {
        let (logits, dense, sparse, nothing) = argmax_case(n, seed);
        let refused = [n as u32 / 4, 3, n as u32 - 5];
        let tensor = Tensor::<2>::from_data(TensorData::new(logits.clone(), [1, n]), device);
        for (name, mask) in [
            ("all", None),
            ("dense", Some(&dense)),
            ("sparse", Some(&sparse)),
            ("none", Some(&nothing)),
        ] {
            for refused in [&refused[..0], &refused[..]] {
                let mask = mask.map(|m| m.as_slice());
                // What the draw uploads: none for "all" with nothing refused (unmasked).
                let uploaded = device_words(mask, refused, n);
                let got = device_argmax(&tensor, uploaded.as_deref(), n)?;
                // The browser's form: the same launch, the id read back asynchronously.
                let got_async =
                    cubecl::future::block_on(device_argmax_async(&tensor, uploaded.as_deref(), n))?;
                let words = mask_words(mask, refused, n);
                let want = host_argmax(&logits, |i| words[i / 32] >> (i % 32) & 1 == 1);
                cases += 1;
                if got != want || got_async != want {
                    wrong.push(format!(
                        "{n} ids, mask {name}, {} refused: {got:?} (async read {got_async:?}) vs host {want:?}",
                        refused.len()
                    ));
                }
            }
        }
    }
    check
        .lines
        .push(format!("masked argmax: {} of {cases} cases differ from the host", wrong.len()));
    if !wrong.is_empty() {
        check.failures.push(format!("masked argmax: {}", wrong.join("; ")));
    }
    Ok(())
}

/// The logits and masks of the argmax's (and the top lists') cases over `n` ids: noise
/// with NaN, both infinities and a tie planted above every noise logit (the lower id
/// wins), and a dense, a sparse and an empty mask.
#[cfg(not(feature = "fusion"))]
fn argmax_case(n: usize, seed: u32) -> (Vec<f32>, Vec<u64>, Vec<u64>, Vec<u64>) {
    let mut logits: Vec<f32> =
        noise(n, seed).iter().map(|&b| (f32::from(b) - 128.0) / 16.0).collect();
    logits[7] = f32::NAN;
    logits[n / 2] = f32::INFINITY;
    logits[n / 3] = f32::NEG_INFINITY;
    logits[n - 5] = 100.0;
    logits[n / 4] = 100.0;
    let dense: Vec<u64> = noise(n.div_ceil(64) * 8, seed + 1)
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .collect();
    let sparse: Vec<u64> = dense.iter().map(|&w| w & (w >> 7) & (w >> 13)).collect();
    let nothing = vec![0u64; n.div_ceil(64)];
    (logits, dense, sparse, nothing)
}

/// The GPU top lists (`gpu_top.rs`, all of a step's queries in one launch each and one
/// read-back, blocking and asynchronous) against [`top_twin`] on the argmax's cases,
/// with k = 1, 10 and 64 (noise logits are multiples of 1/16, so the lists cross many
/// ties): the entries exactly, the total within [`TOLERANCE`] relative (a tree sum
/// against a sequential one): the softmax's for k 1 and 10, a sampler's at temperature
/// 0.8 within 24 of the best (`Mass`) for k 64.
#[cfg(not(feature = "fusion"))]
fn check_top(check: &mut GpuKernelCheck, device: &Device) -> Result<(), ModelError> {
    use super::device_logits::mask_words;
    use super::gpu_top::{device_top, device_top_async, TopQuery};
    use super::top_list::{top_twin, Mass};

    let mut wrong = Vec::new();
    let mut cases = 0;
    for (n, seed) in [(49_152usize, 41u32), (1_000, 42)] {
        let (logits, dense, sparse, nothing) = argmax_case(n, seed);
        let tensor = Tensor::<2>::from_data(TensorData::new(logits.clone(), [1, n]), device);
        let masks: Vec<(&str, Option<Vec<u32>>)> = vec![
            ("all", None),
            ("dense", Some(mask_words(Some(&dense), &[], n))),
            ("sparse", Some(mask_words(Some(&sparse), &[], n))),
            ("none", Some(mask_words(Some(&nothing), &[], n))),
        ];
        let queries: Vec<TopQuery<'_>> = masks
            .iter()
            .flat_map(|(_, w)| {
                [1, 10, 64].map(|k| TopQuery {
                    words: w.as_deref(),
                    k,
                    mass: match k {
                        64 => Mass { temperature: 0.8, floor: 24.0 },
                        _ => Mass::SOFTMAX,
                    },
                })
            })
            .collect();
        let got = device_top(&tensor, &queries, n)?;
        let got_async = cubecl::future::block_on(device_top_async(&tensor, &queries, n))?;
        for (i, q) in queries.iter().enumerate() {
            let name = masks[i / 3].0;
            let want = top_twin(
                &logits,
                |i| q.words.is_none_or(|w| w[i / 32] >> (i % 32) & 1 == 1),
                q.k,
                q.mass,
            );
            cases += 1;
            for (how, got) in [("blocking", &got[i]), ("async", &got_async[i])] {
                let total_ok = (f64::from(got.total) - f64::from(want.total)).abs()
                    <= TOLERANCE * (1.0 + f64::from(want.total).abs());
                if got.entries != want.entries || !total_ok {
                    wrong.push(format!(
                        "{n} ids, mask {name}, k {} ({how}): {} entries, first {:?}, total {} vs host {} entries, first {:?}, total {}",
                        q.k, got.entries.len(), got.entries.first(), got.total,
                        want.entries.len(), want.entries.first(), want.total
                    ));
                }
            }
        }
    }
    check.lines.push(format!("top lists: {} of {cases} cases differ from the host", wrong.len()));
    if !wrong.is_empty() {
        check.failures.push(format!("top lists: {}", wrong.join("; ")));
    }
    Ok(())
}

fn check_geometry(
    check: &mut GpuKernelCheck,
    device: &Device,
    split: RowSplit,
    t: usize,
) -> Result<(), ModelError> {
    let (rows, cols) = (100usize, 576usize);
    let got = launch_geometry(device, split, rows, cols, t)?;
    let mut wrong = Vec::new();
    for k in 0..t {
        for r in 0..rows {
            let want = [r as f32, k as f32, rows as f32, cols as f32];
            let at = (k * rows + r) * 4;
            if got[at..at + 4] != want {
                wrong.push(format!("(row {r}, t {k}): got {:?}", &got[at..at + 4]));
            }
        }
    }
    check.lines.push(format!(
        "launch geometry {rows}x{t} {split:?} (row, t, rows, cols): {} of {} invocations wrong",
        wrong.len(),
        rows * t
    ));
    if !wrong.is_empty() {
        check.failures.push(format!(
            "launch geometry {split:?}: {} wrong, first {}",
            wrong.len(),
            wrong[..wrong.len().min(4)].join("; ")
        ));
    }
    Ok(())
}

/// One case: `rows` x `cols` blocks (row `r` of type `types[r % len]`) times `t`
/// activation rows, under `split`.
fn check_kernel(
    check: &mut GpuKernelCheck,
    device: &Device,
    split: RowSplit,
    (types, rows, cols, t): (&[GgmlType], usize, usize, usize),
    cap: Option<u64>,
) -> Result<(), ModelError> {
    let data: Vec<Vec<u8>> = (0..rows)
        .map(|r| gguf_rows(types[r % types.len()], 1, cols, 11 + (rows + r) as u32).remove(0))
        .collect();
    let input: Vec<(GgmlType, &[u8], f32)> =
        data.iter().enumerate().map(|(r, b)| (types[r % types.len()], b.as_slice(), 1.0)).collect();
    let blocks = GpuBlocks::from_rows(&input, cols)
        .ok_or_else(|| ModelError::Execution(format!("{types:?} blocks do not pack")))?;
    let x: Vec<f32> =
        noise(t * cols, 5 + t as u32).iter().map(|&b| (f32::from(b) - 128.0) / 64.0).collect();
    let want = blocks.matmul(&x, t, split.lanes());
    let layer = GpuQuantized::upload_parts(&blocks, device, Some(split), cap)
        .ok_or_else(|| ModelError::Execution("not a cubecl device".into()))?;
    let y = layer.forward(Tensor::<2>::from_data(TensorData::new(x, [t, cols]), device))?;
    let got = y
        .into_data()
        .try_into_vec::<f32>()
        .map_err(|e| ModelError::Execution(format!("reading back: {e:?}")))?;
    check.record(
        &format!(
            "{} ({:?} layout) {rows}x{cols}, {t} row(s), {split:?}{}",
            types.iter().map(|ty| ty.name()).collect::<Vec<_>>().join("+"),
            blocks.kind,
            cap.map_or(String::new(), |c| format!(", parts of {c} bytes"))
        ),
        &got,
        &want,
        TOLERANCE,
    );
    Ok(())
}

/// Reported, not checked: how far burn's own f32 matmul on `device` is from exact sums
/// (the `burn-f32` weights' product; a GPU may use reduced-precision units for f32,
/// e.g. TF32 tensor cores, 10-bit mantissas, which show as errors near 1e-3). The
/// values are not short binary fractions, so f32 rounds them and their sums.
fn report_burn_matmul(check: &mut GpuKernelCheck, device: &Device) -> Result<(), ModelError> {
    let (t, k, n) = (3usize, 576usize, 1536usize);
    let x: Vec<f32> = noise(t * k, 21).iter().map(|&b| (f32::from(b) - 128.0) / 61.7).collect();
    let w: Vec<f32> = noise(k * n, 22).iter().map(|&b| (f32::from(b) - 128.0) / 509.3).collect();
    let y = Tensor::<2>::from_data(TensorData::new(x.clone(), [t, k]), device)
        .matmul(Tensor::<2>::from_data(TensorData::new(w.clone(), [k, n]), device));
    let got = y
        .into_data()
        .try_into_vec::<f32>()
        .map_err(|e| ModelError::Execution(format!("reading back: {e:?}")))?;
    let mut worst = 0f64;
    for i in 0..t {
        for j in 0..n {
            let exact: f64 =
                (0..k).map(|p| f64::from(x[i * k + p]) * f64::from(w[p * n + j])).sum();
            worst = worst.max((f64::from(got[i * n + j]) - exact).abs() / (1.0 + exact.abs()));
        }
    }
    check.lines.push(format!("burn f32 matmul {t}x{k}x{n} (reported only): largest error {worst:.2e} relative to 1 + |exact|"));
    Ok(())
}
