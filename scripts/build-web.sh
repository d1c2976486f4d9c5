#!/usr/bin/env bash
# Builds the playground's wasm32 module with cargo (release, wasm SIMD): the step of
# scripts/browser-test.sh that takes most of its time on a cold machine. CI starts it
# early, at the lowest CPU priority and in its own target directory (a second cargo on
# the test run's directory would wait for its lock), so it compiles in the cores' idle
# time while the native tests build and run; browser-test.sh then finds it done.
#
# Usage: bash scripts/build-web.sh [TARGET_DIR]   (default: $CARGO_TARGET_DIR or ./target)
# Prints the path of the built espalier-web.wasm as its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR=${1:-${CARGO_TARGET_DIR:-$PWD/target}}
# wasm SIMD (every browser with WebGPU has it): vectorises the CPU backend's matmuls.
# serve.sh sets the same flags, so trunk and this build share the build cache.
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS=${CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS:--C target-feature=+simd128}
rustup target list --installed | grep -qx wasm32-unknown-unknown \
  || rustup target add wasm32-unknown-unknown
cargo build --release --target wasm32-unknown-unknown -p espalier-web >&2
echo "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/espalier-web.wasm"
