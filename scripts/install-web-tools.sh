#!/usr/bin/env bash
# Installs what the playground build and its browser test need. Every tool already
# present at the right version is used as it is; only what is missing is installed, and
# each line says which (safe to run again; cargo tools are cached in ~/.cargo/bin):
#   - the wasm32-unknown-unknown target (rustup)
#   - wasm-bindgen-cli at exactly the wasm-bindgen version Cargo.lock pins
#     (cargo install without --locked: the CLI's own lock pins a yanked crate; 4.8 CPU-min measured)
#   - trunk 0.21.14 (0.22 needs a newer rustc than 1.95; 12.1 CPU-min measured), unless --no-trunk
#   - node tools from package-lock.json (npm ci): playwright-core, and wasm-opt from
#     npm's binaryen 132 (Debian's binaryen 108 cannot read rustc 1.95 output)
#   - Debian chromium (with its bundled SwiftShader for WebGPU), python3 and curl for the
#     headless browser test, unless --no-browser
#
# Usage: bash scripts/install-web-tools.sh [--no-trunk] [--no-browser] [--dry-run]
#   scripts/serve.sh:        --no-browser (trunk serve needs trunk, not chromium)
#   scripts/browser-test.sh: --no-trunk   (the test builds with cargo + wasm-bindgen)
#   --dry-run: only say what is found and what would be installed; exit 1 if anything
#              is missing.
# Environment: CARGO_INSTALL_ROOT (where cargo installs tools; default ~/.cargo),
#   CHROMIUM (the browser binary; default /usr/bin/chromium).
set -euo pipefail
cd "$(dirname "$0")/.."

want_browser=1
want_trunk=1
dry_run=0
for arg in "$@"; do
  case "$arg" in
    --no-browser) want_browser=0 ;;
    --no-trunk) want_trunk=0 ;;
    --dry-run) dry_run=1 ;;
    *) echo "install-web-tools: unknown option $arg (use --no-trunk, --no-browser, --dry-run)" >&2; exit 2 ;;
  esac
done

TRUNK_VERSION=0.21.14
CARGO_ROOT=${CARGO_INSTALL_ROOT:-$HOME/.cargo}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
export PATH="$PWD/node_modules/.bin:$CARGO_ROOT/bin:$HOME/.cargo/bin:$PATH"
SUDO=""
[ "$(id -u)" != 0 ] && SUDO="sudo"
missing=0

log() { echo "install-web-tools: $*" >&2; }
found() { log "found    $1"; }
# Says what is missing; in a dry run only counts it. Returns 0 when the caller should
# install it now.
need() {
  missing=$((missing + 1))
  if [ "$dry_run" = 1 ]; then log "MISSING  $1 (would install)"; return 1; fi
  log "missing  $1: installing"
  return 0
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

# --- rustup target -------------------------------------------------------------------
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  found "rust target wasm32-unknown-unknown"
elif need "rust target wasm32-unknown-unknown (rustup target add)"; then
  rustup target add wasm32-unknown-unknown
fi

# --- Debian packages (apt holds a lock: all at once, before the cargo installs) -------
apt_pkgs=()
if command -v node >/dev/null; then
  found "node $(node --version) at $(command -v node)"
  if ! command -v npm >/dev/null; then
    log "node is installed but npm is not: install npm with the package manager node came from"
    exit 1
  fi
elif need "node and npm (Debian nodejs npm)"; then
  apt_pkgs+=(nodejs npm)
fi
if [ "$want_browser" = 1 ]; then
  if [ -x "$CHROMIUM" ]; then
    found "$("$CHROMIUM" --version 2>/dev/null || echo chromium) at $CHROMIUM"
  elif need "chromium (Debian package; headless, SwiftShader WebGPU bundled)"; then
    apt_pkgs+=(chromium)
    CHROMIUM=/usr/bin/chromium
  fi
  for tool in python3 curl; do
    if command -v "$tool" >/dev/null; then found "$tool at $(command -v "$tool")"
    elif need "$tool (Debian package)"; then apt_pkgs+=("$tool"); fi
  done
fi
if [ ${#apt_pkgs[@]} -gt 0 ]; then
  log "apt-get install ${apt_pkgs[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${apt_pkgs[@]}" >/dev/null
fi
if command -v node >/dev/null; then
  node_major=$(node --version | sed 's/^v\([0-9]*\).*/\1/')
  [ "$node_major" -ge 20 ] || log "warning: node $(node --version) is older than playwright-core 1.65 asks (>= 20); install node 20 (e.g. nodesource) if the browser test fails to start"
fi

# --- cargo tools (slow: about 5 and 12 CPU-minutes; side by side) --------------------
pids=()
t_cargo=$(date +%s)
# cargo install builds in a temporary directory of its own: a CARGO_TARGET_DIR from the
# caller would mix the tools' build with the workspace's.
if wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $WBG_VERSION"; then
  found "wasm-bindgen $WBG_VERSION at $(command -v wasm-bindgen)"
elif need "wasm-bindgen-cli $WBG_VERSION in $CARGO_ROOT/bin (cargo install, about 5 CPU-minutes)"; then
  # Without --locked: the CLI's own lock file pins a yanked crate.
  env -u CARGO_TARGET_DIR cargo install wasm-bindgen-cli --version "$WBG_VERSION" --root "$CARGO_ROOT" --force --quiet &
  pids+=($!)
fi
if [ "$want_trunk" = 1 ]; then
  if trunk --version 2>/dev/null | grep -qx "trunk $TRUNK_VERSION"; then
    found "trunk $TRUNK_VERSION at $(command -v trunk)"
  elif need "trunk $TRUNK_VERSION in $CARGO_ROOT/bin (cargo install --locked, about 12 CPU-minutes)"; then
    env -u CARGO_TARGET_DIR cargo install trunk --version "$TRUNK_VERSION" --locked --root "$CARGO_ROOT" --quiet &
    pids+=($!)
  fi
fi

# --- npm: playwright-core and binaryen (wasm-opt), exactly as package-lock.json pins them
npm_version() { node -p "require('./node_modules/$1/package.json').version" 2>/dev/null || true; }
want_pw=$(node -p "require('./package.json').devDependencies['playwright-core']" 2>/dev/null || echo "?")
want_bin=$(node -p "require('./package.json').devDependencies['binaryen']" 2>/dev/null || echo "?")
if [ "$(npm_version playwright-core)" = "$want_pw" ] && [ "$(npm_version binaryen)" = "$want_bin" ] \
    && [ -x node_modules/.bin/wasm-opt ]; then
  found "playwright-core $want_pw and binaryen $want_bin (wasm-opt) in node_modules"
elif need "playwright-core $want_pw and binaryen $want_bin (npm ci from package-lock.json)"; then
  t=$(date +%s)
  npm ci --no-audit --no-fund --silent
  log "npm ci took $(( $(date +%s) - t )) s"
fi

fail=0
for pid in "${pids[@]}"; do
  wait "$pid" || fail=1
done
if [ "$fail" = 1 ]; then
  log "a cargo install failed (see above); run it again, it keeps what did install"
  exit 1
fi
if [ ${#pids[@]} -gt 0 ]; then log "cargo installs took $(( $(date +%s) - t_cargo )) s"; fi

if [ "$dry_run" = 1 ]; then
  if [ "$missing" -gt 0 ]; then log "$missing missing (dry run: nothing installed)"; exit 1; fi
  log "everything is there"
  exit 0
fi
# What the build will use, checked again after the installs.
log "using $(wasm-bindgen --version)"
if [ "$want_trunk" = 1 ]; then log "using $(trunk --version)"; fi
log "using wasm-opt: $(wasm-opt --version)"
log "using playwright-core $(npm_version playwright-core)"
if [ "$want_browser" = 1 ]; then log "using $("$CHROMIUM" --version 2>/dev/null)"; fi
log "ready"
