#!/usr/bin/env bash
# Builds the `espalier` Python package (crates/python, PyO3 + maturin, abi3 wheel) into
# a virtual environment and runs its pytest suite.
# Always (cheap: maturin, pytest, numpy): the constraint, FIM, wrap-up and hostile-input
# tests, and the engine-free checks of both processors (the llama.cpp processor driven
# with NumPy rows; the transformers processor's argument errors).
# ESPALIER_SLOW=1 (read by tests/slow_gate.py, as the Rust tests read it) also installs
# the engines and runs their tests (skipped otherwise, the reason naming the gate):
# - transformers 5.23.0 + torch 2.15.0 (PyPI; its torch is the CUDA build, which imports
#   only with its nvidia / cuda packages: 5.6 GB, 522-798 s to install with no pip cache
#   on the 2-core dev box under load, over the ~7 minutes CI allows, hence the gate)
#   and gguf 0.19.0 (the tokenizer from the GGUF): the processor drives a small
#   random-weight Llama built from a config (no download), and the real-model
#   HumanEval test (accelerate 1.15.0 too);
# - llama-cpp-python 0.3.36 where the CPU lacks AVX-512: the wheel of ../shared/tools
#   with its CPU backend rebuilt portable (scripts/bench-llamacpp.sh VENV portable: 592 s
#   cold on the 2-core dev box under load, over the ~6 minutes CI allows, hence the gate).
# llama-cpp-python on a CPU with AVX-512 (avx512f in /proc/cpuinfo): the wheel of
# ../shared/tools as it is (built there, -march=native; a pip install of a local file),
# always, gate or not: its tests then run (ESPALIER_LLAMA_CPP=wheel tells them so).
#
# Usage: scripts/test-python.sh [VENV] [PYTEST ARGS...]   (default VENV: target/python-venv)
# Idempotent: pip installs only what is missing; the llama.cpp backend is rebuilt only
# when VENV's llama_cpp does not run; the wheel is rebuilt by cargo incrementally and
# reinstalled.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${1:-$ROOT/target/python-venv}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
SLOW=$(python3 "$ROOT/crates/python/tests/slow_gate.py")   # fails on a bad ESPALIER_SLOW

step() { # step NAME COMMAND...: runs it and says how long it took (CI's cold-run figures)
    local name=$1 t0=$SECONDS
    shift
    "$@"
    echo "test-python: $name took $((SECONDS - t0)) s" >&2
}

[ -f "$ROOT/static/models/SmolLM2-135M-Instruct.Q4_1.gguf" ] || bash "$ROOT/scripts/fetch-model.sh"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
PINS=("maturin>=1.5,<2" pytest numpy)
[ "$SLOW" = 1 ] && PINS+=("torch==2.15.0" "transformers==5.23.0" "gguf==0.19.0" "accelerate==1.15.0")
"$VENV/bin/python" - "${PINS[@]}" <<'PY' 2>/dev/null || step "pip install (${PINS[*]})" "$VENV/bin/pip" install -q "${PINS[@]}"
import sys
from importlib.metadata import version
for pin in sys.argv[1:]:
    name, _, want = pin.partition("==")
    have = version(name.split(">")[0])
    assert not want or have == want, (name, have, want)
PY
TOOLS=${ESPALIER_TOOLS:-$ROOT/../shared/tools}
LLAMA_WHEEL=$TOOLS/llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl
export ESPALIER_LLAMA_CPP=none ESPALIER_TOOLS=$TOOLS
if grep -qw avx512f /proc/cpuinfo; then
    # The wheel runs here as built (its dependencies from PyPI, the wheel itself as is).
    "$VENV/bin/python" -c 'import llama_cpp' 2>/dev/null || {
        "$VENV/bin/pip" install -q numpy typing-extensions diskcache jinja2
        step "llama-cpp-python (the AVX-512 wheel)" "$VENV/bin/pip" install -q --no-deps "$LLAMA_WHEEL"
    }
    ESPALIER_LLAMA_CPP=wheel
elif [ "$SLOW" = 1 ]; then
    step "llama-cpp-python (portable CPU backend)" bash "$ROOT/scripts/bench-llamacpp.sh" "$VENV" portable
    ESPALIER_LLAMA_CPP=portable
fi

WHEELS="$CARGO_TARGET_DIR/wheels"
rm -f "$WHEELS"/espalier-*.whl
step "maturin build" "$VENV/bin/maturin" build --release -m "$ROOT/crates/python/Cargo.toml" -o "$WHEELS" --interpreter "$VENV/bin/python"
"$VENV/bin/pip" install -q --force-reinstall --no-deps "$WHEELS"/espalier-*.whl

cd "$ROOT/crates/python"
step pytest env OMP_WAIT_POLICY=PASSIVE "$VENV/bin/python" -m pytest -q tests "${@:2}"
