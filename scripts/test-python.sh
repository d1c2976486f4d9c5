#!/usr/bin/env bash
# Builds the `espalier` Python package (crates/python, PyO3 + maturin, abi3 wheel) into
# a virtual environment and runs its pytest suite.
# Its environment (maturin, pytest, numpy, and the engines: torch + transformers + gguf,
# llama-cpp-python) comes from scripts/python-env.sh, which this runs first (idempotent;
# .ci/run starts it earlier, beside the Rust tests). Every suite runs: the constraint,
# FIM, wrap-up and hostile-input tests, and both processors driving their engines (a
# small random-weight Llama built from a config for transformers, SmolLM2 for
# llama.cpp). ESPALIER_SLOW=1 adds the one slow case: SmolLM2 through transformers on
# 20 HumanEval prompts (skipped otherwise, the reason naming the gate). What the engines
# add, measured on the 2-core dev box at load 8 (2026-11-28): the environment 129 + 101
# s cold (beside the Rust build in CI), test_llama_cpp.py 103 s, test_hf.py 12 s.
#
# Usage: scripts/test-python.sh [VENV] [PYTEST ARGS...]   (default VENV: target/python-venv)
# Idempotent: pip installs only what is missing; the llama.cpp backend is rebuilt only
# when VENV's llama_cpp does not run; the wheel is rebuilt by cargo incrementally and
# reinstalled.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${1:-$ROOT/target/python-venv}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}

step() { # step NAME COMMAND...: runs it and says how long it took (CI's cold-run figures)
    local name=$1 t0=$SECONDS
    shift
    "$@"
    echo "test-python: $name took $((SECONDS - t0)) s" >&2
}

LLAMA=$(step "python-env" bash "$ROOT/scripts/python-env.sh" "$VENV" | tail -n 1)
export ESPALIER_LLAMA_CPP=$LLAMA ESPALIER_TOOLS=${ESPALIER_TOOLS:-$ROOT/../shared/tools}

WHEELS="$CARGO_TARGET_DIR/wheels"
rm -f "$WHEELS"/espalier-*.whl
step "maturin build" "$VENV/bin/maturin" build --release -m "$ROOT/crates/python/Cargo.toml" -o "$WHEELS" --interpreter "$VENV/bin/python"
"$VENV/bin/pip" install -q --force-reinstall --no-deps "$WHEELS"/espalier-*.whl

cd "$ROOT/crates/python"
step pytest env OMP_WAIT_POLICY=PASSIVE "$VENV/bin/python" -m pytest -q tests "${@:2}"
