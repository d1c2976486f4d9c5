#!/usr/bin/env bash
# Installs what the playground build and its browser test need, skipping whatever is
# already there (safe to run again; cargo tools are cached in ~/.cargo/bin):
#   - the wasm32-unknown-unknown target (rustup)
#   - wasm-bindgen-cli at exactly the wasm-bindgen version Cargo.lock pins
#   - trunk 0.21.14 (0.22 needs a newer rustc than 1.95), unless --no-trunk
#   - node tools from package-lock.json (npm ci): playwright-core, and wasm-opt from
#     npm's binaryen 132 (Debian's binaryen 108 cannot read rustc 1.95 output)
#   - Debian chromium and python3 for the headless browser test, unless --no-browser
#
# Usage: bash scripts/install-web-tools.sh [--no-trunk] [--no-browser]
#   scripts/serve.sh:        --no-browser (trunk serve needs trunk, not chromium)
#   scripts/browser-test.sh: --no-trunk   (the test builds with cargo + wasm-bindgen;
#                                          trunk's install alone costs ~21 CPU-minutes)
set -euo pipefail
cd "$(dirname "$0")/.."

want_browser=1
want_trunk=1
for arg in "$@"; do
  case "$arg" in
    --no-browser) want_browser=0 ;;
    --no-trunk) want_trunk=0 ;;
    *) echo "install-web-tools: unknown option $arg (use --no-trunk, --no-browser)" >&2; exit 2 ;;
  esac
done

TRUNK_VERSION=0.21.14
export PATH="$HOME/.cargo/bin:$PATH"
SUDO=""
[ "$(id -u)" != 0 ] && SUDO="sudo"

log() { echo "install-web-tools: $*" >&2; }

apt_install() {
  log "installing Debian packages: $*"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

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

# Debian packages first (apt holds a lock; the cargo installs below run side by side).
need=()
command -v npm >/dev/null || need+=(nodejs npm)
if [ "$want_browser" = 1 ]; then
  [ -x /usr/bin/chromium ] || need+=(chromium)
  command -v python3 >/dev/null || need+=(python3)
  command -v curl >/dev/null || need+=(curl)
fi
[ ${#need[@]} -gt 0 ] && apt_install "${need[@]}"
node_major=$(node --version | sed 's/^v\([0-9]*\).*/\1/')
[ "$node_major" -ge 20 ] || log "warning: node $(node --version) is older than playwright-core 1.65 asks (>= 20)"

# The cargo installs are slow (about 8 and 21 CPU-minutes); run them side by side.
pids=()
if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $WBG_VERSION"; then
  # Without --locked: the CLI's own lock file pins a yanked crate.
  log "installing wasm-bindgen-cli $WBG_VERSION (cargo install, about 8 CPU-minutes)"
  cargo install wasm-bindgen-cli --version "$WBG_VERSION" --force --quiet &
  pids+=($!)
fi
if [ "$want_trunk" = 1 ] && ! trunk --version 2>/dev/null | grep -qx "trunk $TRUNK_VERSION"; then
  log "installing trunk $TRUNK_VERSION (cargo install, about 21 CPU-minutes)"
  cargo install trunk --version "$TRUNK_VERSION" --locked --quiet &
  pids+=($!)
fi

# npm: playwright-core and binaryen (wasm-opt), exactly as package-lock.json pins them.
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ]; then
  log "installing playwright-core and binaryen (wasm-opt) from npm (npm ci)"
  npm ci --no-audit --no-fund --silent
fi

for pid in "${pids[@]}"; do
  wait "$pid" || { log "a cargo install failed (see above)"; exit 1; }
done

log "$(wasm-bindgen --version)"
[ "$want_trunk" = 1 ] && log "$(trunk --version)"
log "wasm-opt: $(node_modules/.bin/wasm-opt --version)"
log "playwright-core $(node -p 'require("./node_modules/playwright-core/package.json").version')"
[ "$want_browser" = 1 ] && log "$(/usr/bin/chromium --version 2>/dev/null)"
log "ready"
