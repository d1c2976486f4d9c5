#!/usr/bin/env bash
# The kernel check, run by hand (not by scripts/test.sh: it builds espalier-model and its
# dependencies a second time, too long for a cold CI on 2 cores): espalier-model, whose
# SIMD kernels are `unsafe`, built with debug assertions (profile `kernel-check` in
# Cargo.toml: std's checks of `get_unchecked` / `from_raw_parts` preconditions and
# overflow checks inside the kernels; its dependencies at opt-level 0, unchecked) and its
# kernel tests run, so an out-of-bounds read in a kernel fails here instead of reading
# past a buffer in release.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo nextest run --cargo-profile kernel-check -p espalier-model --lib \
    -E 'test(/^llama::(int_dot|host_kernels|host_matrix|host_attention|kernel_check|q8_activations)::/)' "$@"
