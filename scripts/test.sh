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
# Then two more steps (nextest runs no doctests):
# - the library crates' doctests, in release (`cargo test --doc`);
# - the kernel check: espalier-model, whose SIMD kernels are `unsafe`, built with debug
#   assertions (profile `kernel-check` in Cargo.toml: std's checks of
#   `get_unchecked` and friends, overflow checks) and its kernel tests run, so an
#   out-of-bounds read in a kernel fails here instead of reading past a buffer in
#   release.
# Each step says how long it took (the README's cold-CI figures).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
step() { # step NAME COMMAND...
    local name=$1 t0=$SECONDS
    shift
    "$@"
    echo "test.sh: $name took $((SECONDS - t0)) s" >&2
}
step "nextest (workspace)" cargo nextest run --release --no-fail-fast --workspace --exclude espalier-python "$@"
DOC_CRATES=(espalier-grammar espalier-constraint espalier-slua espalier-decode espalier-model espalier-game espalier-testkit)
step "doctests" cargo test --doc --release "${DOC_CRATES[@]/#/--package=}"
step "kernel check (debug assertions)" cargo nextest run --cargo-profile kernel-check -p espalier-model --lib \
    -E 'test(/^llama::(int_dot|host_kernels|host_matrix|host_attention|kernel_check|q8_activations)::/)'
