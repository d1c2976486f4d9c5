#!/usr/bin/env bash
# The Python package's test environment: a virtual environment with what
# scripts/test-python.sh's suites need, the engines included (their processors are
# tested where users run them, never skipped):
# - maturin, pytest, numpy;
# - transformers 5.23.0 + torch 2.15.0 (PyPI's torch is the CUDA build, which imports
#   only with its nvidia packages: 5.6 GB) and gguf 0.19.0 (transformers reads the
#   tokenizer from the GGUF): cold, with no pip cache, 129 s wall / 105 CPU-s on the
#   2-core dev box (AMD EPYC, load 2-3; `pip install --no-cache-dir`, /usr/bin/time);
# - llama-cpp-python 0.3.36: the wheel of ../shared/tools as it is (built there with
#   -march=native on an AVX-512 + AMX Xeon) where it runs (a probe loads the model and
#   evaluates a prompt); elsewhere (AVX2-only CPUs, AVX-512 ones without AMX) that wheel
#   with its CPU backend rebuilt portable (x86-64-v2) by scripts/bench-llamacpp.sh: cold
#   101 s wall / 85 CPU-s there (sdist download, cmake, 17 compile steps);
# - ESPALIER_SLOW=1 (read by crates/python/tests/slow_gate.py, as the Rust tests read
#   it): accelerate 1.15.0 too, for the real-model transformers test.
# .ci/run starts this in the background beside the Rust tests (downloads and a small C
# build), so that test-python.sh finds it done; test-python.sh runs it too (idempotent:
# pip installs only what is missing, the llama.cpp backend is rebuilt only when the
# venv's llama_cpp does not run).
#
# Usage: scripts/python-env.sh [VENV]   (default VENV: target/python-venv)
# Last line of stdout: how llama-cpp-python was installed (`wheel` or `portable`).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${1:-$ROOT/target/python-venv}
SLOW=$(python3 "$ROOT/crates/python/tests/slow_gate.py")   # fails on a bad ESPALIER_SLOW

step() { # step NAME COMMAND...: runs it and says how long it took (CI's cold-run figures)
    local name=$1 t0=$SECONDS
    shift
    "$@" >&2
    echo "python-env: $name took $((SECONDS - t0)) s" >&2
}

[ -f "$ROOT/static/models/SmolLM2-135M-Instruct.Q4_1.gguf" ] || bash "$ROOT/scripts/fetch-model.sh" >&2
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
PINS=("maturin>=1.5,<2" pytest numpy "torch==2.15.0" "transformers==5.23.0" "gguf==0.19.0")
[ "$SLOW" = 1 ] && PINS+=("accelerate==1.15.0")
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
if grep -qw avx512f /proc/cpuinfo; then
    # First the wheel as built (its dependencies from PyPI, the wheel itself as is).
    "$VENV/bin/python" -c 'import llama_cpp' 2>/dev/null || {
        "$VENV/bin/pip" install -q numpy typing-extensions diskcache jinja2 >&2
        step "llama-cpp-python (the AVX-512 wheel)" "$VENV/bin/pip" install -q --no-deps "$LLAMA_WHEEL"
    }
fi
# A run decides, not a CPU flag: the wheel was built with -march=native on an AVX-512 +
# AMX Xeon, and an AVX-512 CPU without AMX or AVX512-FP16 (AMD Zen 4) dies with SIGILL
# in it as an AVX2-only one does. bench-llamacpp.sh keeps a venv whose llama.cpp loads
# the model and evaluates a prompt ("already runs"), else rebuilds its CPU backend
# portable.
t0=$SECONDS
ran=$(bash "$ROOT/scripts/bench-llamacpp.sh" "$VENV" portable | tail -n 1)
echo "python-env: llama-cpp-python (${ran:-?}) took $((SECONDS - t0)) s" >&2
case $ran in
    "llama.cpp already runs in"* | "llama.cpp runs in"*) ;;
    *) echo "scripts/bench-llamacpp.sh: llama.cpp does not run in $VENV" >&2; exit 1 ;;
esac
# `wheel` when the venv's CPU backend is the wheel's own, else `portable`.
"$VENV/bin/python" - "$LLAMA_WHEEL" <<'PY'
import importlib.util, pathlib, sys, zipfile
lib = pathlib.Path(importlib.util.find_spec("llama_cpp").origin).parent / "lib" / "libggml-cpu.so"
wheel = zipfile.ZipFile(sys.argv[1]).read("llama_cpp/lib/libggml-cpu.so")
print("wheel" if lib.read_bytes() == wheel else "portable")
PY
