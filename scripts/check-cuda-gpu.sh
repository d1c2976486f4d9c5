#!/usr/bin/env bash
# The CUDA backend on an NVIDIA GPU (issue 20): CPU vs CUDA agreement and decode speed, in
# both CUDA weight formats: `gpu-blocks` (the GGUF's quantized blocks on the GPU, our
# cubecl kernel; the default on cuda) and `burn-f32` (f32 tensors, burn's matmul).
#
#   bash scripts/check-cuda-gpu.sh                      # in a checkout built by check-cuda-build.sh
#   bash check-cuda-gpu.sh --bundle DIR --model GGUF    # from the carried bundle (no Rust needed)
#
# Steps (every step runs; the script fails at the end if any failed):
#   1. nvidia-smi (driver and device), if present;
#   2. the agreement test (crates/model/tests/it/backend_agreement.rs, --features cuda): a
#      70-token prefill, 4 greedy steps and a rollback on ndarray and on cuda in each
#      format, largest logit difference < 0.05 and the same greedy token at every step;
#   3. `espalier generate` greedy, 64 tokens, on ndarray and on cuda with
#      `--weights gpu-blocks` and `--weights burn-f32`: the same token ids;
#   4. `espalier bench decode --modes none,mask` on cuda in each format and on ndarray
#      (speed, JSON; the last line of each names `backend` and `weights`).
# Output: $OUT_DIR (default /tmp/espalier-cuda-gpu) holds every log and JSON.
set -uo pipefail

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
    # The carried libdevice (check-cuda-build.sh), unless the machine names a toolkit.
    [ -n "${CUDA_PATH:-}" ] || [ ! -d "$bundle/cuda" ] || export CUDA_PATH=$bundle/cuda
    espalier=$bundle/espalier
    agreement=("$bundle/backend_agreement" backend_agreement:: --nocapture)
else
    cd "$(dirname "$0")/.." || exit 1
    export CARGO_TARGET_DIR=${ESPALIER_CUDA_TARGET_DIR:-$PWD/target/cuda}
    cargo build --release -p espalier-cli --features cuda || exit 1
    espalier=$CARGO_TARGET_DIR/release/espalier
    agreement=(cargo test --release -p espalier-model --features cuda --test it -- backend_agreement:: --nocapture)
fi
model=${model:-static/models/SmolLM2-135M-Instruct.Q4_1.gguf}
[ -f "$model" ] || { echo "model $model not found (--model PATH, or bash scripts/fetch-model.sh)" >&2; exit 1; }
export ESPALIER_MODEL=$model
out=${OUT_DIR:-/tmp/espalier-cuda-gpu}
mkdir -p "$out"
echo "logs in $out; load $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
failed=()

# The runs of steps 3 and 4: a name, then the arguments that choose backend and weights.
runs=("ndarray|--backend ndarray" "cuda-gpu-blocks|--backend cuda --weights gpu-blocks" "cuda-burn-f32|--backend cuda --weights burn-f32")

echo "== 1. driver"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/nvidia-smi.csv"
else
    echo "nvidia-smi not found (the probe in step 2 still reports the driver)"
fi

echo "== 2. agreement test (ndarray vs cuda logits and greedy tokens, gpu-blocks and burn-f32)"
"${agreement[@]}" 2>&1 | tee "$out/agreement.log" || failed+=("2. agreement test")

echo "== 3. greedy generation, 64 tokens, ndarray vs cuda (gpu-blocks, burn-f32)"
prompt="Write a Python function that returns the n-th Fibonacci number."
for run in "${runs[@]}"; do
    name=${run%%|*}
    # shellcheck disable=SC2086 # the arguments are words on purpose
    "$espalier" generate ${run#*|} --model "$model" --prompt "$prompt" --max-tokens 64 --json \
        > "$out/generate-$name.json" 2> "$out/generate-$name.log" || failed+=("3. generate $name (see $out/generate-$name.log)")
    grep -h '^weights: ' "$out/generate-$name.log" | sed "s/^/$name /"
done
python3 - "$out" <<'PY' || failed+=("3. greedy tokens")
import json, sys
d = sys.argv[1]
def load(name):
    try:
        return json.load(open(f"{d}/generate-{name}.json"))
    except (OSError, ValueError) as e:
        sys.exit(f"{name}: no result ({e})")
cpu = load("ndarray")
print(f"ndarray: decode {cpu['decode_tps']:.1f} tok/s")
bad = []
for name in ("cuda-gpu-blocks", "cuda-burn-f32"):
    gpu = load(name)
    first = next((i for i, (a, b) in enumerate(zip(cpu["ids"], gpu["ids"])) if a != b), None)
    print(f"{name} ({gpu.get('weights')}): prefill {gpu['prefill_tps']:.1f} tok/s, decode {gpu['decode_tps']:.1f} tok/s")
    if first is not None or len(cpu["ids"]) != len(gpu["ids"]):
        bad.append(f"{name}: greedy tokens differ from position {first}: {cpu['ids']} vs {gpu['ids']}")
    else:
        print(f"{name}: same {len(gpu['ids'])} greedy tokens as ndarray")
if bad:
    sys.exit("\n".join(bad))
PY

echo "== 4. decode speed (espalier bench decode --lang python --modes none,mask)"
for run in "${runs[@]}"; do
    name=${run%%|*}
    # shellcheck disable=SC2086
    "$espalier" bench decode ${run#*|} --model "$model" --lang python --modes none,mask --rounds 3 --tokens 64 \
        > "$out/bench-$name.json" 2> "$out/bench-$name.log" || failed+=("4. bench decode $name (see $out/bench-$name.log)")
    echo "$name: $(tail -1 "$out/bench-$name.json")"
done

if [ ${#failed[@]} -gt 0 ]; then
    printf 'check-cuda-gpu: FAILED: %s\n' "${failed[@]}"
    exit 1
fi
echo "check-cuda-gpu: passed"
