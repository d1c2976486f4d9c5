#!/usr/bin/env bash
# The playground's browser test (CI calls it): builds the app for wasm32, serves it on
# 127.0.0.1, and drives Debian's headless Chromium with playwright-core twice: once on
# WebGPU (SwiftShader, --enable-unsafe-webgpu) and once on the CPU fallback (no WebGPU
# flag). Each run loads the real model, generates a Python function and an sLua
# talent, validates them (Python: ast.parse; sLua: the espalier checker), steps back
# and forward, and saves screenshots and a summary under results/browser/.
# Exits 0 only when both runs passed.
#
# The bundle is built with cargo + wasm-bindgen (+ wasm-opt) directly, the same steps
# `trunk build` runs, so CI does not need trunk (a 21 CPU-minute install); `trunk serve`
# stays the way to run the app. ESPALIER_WEB_BUILD=trunk builds with trunk instead.
#
# Environment: ESPALIER_BROWSER_BACKENDS (default "webgpu cpu"),
# ESPALIER_BROWSER_MAX_TOKENS_PYTHON (64) and _SLUA (160), ESPALIER_BROWSER_MODE (default mask),
# ESPALIER_WASM_OPT=0 to skip wasm-opt, CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
PROFILE=${ESPALIER_WASM_PROFILE:-release}
OUT=$TARGET_DIR/browser-test
DIST=$OUT/dist
RESULTS=$ROOT/results/browser
log() { echo "browser-test: $*" >&2; }

bash scripts/install-web-tools.sh
bash scripts/fetch-model.sh

# --- build -------------------------------------------------------------------------
start=$(date +%s)
rm -rf "$DIST"; mkdir -p "$DIST"
if [ "${ESPALIER_WEB_BUILD:-direct}" = trunk ]; then
  trunk build --release --dist "$DIST"
  WASM=$(ls "$DIST"/*.wasm | head -1)
else
  cargo build --profile "$PROFILE" --target wasm32-unknown-unknown -p espalier-web
  built=$TARGET_DIR/wasm32-unknown-unknown/$PROFILE/espalier-web.wasm
  raw_size=$(stat -c %s "$built")
  wasm-bindgen --target web --no-typescript --out-dir "$DIST" --out-name espalier-web "$built"
  WASM=$DIST/espalier-web_bg.wasm
  if [ "${ESPALIER_WASM_OPT:-1}" = 1 ]; then
    t=$(date +%s)
    wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
      --enable-mutable-globals --enable-reference-types --enable-multivalue \
      "$WASM" -o "$WASM.opt" && mv "$WASM.opt" "$WASM"
    log "wasm-opt -Oz took $(( $(date +%s) - t )) s"
  fi
  cp static/css/app.css "$DIST/app.css"
  cat > "$DIST/index.html" <<'HTML'
<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Espalier playground: constrained generation, step by step</title>
    <link rel="stylesheet" href="app.css" />
    <script type="module">import init from "./espalier-web.js"; init({ module_or_path: "./espalier-web_bg.wasm" });</script>
  </head>
  <body></body>
</html>
HTML
  log "wasm before wasm-bindgen: $raw_size bytes"
fi
ln -sfn "$ROOT/static/models" "$DIST/models"
wasm_size=$(stat -c %s "$WASM")
gz_size=$(gzip -9 -c "$WASM" | wc -c)
log "build took $(( $(date +%s) - start )) s; wasm $wasm_size bytes ($gz_size gzipped)"

# --- native sLua checker -----------------------------------------------------------
if [ -z "${ESPALIER_CHECK_SLUA:-}" ]; then
  if cargo build --release -p espalier-cli --bin espalier >/dev/null 2>&1 \
      && "$TARGET_DIR/release/espalier" check --help 2>/dev/null | grep -q -- --lang; then
    export ESPALIER_CHECK_SLUA="$TARGET_DIR/release/espalier check --lang slua"
  else
    log "the native 'espalier check --lang slua' is not available; the sLua check will fail"
  fi
fi

# --- serve -------------------------------------------------------------------------
PORT=${ESPALIER_BROWSER_PORT:-8765}
python3 - "$DIST" "$PORT" >"$OUT/server.log" 2>&1 <<'PY' &
import functools, http.server, sys
class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript", ".gguf": "application/octet-stream"}
    def log_message(self, *args):
        pass
handler = functools.partial(Handler, directory=sys.argv[1])
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), handler).serve_forever()
PY
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  curl -sf -o /dev/null "http://127.0.0.1:$PORT/index.html" && break
  sleep 0.2
done

# --- drive the browser -------------------------------------------------------------
mkdir -p "$RESULTS"
status=0
for backend in ${ESPALIER_BROWSER_BACKENDS:-webgpu cpu}; do
  t=$(date +%s)
  if node web/tests/browser.mjs "http://127.0.0.1:$PORT/" "$backend" "$RESULTS"; then
    log "$backend: passed in $(( $(date +%s) - t )) s"
  else
    log "$backend: FAILED after $(( $(date +%s) - t )) s"
    status=1
  fi
done

python3 - "$RESULTS" "$wasm_size" "$gz_size" <<'PY'
import json, pathlib, sys
res, size, gz = pathlib.Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
print(f"wasm: {size/1e6:.1f} MB ({gz/1e6:.1f} MB gzipped)")
for f in sorted(res.glob("summary-*.json")):
    s = json.loads(f.read_text())
    for lang, r in s.get("runs", {}).items():
        print(f"{s['backend']:>6} {lang:>6}: first token {r.get('ttft_ms')} ms, "
              f"{r.get('tokens_per_s', 0):.2f} tokens/s, {r.get('steps')} tokens, valid={r.get('valid')}")
    print(f"{s['backend']:>6} load: {s.get('load_s', 0):.1f} s; {s.get('backend_detail', '').strip()}")
PY
[ $status = 0 ] && log "passed" || log "FAILED"
exit $status
