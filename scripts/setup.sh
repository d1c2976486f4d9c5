#!/usr/bin/env bash
# One-time set-up on a fresh Debian machine: system packages the tests use as oracles
# and corpora, the model file, and Python helpers. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# Debian packages: CPython 3.11 and its test suite (the ast.parse oracle and the corpus),
# Lua 5.4 (oracle for translated sLua), Go 1.19 (gofmt -e is the Go grammar's oracle,
# its standard library the corpus).
need=()
[ -x /usr/bin/python3.11 ] || need+=(python3.11)
[ -f /usr/lib/python3.11/test/test_grammar.py ] || need+=(libpython3.11-testsuite)
{ command -v lua5.4 && command -v luac5.4; } >/dev/null || need+=(lua5.4)
[ -x /usr/lib/go-1.19/bin/gofmt ] && [ -d /usr/lib/go-1.19/src ] || need+=(golang-go)
# node and npm: the game's differential test plays scripts in wasmoon (Lua 5.4 in wasm).
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing Debian packages: ${need[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

# wasmoon (and the browser test's node tools) exactly as package-lock.json pins them.
want_wasmoon=$(node -p "require('./package-lock.json').packages['node_modules/wasmoon'].version")
if [ "$(node -p "require('./node_modules/wasmoon/package.json').version" 2>/dev/null || true)" != "$want_wasmoon" ]; then
  echo "installing node packages (npm ci): wasmoon $want_wasmoon, playwright-core, binaryen" >&2
  npm ci --no-audit --no-fund --silent
fi

command -v cargo-nextest >/dev/null || cargo install cargo-nextest --locked
# The wasm kernel check (scripts/test.sh) builds the kernels for wasm32.
rustup target list --installed | grep -qx wasm32-unknown-unknown \
  || rustup target add wasm32-unknown-unknown

# pyflakes (pinned) for the names checker's oracle test.
bash scripts/pyflakes-venv.sh

bash scripts/fetch-model.sh
# llama.cpp's vocabulary-only GGUFs and tokenizer vectors (Qwen2, DeepSeek-Coder,
# StarCoder) for crates/model/tests/it/vocab_golden.rs.
bash scripts/fetch-vocabs.sh
