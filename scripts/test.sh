#!/usr/bin/env bash
# The test command: every test suite CI runs. First `scripts/setup.sh` (idempotent)
# installs what the tests need (the CPython corpus and oracle, Lua 5.4, cargo-nextest,
# the model), so that on a fresh machine this either tests everything or fails: no
# suite skips a missing input. Then the whole workspace: the native crates and the web
# crate's native-testable parts (the playground's pure logic; its browser and GPU code
# is wasm32-only and is driven by scripts/browser-test.sh). Slow suites are gated
# behind ESPALIER_SLOW=1 (README.md; their figures in BENCHMARKS.md). The Python package (crates/python, a PyO3 extension
# module that links against the interpreter) is built by maturin and tested by
# scripts/test-python.sh, which .ci/run calls next.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The tree is formatted (rustfmt.toml); a diff fails here, before the long build.
cargo fmt --all --check
# Clippy finds no warning, with the selection of the suites below (another selection
# would resolve features differently and check the burn stack again). In release, so
# that it shares build scripts and proc macros with the build; it checks every
# dependency once (~4 CPU-minutes cold, seconds when warm).
cargo clippy --release --workspace --exclude espalier-python --all-targets -- -D warnings
cargo nextest run --release --no-fail-fast --workspace --exclude espalier-python "$@"
