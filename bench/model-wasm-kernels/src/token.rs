//! One decode token's worth of SmolLM2-135M matrix-vector products on deterministic
//! pseudo-random weights: 30 layers of Q4_1 (QKV 960x576, attention output 576x576,
//! gate/up 3072x576, down 576x1536) and the Q8_0 output projection 49152x576 — the
//! ~110 MB every decode step streams. Node times [`token`] per implementation, and a
//! prompt's products through the 30 layers ([`prefill`]): the simd128 prefill tile
//! against one dot product per (row, token), the code before it.

use std::cell::RefCell;

use espalier_kernels::host_kernels::{block_sums, dot_q4_1, dot_q8};
use espalier_kernels::int_dot;
use espalier_kernels::q8_activations::Q8Activations;
use espalier_kernels::{Isa, Q4_1Rows, QK};

const HIDDEN: usize = 576;
const FFN: usize = 1536;
const VOCAB: usize = 49152;
const LAYERS: usize = 30;

struct Q4 {
    rows: usize,
    cols: usize,
    d: Vec<f32>,
    m: Vec<f32>,
    nibbles: Vec<u8>,
}

struct Weights {
    layers: Vec<Q4>,
    out_scales: Vec<f32>,
    out_quants: Vec<i8>,
    x: Vec<f32>,
    x_ffn: Vec<f32>,
    logits: Vec<f32>,
}

impl Weights {
    /// The activation row a layer of `l`'s width takes.
    fn input(&self, l: &Q4) -> &[f32] {
        if l.cols == HIDDEN {
            &self.x
        } else {
            &self.x_ffn
        }
    }
}

/// `f` on the weights; NaN before [`setup`].
fn with_weights(f: impl FnOnce(&mut Weights) -> f32) -> f32 {
    WEIGHTS.with(|w| w.borrow_mut().as_mut().map_or(f32::NAN, f))
}

thread_local! {
    static WEIGHTS: RefCell<Option<Weights>> = const { RefCell::new(None) };
    /// A prompt's rounded activations at both widths (hidden, FFN), for [`prefill`].
    static PROMPT: RefCell<Option<(Q8Activations, Q8Activations, usize)>> = const { RefCell::new(None) };
}

fn bytes(n: usize, seed: &mut u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            (*seed >> 24) as u8
        })
        .collect()
}

/// Builds the weights (call once before [`token`]).
#[no_mangle]
pub extern "C" fn setup() {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut layers = Vec::new();
    for _ in 0..LAYERS {
        for (rows, cols) in [(960, HIDDEN), (HIDDEN, HIDDEN), (2 * FFN, HIDDEN), (HIDDEN, FFN)] {
            let blocks = rows * cols / QK;
            layers.push(Q4 {
                rows,
                cols,
                d: bytes(blocks, &mut s).iter().map(|&v| f32::from(v) / 4096.0).collect(),
                m: bytes(blocks, &mut s).iter().map(|&v| -f32::from(v) / 8192.0).collect(),
                nibbles: bytes(rows * cols / 2, &mut s),
            });
        }
    }
    let weights = Weights {
        layers,
        out_scales: bytes(VOCAB * HIDDEN / QK, &mut s)
            .iter()
            .map(|&v| f32::from(v) / 4096.0)
            .collect(),
        out_quants: bytes(VOCAB * HIDDEN, &mut s).iter().map(|&v| v as i8).collect(),
        x: bytes(HIDDEN, &mut s).iter().map(|&v| f32::from(v) / 128.0 - 1.0).collect(),
        x_ffn: bytes(FFN, &mut s).iter().map(|&v| f32::from(v) / 128.0 - 1.0).collect(),
        logits: vec![0.0; VOCAB],
    };
    WEIGHTS.with(|w| *w.borrow_mut() = Some(weights));
}

/// One token's products with the best integer kernels against 8-bit activations (each
/// matrix's activation row rounded once, as `HostMatrix` does); returns a checksum
/// (close to, not equal to, [`token`]'s: the activations are rounded).
#[no_mangle]
pub extern "C" fn token_int8() -> f32 {
    let isa = Isa::best();
    with_weights(|w| {
        let mut sum = 0f32;
        for l in &w.layers {
            let x = w.input(l);
            let q8 = Q8Activations::rows(x, l.cols, QK);
            let nb = l.cols / QK;
            for r in 0..l.rows {
                let b = r * nb..(r + 1) * nb;
                let q = &l.nibbles[r * l.cols / 2..(r + 1) * l.cols / 2];
                sum += int_dot::dot_q4_1(isa, &l.d[b.clone()], &l.m[b], q, q8.row(0));
            }
        }
        let q8 = Q8Activations::rows(&w.x, HIDDEN, QK);
        let nb = HIDDEN / QK;
        for (r, y) in w.logits.iter_mut().enumerate() {
            *y = int_dot::dot_q8_0(
                isa,
                &w.out_scales[r * nb..(r + 1) * nb],
                &w.out_quants[r * HIDDEN..(r + 1) * HIDDEN],
                q8.row(0),
            );
        }
        sum + w.logits.iter().sum::<f32>()
    })
}

/// One token's products with the portable kernels (`portable != 0`) or the best ones;
/// returns a checksum (the sum of every output), so node can compare implementations.
#[no_mangle]
pub extern "C" fn token(portable: u32) -> f32 {
    let isa = if portable != 0 { Isa::Portable } else { Isa::best() };
    with_weights(|w| {
        let mut sum = 0f32;
        for l in &w.layers {
            let x = w.input(l);
            let xsum = block_sums(x);
            let nb = l.cols / QK;
            for r in 0..l.rows {
                let b = r * nb..(r + 1) * nb;
                let q = &l.nibbles[r * l.cols / 2..(r + 1) * l.cols / 2];
                sum += dot_q4_1(isa, &l.d[b.clone()], &l.m[b], q, x, &xsum);
            }
        }
        let nb = HIDDEN / QK;
        for (r, y) in w.logits.iter_mut().enumerate() {
            *y = dot_q8(
                isa,
                &w.out_scales[r * nb..(r + 1) * nb],
                &w.out_quants[r * HIDDEN..(r + 1) * HIDDEN],
                &w.x,
            );
        }
        sum + w.logits.iter().sum::<f32>()
    })
}

/// Rounds a prompt of `t` tokens' activations at both widths (call before [`prefill`]).
#[no_mangle]
pub extern "C" fn prefill_setup(t: u32) {
    let t = t as usize;
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut rows = |cols: usize| {
        let x: Vec<f32> =
            bytes(t * cols, &mut s).iter().map(|&v| f32::from(v) / 128.0 - 1.0).collect();
        Q8Activations::rows(&x, cols, QK)
    };
    let (h, f) = (rows(HIDDEN), rows(FFN));
    PROMPT.with(|p| *p.borrow_mut() = Some((h, f, t)));
}

/// The prompt's products through the 30 Q4_1 layers with 8-bit activations: the best
/// prefill kernel (`int_dot::gemm_q4_1`: the simd128 tile) when `tiled != 0`, else one
/// `int_dot::dot_q4_1` per (row, token) (what wasm ran before the tile). Returns a
/// checksum (both ways sum the same integers; only the float order differs).
#[no_mangle]
pub extern "C" fn prefill(tiled: u32) -> f32 {
    let isa = Isa::best();
    PROMPT.with(|p| {
        WEIGHTS.with(|w| {
            let (p, w) = (p.borrow(), w.borrow());
            let (Some((xh, xf, t)), Some(w)) = (p.as_ref(), w.as_ref()) else { return f32::NAN };
            let t = *t;
            let mut sum = 0f32;
            let mut out = Vec::new();
            for l in &w.layers {
                let x = if l.cols == HIDDEN { xh } else { xf };
                out.clear();
                out.resize(l.rows * t, 0.0);
                if tiled != 0 {
                    let w = Q4_1Rows { d: &l.d, m: &l.m, nibbles: &l.nibbles, rows: l.rows };
                    int_dot::gemm_q4_1(isa, w, x, t, &mut out);
                } else {
                    let nb = l.cols / QK;
                    for (k, o) in out.iter_mut().enumerate() {
                        let (r, i) = (k / t, k % t);
                        let b = r * nb..(r + 1) * nb;
                        *o = int_dot::dot_q4_1(
                            isa,
                            &l.d[b.clone()],
                            &l.m[b],
                            &l.nibbles[r * l.cols / 2..(r + 1) * l.cols / 2],
                            x.row(i),
                        );
                    }
                }
                sum += out.iter().sum::<f32>();
            }
            sum
        })
    })
}
