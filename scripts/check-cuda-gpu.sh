#!/usr/bin/env bash
# The CUDA backend on an NVIDIA GPU (issue 20): CPU vs CUDA agreement and decode speed.
# Not run so far: no GPU machine was at hand (see the README's CUDA section).
#
#   bash scripts/check-cuda-gpu.sh                      # in a checkout built by check-cuda-build.sh
#   bash check-cuda-gpu.sh --bundle DIR --model GGUF    # from the carried bundle (no Rust needed)
#
# Steps, each failing the script when it fails:
#   1. nvidia-smi (driver and device), if present;
#   2. the agreement test (crates/model/tests/backend_agreement.rs, --features cuda): a
#      70-token prefill, 4 greedy steps and a rollback on ndarray and cuda, largest logit
#      difference < 0.05 and the same greedy token at every step;
#   3. `espalier generate` greedy, 64 tokens, on ndarray and cuda: the same token ids;
#   4. `espalier bench decode --modes none,mask` on cuda and on ndarray (speed, JSON).
# Output: $OUT_DIR (default /tmp/espalier-cuda-gpu) holds every log and JSON.
set -euo pipefail

bundle=""
model=""
while [ $# -gt 0 ]; do
    case "$1" in
        --bundle) bundle=$2; shift 2 ;;
        --model) model=$2; shift 2 ;;
        *) echo "usage: $0 [--bundle DIR] [--model GGUF]" >&2; exit 2 ;;
    esac
done

if [ -n "$bundle" ]; then
    espalier=$bundle/espalier
    agreement=("$bundle/backend_agreement" --nocapture)
else
    cd "$(dirname "$0")/.."
    export CARGO_TARGET_DIR=${ESPALIER_CUDA_TARGET_DIR:-$PWD/target/cuda}
    cargo build --release -p espalier-cli --features cuda
    espalier=$CARGO_TARGET_DIR/release/espalier
    agreement=(cargo test --release -p espalier-model --features cuda --test backend_agreement -- --nocapture)
fi
model=${model:-static/models/SmolLM2-135M-Instruct.Q4_1.gguf}
[ -f "$model" ] || { echo "model $model not found (--model PATH, or bash scripts/fetch-model.sh)" >&2; exit 1; }
export ESPALIER_MODEL=$model
out=${OUT_DIR:-/tmp/espalier-cuda-gpu}
mkdir -p "$out"
echo "logs in $out; load $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"

echo "== 1. driver"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/nvidia-smi.csv"
else
    echo "nvidia-smi not found (the probe in step 2 still reports the driver)"
fi

echo "== 2. agreement test (ndarray vs cuda logits and greedy tokens)"
"${agreement[@]}" 2>&1 | tee "$out/agreement.log"

echo "== 3. greedy generation, 64 tokens, ndarray vs cuda"
prompt="Write a Python function that returns the n-th Fibonacci number."
for b in ndarray cuda; do
    "$espalier" generate --backend "$b" --model "$model" --prompt "$prompt" --max-tokens 64 --json \
        > "$out/generate-$b.json" 2> "$out/generate-$b.log"
done
python3 - "$out" <<'EOF'
import json, sys
d = sys.argv[1]
cpu, gpu = (json.load(open(f"{d}/generate-{b}.json")) for b in ("ndarray", "cuda"))
same = next((i for i, (a, b) in enumerate(zip(cpu["ids"], gpu["ids"])) if a != b), None)
print(f"ndarray decode {cpu['decode_tps']:.1f} tok/s, cuda decode {gpu['decode_tps']:.1f} tok/s")
if same is not None or len(cpu["ids"]) != len(gpu["ids"]):
    sys.exit(f"greedy tokens differ from position {same}: {cpu['ids']} vs {gpu['ids']}")
print(f"same {len(cpu['ids'])} greedy tokens")
EOF

echo "== 4. decode speed (espalier bench decode --lang python --modes none,mask)"
for b in cuda ndarray; do
    "$espalier" bench decode --backend "$b" --model "$model" --lang python --modes none,mask --rounds 3 --tokens 64 \
        > "$out/bench-$b.json" 2> "$out/bench-$b.log"
    echo "$b: $(tail -1 "$out/bench-$b.json")"
done
echo "check-cuda-gpu: passed"
