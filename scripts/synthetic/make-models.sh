#!/usr/bin/env bash
# Writes the synthetic GGUFs and llama.cpp's golden logits for
# crates/model/tests/it/synthetic_golden.rs (see make_models.py) into OUT_DIR
# (default: target/synthetic-gguf). Needs llama.cpp for this CPU
# (scripts/bench-llamacpp.sh, which also unpacks the llama-cpp-python sdist whose
# vendor/llama.cpp/gguf-py is the gguf writer used here) and pyyaml + tqdm for gguf-py.
# ~1 minute.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/target/synthetic-gguf}
VENV=${LLAMA_VENV:-/tmp/llama-venv}
SRC=${LLAMA_SRC:-${TMPDIR:-/tmp}/llama-cpp-cpu-0.3.36/src}
bash "$ROOT/scripts/bench-llamacpp.sh" "$VENV"
"$VENV/bin/pip" install -q pyyaml tqdm
PYTHONPATH="${ESPALIER_TOOLS:-$ROOT/../shared/tools}" OMP_WAIT_POLICY=PASSIVE \
    "$VENV/bin/python" "$ROOT/scripts/synthetic/make_models.py" "$SRC/vendor/llama.cpp/gguf-py" "$OUT"
