#!/usr/bin/env bash
# Builds the `espalier` Python package (crates/python, PyO3 + maturin, abi3 wheel) into
# a virtual environment and runs its pytest suite.
#
# Usage: scripts/test-python.sh [VENV]     (default VENV: target/python-venv)
#   VENV may be the llama.cpp venv of scripts/bench-llamacpp.sh (/tmp/llama-venv): then
#   the llama-cpp-python test runs too (HumanEval 20 under the Python constraint);
#   elsewhere it is skipped. ESPALIER_SLOW=1 also runs the transformers test
#   (tests/test_hf.py: installs torch and transformers into VENV first: ~5.6 GB).
# Idempotent: pip installs only what is missing; the wheel is rebuilt by cargo
# incrementally and reinstalled.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${1:-$ROOT/target/python-venv}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}

[ -f "$ROOT/static/models/SmolLM2-135M-Instruct.Q4_1.gguf" ] || bash "$ROOT/scripts/fetch-model.sh"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c 'import maturin, pytest, numpy' 2>/dev/null \
    || "$VENV/bin/pip" install -q "maturin>=1.5,<2" pytest numpy
if [ "${ESPALIER_SLOW:-0}" = 1 ]; then
    "$VENV/bin/python" -c 'import torch, transformers, gguf, accelerate' 2>/dev/null || {
        # PyPI's torch is the CUDA build: without its nvidia / cuda-toolkit packages it
        # does not import (libcudart.so.13 missing), so they come too (~5.6 GB, ~6 min).
        "$VENV/bin/pip" install -q torch
        "$VENV/bin/pip" install -q transformers gguf accelerate
    }
fi

WHEELS="$CARGO_TARGET_DIR/wheels"
rm -f "$WHEELS"/espalier-*.whl
"$VENV/bin/maturin" build --release -m "$ROOT/crates/python/Cargo.toml" -o "$WHEELS" --interpreter "$VENV/bin/python"
"$VENV/bin/pip" install -q --force-reinstall --no-deps "$WHEELS"/espalier-*.whl

cd "$ROOT/crates/python"
OMP_WAIT_POLICY=PASSIVE "$VENV/bin/python" -m pytest -q tests "${@:2}"
