#!/usr/bin/env bash
# The test command: every test suite CI runs. First `scripts/setup.sh` (idempotent)
# installs what the tests need (the CPython corpus and oracle, Lua 5.4, cargo-nextest,
# the model), so that on a fresh machine this either tests everything or fails: no
# suite skips a missing input. Then the whole workspace: the native crates and the web
# crate's native-testable parts (the playground's pure logic; its browser and GPU code
# is wasm32-only and is driven by scripts/browser-test.sh). Slow suites are gated
# behind ESPALIER_SLOW=1 (README.md; their figures in BENCHMARKS.md). The Python package (crates/python, a PyO3 extension
# module that links against the interpreter) is built by maturin and tested by
# scripts/test-python.sh, which .ci/run calls next.
#
# Then the doctests (nextest runs none), built as the workspace run was (release, the
# same packages, so the same feature unification: nothing recompiles but the doctests).
# Last the kernel check: the CPU's `unsafe` SIMD kernels (crates/kernels,
# espalier-kernels) and their tests built with debug assertions and overflow checks
# (profile `kernel-check` in Cargo.toml), so std's checks of `get_unchecked` /
# `from_raw_parts` preconditions run inside the kernels and an out-of-bounds read fails
# here instead of reading past a buffer in release. `-p` is safe here: the crate has no
# burn, so the second build is the crate and three small dependencies (half,
# matrixmultiply, rayon; at opt-level 0). Then the same check in wasm: the kernels built
# for wasm32 (simd128: `wasm_simd.rs`, which no native test compiles) with debug
# assertions (bench/model-wasm-kernels, its own profile `kernel-check`), and their
# self-check (`kernel_check::run`: simd128 against portable against exact sums, 11,522
# cases) under node, failing on any disagreement or panic. Measured on the 2-core AMD
# EPYC dev machine (shared; load 4.5 and 7.3): native cold (empty target dir) 50 s wall,
# 39 s user + 5 s system, warm 3 s; wasm cold 42 s wall (18 s user + 3 s system) plus
# 1 s of node, warm 1 s.
# Each step says how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The tree is formatted (rustfmt.toml); a diff fails here, before the long build.
cargo fmt --all --check
step() { # step NAME COMMAND...
    local name=$1 t0=$SECONDS
    shift
    "$@"
    echo "test.sh: $name took $((SECONDS - t0)) s" >&2
}
# Clippy finds no warning, with the selection of the suites below (another selection
# would resolve features differently and check the burn stack again). In release, so
# that it shares build scripts and proc macros with the build; it checks every
# dependency once (~4 CPU-minutes cold, seconds when warm).
step "clippy" cargo clippy --release --workspace --exclude espalier-python --all-targets -- -D warnings
step "nextest (workspace)" cargo nextest run --release --no-fail-fast --workspace --exclude espalier-python "$@"
step "doctests" cargo test --doc --release --workspace --exclude espalier-python
step "kernel check" cargo nextest run --cargo-profile kernel-check -p espalier-kernels
wasm_kernel_check() {
    local t="${CARGO_TARGET_DIR:-$PWD/target}/wasm-kernels"
    CARGO_TARGET_DIR="$t" cargo build --profile kernel-check --target wasm32-unknown-unknown \
        --manifest-path bench/model-wasm-kernels/Cargo.toml
    node bench/model-wasm-kernels/run.mjs 0 \
        "$t/wasm32-unknown-unknown/kernel-check/espalier_model_wasm_kernels.wasm"
}
step "kernel check (wasm)" wasm_kernel_check
# With ESPALIER_SLOW=1, the CUDA build too (scripts/check-cuda-build.sh --no-bundle: LLVM
# from Debian, `espalier --features cuda` in target/cuda, the no-device test): 571 s
# build + 641 s test on 2 cores with target/cuda already warm from another feature set
# (stop 50; cold is longer), so not in CI's default run. Nothing else compiles the `cuda` feature's
# code (stop 50 found the engine's CUDA probe broken since the engine crate moved).
# Then every kernel the CUDA backend launches, compiled for an H100 on a stand-in driver
# and checked by ptxas (scripts/check-cuda-kernels.sh: the same build and the synthetic
# model writer's; 8m46s run alone here after a `cuda,wgpu` build, 25 s once built).
if [ "${ESPALIER_SLOW:-}" = 1 ]; then
    step "cuda build (ESPALIER_SLOW)" bash scripts/check-cuda-build.sh --no-bundle
    step "cuda kernels (ESPALIER_SLOW)" bash scripts/check-cuda-kernels.sh
fi
