#!/usr/bin/env bash
# Writes crates/cli/tests/data/byo-golden.json: llama.cpp's tokenization and greedy
# tokens on the synthetic models in the Qwen2 and DeepSeek-Coder vocabularies
# (byo_golden.py). Needs llama.cpp for this CPU (scripts/bench-llamacpp.sh, ~15 minutes
# once) and the vocabularies (scripts/fetch-vocabs.sh). Run it again when
# `espalier_model::synthetic` changes (the test then reports a checksum mismatch).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VENV=${LLAMA_VENV:-/tmp/llama-venv}
DIR=${CARGO_TARGET_DIR:-$ROOT/target}/byo-model
bash "$ROOT/scripts/bench-llamacpp.sh" "$VENV"
bash "$ROOT/scripts/fetch-vocabs.sh"
mkdir -p "$DIR"
cd "$ROOT"
V=static/models/vocab
cargo run -q --release -p espalier-model --example synthetic_model -- $V/ggml-vocab-qwen2.gguf qwen2 "$DIR/qwen2.gguf"
cargo run -q --release -p espalier-model --example synthetic_model -- $V/ggml-vocab-deepseek-coder.gguf llama "$DIR/llama.gguf"
PYTHONPATH="${ESPALIER_TOOLS:-$ROOT/../shared/tools}" OMP_WAIT_POLICY=PASSIVE "$VENV/bin/python" \
    "$ROOT/scripts/synthetic/byo_golden.py" "$ROOT/crates/cli/tests/data/byo-golden.json" \
    "qwen2:qwen2:$DIR/qwen2.gguf" "llama:deepseek-coder:$DIR/llama.gguf"
