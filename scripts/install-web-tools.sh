#!/usr/bin/env bash
# Installs what the playground build and its browser test need, skipping whatever is
# already there (safe to run again; cargo tools are cached in ~/.cargo/bin):
#   - the wasm32-unknown-unknown target (rustup)
#   - trunk 0.21.14 (0.22 needs a newer rustc than 1.95)
#   - wasm-bindgen-cli at exactly the wasm-bindgen version Cargo.lock pins
#   - wasm-opt from npm's binaryen 132 and playwright-core (package.json, node_modules/)
#   - Debian chromium (+ chromium-driver) for the headless browser test
# Usage: bash scripts/install-web-tools.sh [--no-browser]
set -euo pipefail
cd "$(dirname "$0")/.."

want_browser=1
[ "${1:-}" = "--no-browser" ] && want_browser=0

TRUNK_VERSION=0.21.14
export PATH="$HOME/.cargo/bin:$PATH"

log() { echo "install-web-tools: $*" >&2; }

# The wasm-bindgen version the workspace resolved (web/Cargo.toml pins it with "=").
WBG_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$WBG_VERSION" ]; then
  log "no wasm-bindgen in Cargo.lock; run 'cargo metadata --format-version 1 >/dev/null' first"
  exit 1
fi
if ! grep -q "wasm_bindgen = \"$WBG_VERSION\"" Trunk.toml; then
  log "Trunk.toml [tools] wasm_bindgen differs from Cargo.lock's wasm-bindgen $WBG_VERSION; fix Trunk.toml"
  exit 1
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# The two cargo installs are slow (about 21 and 8 CPU-minutes); run them side by side.
pids=()
if ! trunk --version 2>/dev/null | grep -qx "trunk $TRUNK_VERSION"; then
  log "installing trunk $TRUNK_VERSION (cargo install, about 21 CPU-minutes)"
  cargo install trunk --version "$TRUNK_VERSION" --locked --quiet &
  pids+=($!)
fi
if ! wasm-bindgen --version 2>/dev/null | grep -q "wasm-bindgen $WBG_VERSION"; then
  # Without --locked: the CLI's own lock file pins a yanked crate.
  log "installing wasm-bindgen-cli $WBG_VERSION (cargo install, about 8 CPU-minutes)"
  cargo install wasm-bindgen-cli --version "$WBG_VERSION" --force --quiet &
  pids+=($!)
fi

# npm: wasm-opt (binaryen 132) and playwright-core, as package-lock.json pins them.
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ]; then
  command -v npm >/dev/null || { log "npm is missing: apt-get install nodejs npm"; exit 1; }
  log "installing binaryen (wasm-opt) and playwright-core from npm"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --silent; else npm install --no-audit --no-fund --silent; fi
fi

if [ "$want_browser" = 1 ] && { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/python3.11 ]; }; then
  SUDO=""
  [ "$(id -u)" != 0 ] && SUDO="sudo"
  log "installing Debian chromium, chromium-driver and python3.11"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver python3.11 >/dev/null
fi

for pid in "${pids[@]}"; do
  wait "$pid" || { log "a cargo install failed (see above)"; exit 1; }
done

trunk --version >&2
wasm-bindgen --version >&2
log "wasm-opt: $(node_modules/.bin/wasm-opt --version)"
[ "$want_browser" = 1 ] && log "$(/usr/bin/chromium --version 2>/dev/null)"
log "ready"
