#!/usr/bin/env bash
# The model's CPU path in wasm under node (issue 15). First the kernels alone
# (bench/model-wasm-kernels, no burn: the self-check in wasm and one token's
# matrix-vector products, simd128 vs portable, CPU time); then builds bench/model-wasm
# twice for wasm32 (+simd128 from .cargo/config.toml): `simd` (the simd128 kernels) and
# `portable` (feature portable-kernels: the portable kernels, i.e. the code before), runs
# the kernels' self-check in wasm (fails on any disagreement), then times both builds
# in alternating rounds (same prompt ids, greedy, one thread). Last line: JSON summary.
#
#   bash scripts/bench-wasm-model.sh [--rounds N] [--decode N] [--prompt-tokens N]
#   ESPALIER_WASM_BENCH_CHECK_ONLY=1 bash scripts/bench-wasm-model.sh   # self-check only
#
# Needs the wasm32 target and wasm-bindgen-cli (scripts/install-web-tools.sh --no-trunk),
# node, and the model (scripts/fetch-model.sh). Not in CI (a wasm build of burn).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
T="${CARGO_TARGET_DIR:-$PWD/target}/wasm-model"
OUT="$T/bindgen"
MANIFEST=bench/model-wasm/Cargo.toml
build() { # NAME [cargo args]
  local name=$1; shift
  CARGO_TARGET_DIR="$T" cargo build --release --target wasm32-unknown-unknown --manifest-path "$MANIFEST" "$@" >&2
  rm -rf "$OUT/$name"
  wasm-bindgen --target nodejs --out-dir "$OUT/$name" \
    "$T/wasm32-unknown-unknown/release/espalier_model_wasm_bench.wasm"
}
bash scripts/fetch-model.sh >&2
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}/wasm-kernels" cargo build --release --target wasm32-unknown-unknown \
  --manifest-path bench/model-wasm-kernels/Cargo.toml >&2
node bench/model-wasm-kernels/run.mjs "${ESPALIER_WASM_KERNEL_ROUNDS:-9}"
build simd
if [ "${ESPALIER_WASM_BENCH_CHECK_ONLY:-0}" = 1 ]; then
  exec node bench/model-wasm/run.mjs --check --rounds 0 "simd=$OUT/simd"
fi
build portable --features portable-kernels
echo "bench-wasm-model: $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
node bench/model-wasm/run.mjs --check "$@" "simd=$OUT/simd" "portable=$OUT/portable"
