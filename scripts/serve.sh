#!/usr/bin/env bash
# Serves the playground: installs the web tools (trunk, wasm-bindgen-cli, wasm-opt)
# and the model if missing, then runs `trunk serve` (http://127.0.0.1:8080). Extra
# arguments go to trunk. The first build is long (burn's wgpu backend: about half an
# hour of CPU on two cores); later ones reuse the cache. Every release build also runs
# wasm-opt -Oz (npm binaryen under node: about 7 CPU-minutes, 32 MB -> 17 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-web-tools.sh --no-browser
bash scripts/fetch-model.sh
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
# wasm SIMD for the CPU backend; the same flags as scripts/browser-test.sh, so both
# share one build cache.
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS=${CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS:--C target-feature=+simd128}
exec trunk serve "$@"
