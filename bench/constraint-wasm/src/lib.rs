//! The wasm benchmark harness: the same teacher-forced mask loop as `espalier bench
//! mask`, exported as plain functions so node can time each step (wasm32 has no
//! clock of its own). Input: the binary file `espalier bench mask --export FILE`
//! writes (vocabulary bytes and the files' token ids); `run.mjs` loads both.
//!
//! Build and run (from the repository root):
//! ```text
//! cargo build --release --manifest-path bench/constraint-wasm/Cargo.toml \
//!     --target wasm32-unknown-unknown
//! node bench/constraint-wasm/run.mjs INPUT exact|check [WASM] [--passes N] [--dump FILE] [--cold] [--repeat K]
//! node bench/constraint-wasm/browser.mjs INPUT [WASM] [--passes N] [--dump FILE] [--cold] [--repeat K]
//! ```
//! `--bin native` runs the same functions natively; `scripts/lab/masks/wasm-vs-native.sh`
//! runs all three, rounds interleaved, and prints the ratios. `first-steps.mjs` times
//! the first steps of a fresh instance (V8's first-call compilation; `--cold` skips
//! the warm-up), and `repeat_mask` (natively the `repeat` dev bin) one step's mask
//! over and over, for profiling it.

use std::sync::{Arc, Mutex};

use espalier_constraint::{Constraint, GrammarConstraint, MaskKit, Strategy, TokenSet, Vocab};

struct Harness {
    vocab: Vocab,
    files: Vec<Vec<u32>>,
    constraint: GrammarConstraint,
    kit: MaskKit,
    strategy: Strategy,
    mask: TokenSet,
    file: usize,
    pos: usize,
    violations: u32,
    work: [u64; 3],
    /// A running hash of every exact mask (see [`work`]).
    digest: u64,
    /// Copies of the constraint taken before the current step's first mask, for
    /// [`repeat_mask`] (see [`prepare_repeat`]); `copies_ready` until used. They
    /// are dropped by the next [`prepare_repeat`], untimed (dropping them is
    /// hundreds of `free` calls).
    copies: Vec<GrammarConstraint>,
    copies_ready: bool,
    /// Steps whose mask was the constraint's kept mask, reused (`mask_memo`).
    reused: u64,
}

static HARNESS: Mutex<Option<Harness>> = Mutex::new(None);

#[cfg(feature = "count-allocs")]
mod counting {
    //! A global allocator that counts allocations and reallocations (feature
    //! `count-allocs`), to find the heap traffic of one mask.
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicU64, Ordering};

    pub static COUNT: AtomicU64 = AtomicU64::new(0);
    pub static MASKING: AtomicU64 = AtomicU64::new(0);

    pub struct Counting;

    // SAFETY: forwards every call to `System` unchanged.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            COUNT.fetch_add(MASKING.load(Ordering::Relaxed), Ordering::Relaxed);
            System.alloc(l)
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            System.dealloc(p, l)
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
            COUNT.fetch_add(MASKING.load(Ordering::Relaxed), Ordering::Relaxed);
            System.realloc(p, l, n)
        }
    }

    #[global_allocator]
    static A: Counting = Counting;
}

/// Allocations (and reallocations) made inside `mask_step` so far: always 0
/// without the `count-allocs` feature.
#[no_mangle]
pub extern "C" fn allocs() -> u64 {
    #[cfg(feature = "count-allocs")]
    return counting::COUNT.load(std::sync::atomic::Ordering::Relaxed);
    #[cfg(not(feature = "count-allocs"))]
    0
}

/// Allocates `len` bytes the host fills with the input file.
#[no_mangle]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    let mut v = vec![0u8; len];
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}

fn read_u32(b: &[u8], at: &mut usize) -> Option<u32> {
    let s = b.get(*at..*at + 4)?;
    *at += 4;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// The input `espalier bench mask --export` writes: the vocabulary (its bytes, the
/// special ids, EOS) and each file's token ids; `None` when it is cut short. The dev
/// binaries (`roots`, `worst`) read it too.
pub fn parse(b: &[u8]) -> Option<(Vocab, Vec<Vec<u32>>)> {
    let mut at = 0;
    let n = read_u32(b, &mut at)? as usize;
    let eos = read_u32(b, &mut at)?;
    let mut tokens = Vec::with_capacity(n);
    let mut special = Vec::new();
    for id in 0..n {
        let len = read_u32(b, &mut at)? as usize;
        let flag = *b.get(at)?;
        at += 1;
        tokens.push(b.get(at..at + len)?.to_vec());
        at += len;
        if flag != 0 {
            special.push(id as u32);
        }
    }
    let nfiles = read_u32(b, &mut at)? as usize;
    let mut files = Vec::with_capacity(nfiles);
    for _ in 0..nfiles {
        let k = read_u32(b, &mut at)? as usize;
        files.push((0..k).map(|_| read_u32(b, &mut at)).collect::<Option<Vec<u32>>>()?);
    }
    Some((Vocab::new(tokens, &special, eos), files))
}

/// `setup` flag: the `check` strategy (else `exact`).
pub const CHECK: u32 = 1;
/// `setup` flag: no warm-up mask (to see first-call costs on the first step).
pub const COLD: u32 = 2;

/// Parses the input at `ptr..ptr+len`, builds the Python grammar, the trie (and for
/// `exact` its summaries) and the constraint, and computes one throwaway mask
/// ([`GrammarConstraint::warm_up`], counted in setup) unless `flags` has [`COLD`].
/// `flags`: [`CHECK`] | [`COLD`]. Returns the number of steps, or 0 on bad input.
#[no_mangle]
pub extern "C" fn setup(ptr: *const u8, len: usize, flags: u32) -> u32 {
    // SAFETY: the host passes back a buffer it got from `alloc(len)` and filled.
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len) };
    let Some((vocab, files)) = parse(bytes) else { return 0 };
    let Ok(lang) = espalier_grammar::python() else { return 0 };
    let strategy = if flags & CHECK != 0 { Strategy::Check } else { Strategy::Exact };
    let kit = MaskKit::for_vocab(lang, &vocab);
    let mut constraint = GrammarConstraint::new(&kit, strategy, "python-lr");
    if flags & COLD == 0 {
        constraint.warm_up(&vocab);
    }
    let steps = files.iter().map(Vec::len).sum::<usize>() as u32;
    let mask = TokenSet::empty(vocab.len());
    *HARNESS.lock().unwrap_or_else(|e| e.into_inner()) =
        Some(Harness { vocab, files, constraint, kit, strategy, mask, file: 0, pos: 0, violations: 0, work: [0; 3], digest: 0, copies: Vec::new(), copies_ready: false, reused: 0 });
    steps
}

/// Compiles the grammar only (timed separately by the host).
#[no_mangle]
pub extern "C" fn compile_grammar() -> u32 {
    u32::from(espalier_grammar::python().is_ok())
}

/// The timed part of one step: the mask (`exact`) or one `allows` (`check`).
/// Returns 1 when the true token is allowed.
#[no_mangle]
pub extern "C" fn mask_step() -> u32 {
    let mut guard = HARNESS.lock().unwrap_or_else(|e| e.into_inner());
    let Some(h) = guard.as_mut() else { return 0 };
    let Some(&id) = h.files.get(h.file).and_then(|f| f.get(h.pos)) else { return 0 };
    #[cfg(feature = "count-allocs")]
    counting::MASKING.store(1, std::sync::atomic::Ordering::Relaxed);
    let ok = match h.strategy {
        Strategy::Check => h.constraint.allows(h.vocab.bytes(id)),
        _ => {
            let reused = h.constraint.reused_masks();
            h.constraint.fill_mask(&h.vocab, &mut h.mask);
            h.reused += (h.constraint.reused_masks() - reused) as u64;
            let (nodes, heavy) = h.constraint.last_walk_work();
            h.work[0] += nodes as u64;
            h.work[1] += heavy as u64;
            h.mask.contains(id as usize)
        }
    };
    #[cfg(feature = "count-allocs")]
    counting::MASKING.store(0, std::sync::atomic::Ordering::Relaxed);
    if !ok {
        h.violations += 1;
    }
    u32::from(ok)
}

/// Commits the true token (untimed) and moves to the next step / file.
#[no_mangle]
pub extern "C" fn commit_step() {
    let mut guard = HARNESS.lock().unwrap_or_else(|e| e.into_inner());
    let Some(h) = guard.as_mut() else { return };
    let Some(&id) = h.files.get(h.file).and_then(|f| f.get(h.pos)) else { return };
    if h.strategy == Strategy::Exact {
        // Counted here, untimed: natively (no `popcnt` in the baseline x86-64 target)
        // the count was ~25% of a cheap mask's time, in wasm one `i64.popcnt` a word.
        h.work[2] += h.mask.count() as u64;
        h.digest = h.mask.words().iter().fold(h.digest, |d, &w| (d ^ w).wrapping_mul(0x0100_0000_01b3).rotate_left(17));
    }
    let _ = h.constraint.commit(h.vocab.bytes(id));
    h.pos += 1;
    if h.pos >= h.files[h.file].len() {
        h.file += 1;
        h.pos = 0;
        h.constraint = GrammarConstraint::new(&h.kit, h.strategy, "python-lr");
    }
}

/// Restarts at the first step of the first file (a second pass over the same steps,
/// to tell first-run effects such as tier-up or heap growth from slow steps); returns
/// the number of steps.
#[no_mangle]
pub extern "C" fn restart() -> u32 {
    let mut guard = HARNESS.lock().unwrap_or_else(|e| e.into_inner());
    let Some(h) = guard.as_mut() else { return 0 };
    h.file = 0;
    h.pos = 0;
    h.constraint = GrammarConstraint::new(&h.kit, h.strategy, "python-lr");
    h.files.iter().map(Vec::len).sum::<usize>() as u32
}

/// Restarts at the beginning of file `f` of the input (for timing one file); returns
/// its number of steps, 0 when there is no such file.
#[no_mangle]
pub extern "C" fn select_file(f: u32) -> u32 {
    let mut guard = HARNESS.lock().unwrap_or_else(|e| e.into_inner());
    let Some(h) = guard.as_mut() else { return 0 };
    let Some(steps) = h.files.get(f as usize).map(Vec::len) else { return 0 };
    h.files.truncate(f as usize + 1);
    h.file = f as usize;
    h.pos = 0;
    h.constraint = GrammarConstraint::new(&h.kit, h.strategy, "python-lr");
    steps as u32
}

/// Steps whose true token was refused so far.
#[no_mangle]
pub extern "C" fn violations() -> u32 {
    HARNESS.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map_or(0, |h| h.violations)
}

/// Work counters summed over the exact masks so far: 0 = trie nodes offered (or
/// lexeme-start summaries used), 1 = full recognizer steps, 2 = allowed tokens;
/// 3 = a hash of every committed step's mask, in order (hashed untimed, in
/// `commit_step`): equal digests, equal masks, to compare builds and runtimes;
/// 4 = steps whose mask was reused from an earlier step (the mask memo).
#[no_mangle]
pub extern "C" fn work(i: u32) -> u64 {
    HARNESS.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map_or(0, |h| match i {
        3 => h.digest,
        4 => h.reused,
        _ => h.work.get(i as usize).copied().unwrap_or(0),
    })
}

/// Takes `n` copies of the constraint (untimed), before the current step's first
/// mask, for the harnesses' `--repeat`: the constraint keeps its last mask inside a
/// lexeme and reuses it while the state allows the same tokens (the mask memo), so
/// the same step's mask computed again by the constraint itself would be a copy of
/// the first; each copy computes it as the step's first mask did.
#[no_mangle]
pub extern "C" fn prepare_repeat(n: u32) {
    let mut guard = HARNESS.lock().unwrap_or_else(|e| e.into_inner());
    let Some(h) = guard.as_mut() else { return };
    h.copies.clear();
    h.copies.extend((0..n).map(|_| h.constraint.clone()));
    h.copies_ready = true;
}

/// The mask of the current step computed `n` times: by the copies [`prepare_repeat`]
/// took (once), one mask each (the harnesses' `--repeat`); without copies by the
/// constraint itself, `n` times (for profiling one step: a step inside a lexeme is
/// then a reused mask from its second time on). Returns its number of allowed tokens.
#[no_mangle]
pub extern "C" fn repeat_mask(n: u32) -> u32 {
    let mut guard = HARNESS.lock().unwrap_or_else(|e| e.into_inner());
    let Some(h) = guard.as_mut() else { return 0 };
    if std::mem::take(&mut h.copies_ready) {
        for c in h.copies.iter_mut().take(n as usize) {
            c.fill_mask(&h.vocab, &mut h.mask);
        }
    } else {
        for _ in 0..n {
            h.constraint.fill_mask(&h.vocab, &mut h.mask);
        }
    }
    h.mask.count() as u32
}
