#!/usr/bin/env bash
# Espalier's CPU path against llama.cpp in WebAssembly (@wllama/wllama 3.8.1, from
# npm) in the same headless Chromium: the same GGUF file, the same prompt ids, greedy,
# 64 tokens, one thread each, alternating for a few rounds (web/tests/bench.mjs drives
# web/bench/bench.html). Writes results/browser/bench.json (every run, the load
# average before and after) and results/browser/bench.png; the last line of output is
# JSON with espalier_decode_tps, wllama_decode_tps, ratio_decode, espalier_prefill_tps,
# wllama_prefill_tps, ratio_prefill and threads (medians over the rounds).
#
# Not in CI (a few minutes). Environment (all optional):
#   ESPALIER_BENCH_ROUNDS (3), ESPALIER_BENCH_TOKENS (64)
#   ESPALIER_SKIP_BUILD=1   bundle the last built espalier-web.wasm
#   CARGO_TARGET_DIR        default ./target
set -euo pipefail
source "$(dirname "$0")/web-env.sh"
OUT=$TARGET_DIR/bench-browser
DIST=$OUT/dist
RESULTS=$ROOT/results/browser
log() { echo "bench-browser: $*" >&2; }

bash scripts/install-web-tools.sh --no-trunk >&2
bash scripts/fetch-model.sh >&2
[ -d node_modules/@wllama/wllama/esm ] || { log "node_modules/@wllama/wllama is missing: run npm ci"; exit 1; }

if [ "${ESPALIER_SKIP_BUILD:-0}" != 1 ]; then
  cargo build --release --target wasm32-unknown-unknown -p espalier-web >&2
fi
python3 scripts/check-wasm-exports.py "$TARGET_DIR/wasm32-unknown-unknown/release/espalier-web.wasm" >&2
rm -rf "$DIST"; mkdir -p "$DIST"
wasm-bindgen --target web --no-typescript --out-dir "$DIST" --out-name espalier-web \
  "$TARGET_DIR/wasm32-unknown-unknown/release/espalier-web.wasm"
cp web/bench/bench.html web/bench/bench.js web/bench/bench-worker.js "$DIST/"
ln -sfn "$ROOT/node_modules/@wllama/wllama" "$DIST/wllama"
ln -sfn "$ROOT/static/models" "$DIST/models"

PORT=${ESPALIER_BENCH_PORT:-8766}
python3 scripts/serve-static.py "$DIST" "$PORT" >"$OUT/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/bench.html" && break; sleep 0.2; done

log "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; $(uptime)"
mkdir -p "$RESULTS"
node web/tests/bench.mjs "http://127.0.0.1:$PORT/bench.html" "$RESULTS"
