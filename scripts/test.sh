#!/usr/bin/env bash
# The test command: every test suite CI runs. Slow suites are gated (see README).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo nextest run --workspace --release --no-fail-fast "$@"
