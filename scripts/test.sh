#!/usr/bin/env bash
# The test command: every test suite CI runs (the default members: the web crate is
# built for wasm by the browser test, not natively). Slow suites are gated (README).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo nextest run --release --no-fail-fast "$@"
