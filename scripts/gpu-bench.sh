#!/usr/bin/env bash
# The model at GPU speed, measured on a GPU machine (issue 33): one JSON line per backend
# and mode, from a carried bundle (no Rust on the GPU machine).
#
# Here (a checkout with Rust; the cuda build needs scripts/setup-cuda.sh first):
#   bash scripts/gpu-bench.sh --make-bundle
# builds espalier (--features cuda,wgpu: 130 MB stripped, LLVM linked in), the synthetic
# model writer and the counting layer into target/gpu-bench/bundle/, then packs what
# travels into .gpu-bench/1, .gpu-bench/2, ... (ignored by git), one folder a device
# call: each call carries the tracked tree (~23 MB) and at most 64 MiB in all, so a
# folder holds what is left of that (~43 MB). .gpu-bench/1 holds the programs (xz: ~28
# MB), the vocabularies, libdevice (from NVIDIA's wheel: scripts/cuda-tools.sh) and the
# real model's first part (xz), the next two the rest of it. It prints the calls: three for everything, the first alone for the synthetic rows.
# There (in the carried tree, after the calls that carried the folders):
#   bash scripts/gpu-bench.sh --unpack DIR   # .gpu-bench/* -> DIR (the model when all
#                                            # its parts came)
#   bash scripts/gpu-bench.sh --bundle DIR [--tokens 128]
# With folder 1 alone (one call) the rows are SmolLM2-135M's exact shape and format in
# random Q4_1 blocks, written there from SmolLM2's vocabulary (`model`:
# "smollm2-135m-shape-q4_1": the same work a token, noise for text, so its constrained
# runs may stop early at a complete program: see `decode_tokens`); with the real model's
# folders too, the real model ("smollm2-135m-instruct-q4_1").
#
# For each backend (ndarray, wgpu on Vulkan, cuda) and each mode (`none` and
# `--lang python --mode mask`): `espalier generate` greedy, 128 tokens, SmolLM2-135M Q4_1,
# prints {backend, model, weights, mode, decode_tps, prefill_tps, decode_tokens,
# launches_per_token, agreement, replay}. `launches_per_token` is counted on Vulkan only
# (the layer of scripts/gpu-count-layer, by the difference of a 16-token and a 128-token
# run); null elsewhere. `agreement`: the same token ids as the CPU's f32 reference in the
# same mode (ndarray `--weights burn-f32`; the ndarray row's default path rounds
# activations to 8 bits, as llama.cpp does, and may differ from it by a close call). On
# wgpu and cuda mode `none` runs three times: the decode step replayed (the default:
# `replay` true) and launch by launch (`ESPALIER_GPU_REPLAY=0`: `replay` false), both with
# the RMSNorms and SwiGLU folded into the products (`prologue` true, a GPU's default), and
# replayed with them in launches of their own (`ESPALIER_GPU_PROLOGUE=0`: `prologue`
# false); those rows also carry `host_ms_per_token`, `host_cpu_ms_per_token` and
# `first_step_ms` from `espalier bench decode --modes none --rounds 1 --tokens 32` with the
# same settings (its `step` figures: the host's time to record, or replay, a step, and
# the whole step on CPU clocks; the first step records). Then a long context (1,805
# prompt tokens) with a decode step's attention split over the cache's rows and not
# (`context: "long"` rows), and Qwen2.5-Coder-1.5B's shape in random Q4_K_M blocks
# (`model` "qwen2.5-coder-1.5b-shape-q4_k_m"). Every line has the issue's keys.
#
# Every generation runs with `--warm-up` (`warm_up`: true): once unmeasured, then the
# measured run from an empty cache. A GPU backend compiles each kernel at its first
# launch, which would otherwise land in the figures: on the stand-in driver
# (scripts/check-cuda-kernels.sh, no device time at all) SmolLM2's prompt pass took 476 ms
# and its first decode step 193 ms, the later steps 0.07 ms, so a cold 128-token run
# could not have shown more than ~660 tokens/s whatever the GPU.
#
# Run on: no GPU yet (no session since stop 40 has had a device). Stop 46 ran the
# `--bundle` half on lavapipe (wgpu only, `--tokens 8`); stop 50 ran `--make-bundle`
# (the cuda build had broken: fixed) and `--unpack` + `--bundle` on lavapipe from the
# packed folders; stop 51 rehearsed it with scripts/cuda-stand-in as the CUDA driver
# (every SmolLM2 row of every backend; results/gpu/README.md).
set -uo pipefail

bundle=""
tokens=128
make=0
unpack=""
while [ $# -gt 0 ]; do
    case "$1" in
        --bundle) bundle=$2; shift 2 ;;
        --tokens) tokens=$2; shift 2 ;;
        --make-bundle) make=1; shift ;;
        --unpack) unpack=$2; shift 2 ;;
        *) echo "usage: $0 --make-bundle | --unpack DIR | --bundle DIR [--tokens N]" >&2; exit 2 ;;
    esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
real_model=SmolLM2-135M-Instruct.Q4_1.gguf

if [ $make = 1 ]; then
    cd "$here" || exit 1
    export CARGO_TARGET_DIR=${ESPALIER_CUDA_TARGET_DIR:-$PWD/target/cuda}
    cargo build --release -p espalier-cli --features cuda,wgpu || exit 1
    cargo build --release -p espalier-model --example synthetic_model || exit 1
    dir=$PWD/target/gpu-bench/bundle
    rm -rf "$dir" && mkdir -p "$dir"
    cp "$CARGO_TARGET_DIR/release/espalier" "$dir/" && strip "$dir/espalier"
    cp "$CARGO_TARGET_DIR/release/examples/synthetic_model" "$dir/" && strip "$dir/synthetic_model"
    cp static/models/vocab/ggml-vocab-qwen2.gguf "$dir/"
    "$dir/synthetic_model" "static/models/$real_model" vocab "$dir/smollm2-vocab.gguf" || exit 1
    gcc -O2 -shared -fPIC -fvisibility=hidden -o "$dir/libespalier_vk_count.so" \
        scripts/gpu-count-layer/count_layer.c -lpthread || exit 1
    cp scripts/gpu-count-layer/VK_LAYER_ESPALIER_count.json "$dir/"
    # libdevice: burn-cuda's LLVM backend links it into kernels that call exp / ln and
    # looks for it under a CUDA toolkit, which a GPU machine with a driver alone lacks.
    tools=$(bash scripts/cuda-tools.sh) || exit 1
    mkdir -p "$dir/cuda/nvvm/libdevice"
    cp "$tools/nvvm/libdevice/libdevice.10.bc" "$dir/cuda/nvvm/libdevice/"
    # What one call may carry beside the tree: 64 MiB less what travels anyway (tracked
    # and untracked-not-ignored files), less 1 MiB of margin.
    tree=$( (git ls-files -z; git ls-files -z --others --exclude-standard) \
        | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s}')
    room=$((64 * 1024 * 1024 - tree - 1024 * 1024))
    rm -rf .gpu-bench && mkdir -p .gpu-bench/1
    tar -C "$dir" -cf - espalier synthetic_model libespalier_vk_count.so \
        VK_LAYER_ESPALIER_count.json ggml-vocab-qwen2.gguf smollm2-vocab.gguf cuda \
        | xz -T0 -6 >.gpu-bench/1/core.tar.xz || exit 1
    core=$(stat -c %s .gpu-bench/1/core.tar.xz)
    [ "$core" -le "$room" ] || { echo "core.tar.xz is $core bytes, over the $room a call carries" >&2; exit 1; }
    # The model (xz) fills what folder 1 leaves, then folders of `room` bytes.
    xz -T0 -6 -c "static/models/$real_model" >"$dir/model.xz" || exit 1
    first=$((room - core))
    head -c "$first" "$dir/model.xz" >.gpu-bench/1/model.xz.part.0
    tail -c +$((first + 1)) "$dir/model.xz" \
        | split -b "$room" -d -a 1 --numeric-suffixes=1 - "$dir/model.xz.part." || exit 1
    calls=1
    for part in "$dir"/model.xz.part.*; do
        calls=$((calls + 1))
        mkdir -p ".gpu-bench/$calls" && mv "$part" ".gpu-bench/$calls/"
    done
    du -b .gpu-bench/* | sed 's/^/  /'
    echo "tree $tree bytes; each call carries at most $room more. The device calls (back to back:"
    echo "a machine stays warm 30 s; the folders stay in the tree there while it does):"
    for k in $(seq 1 $calls); do
        last=""
        [ "$k" = "$calls" ] && last=" && bash scripts/gpu-bench.sh --unpack /tmp/gb && OUT_DIR=\$OUT bash scripts/gpu-bench.sh --bundle /tmp/gb"
        echo "  run carry=[\".gpu-bench/$k\"] command=\"ls -la .gpu-bench/*$last\""
    done
    echo "  (or call 1 alone, with the last command: the synthetic SmolLM2 shape and Qwen rows)"
    exit 0
fi

if [ -n "$unpack" ]; then
    [ -f "$here/.gpu-bench/1/core.tar.xz" ] || {
        echo "no $here/.gpu-bench/1/core.tar.xz: carry .gpu-bench/1 (made by --make-bundle) first" >&2
        exit 2
    }
    mkdir -p "$unpack" || exit 1
    python3 - "$here/.gpu-bench" "$unpack" "$real_model" <<'EOF' || exit 1
import glob, lzma, os, sys, tarfile
src, dst, model = sys.argv[1:4]
with tarfile.open(f"{src}/1/core.tar.xz") as t:
    t.extractall(dst)
parts = sorted(glob.glob(f"{src}/*/model.xz.part.*"), key=lambda p: int(p.rsplit(".", 1)[1]))
if parts:
    packed = b"".join(open(p, "rb").read() for p in parts)
    try:
        whole = lzma.decompress(packed)
        open(f"{dst}/{model}", "wb").write(whole)
    except lzma.LZMAError as e:
        print(f"the model's {len(parts)} parts do not make the whole file ({e}): "
              "the synthetic rows only", file=sys.stderr)
print(" ".join(sorted(os.listdir(dst))))
EOF
    exit 0
fi

[ -n "$bundle" ] || { echo "usage: $0 --bundle DIR" >&2; exit 2; }
# The carried libdevice, unless the machine names a toolkit of its own (CUDA_PATH).
[ -n "${CUDA_PATH:-}" ] || [ ! -d "$bundle/cuda" ] || export CUDA_PATH=$bundle/cuda
out=${OUT_DIR:-/tmp/espalier-gpu-bench}
mkdir -p "$out"
model=$bundle/$real_model
export MODEL_NAME=smollm2-135m-instruct-q4_1
if [ ! -f "$model" ]; then
    # The real model did not travel: its shape and format in random blocks, written here.
    model=$out/smollm2-135m-shape-q4_1.gguf
    MODEL_NAME=smollm2-135m-shape-q4_1
    [ -f "$model" ] || "$bundle/synthetic_model" "$bundle/smollm2-vocab.gguf" smollm2-135m-q4_1 \
        "$model" >&2 || exit 1
fi
echo "load $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; model $MODEL_NAME" >&2
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv >&2

# One generation: backend, mode (none, mask, or unreplayed: none launch by launch),
# tokens, [counted] -> its JSON in $out.
gen() {
    local backend=$1 mode=$2 n=$3 counted=${4:-} weights=${5:-}
    local name=$out/$backend-$mode-$n
    [ -n "$weights" ] && name=$out/$backend-$weights-$mode-$n
    local modeargs=()
    [ -n "$weights" ] && modeargs+=(--weights "$weights")
    [ "$mode" = mask ] && modeargs+=(--lang python --mode mask)
    local env=(ESPALIER_GPU_REPLAY=1 ESPALIER_GPU_PROLOGUE=1)
    [ "$mode" = unreplayed ] && env=(ESPALIER_GPU_REPLAY=0 ESPALIER_GPU_PROLOGUE=1)
    [ "$mode" = unfolded ] && env=(ESPALIER_GPU_REPLAY=1 ESPALIER_GPU_PROLOGUE=0)
    [ -n "$counted" ] && env+=(VK_LAYER_PATH=$bundle VK_INSTANCE_LAYERS=VK_LAYER_ESPALIER_count ESPALIER_VK_COUNTS=$name.counts)
    rm -f "$name.counts"
    env "${env[@]}" "$bundle/espalier" generate --backend "$backend" --model "$model" \
        --prompt 'def fibonacci(n):' "${modeargs[@]}" --max-tokens "$n" --json --warm-up \
        >"$name.json" 2>"$name.log"
}

# The step alone on each GPU backend, replayed (1), not (0), and replayed with the
# norms / SwiGLU in launches of their own (unfolded): read into the rows.
for backend in wgpu cuda; do
    for replay in 1 0 unfolded; do
        env ESPALIER_GPU_REPLAY="${replay/unfolded/1}" \
            ESPALIER_GPU_PROLOGUE="$([ "$replay" = unfolded ] && echo 0 || echo 1)" \
            "$bundle/espalier" bench decode --backend "$backend" \
            --model "$model" --modes none --rounds 1 --tokens 32 \
            >"$out/step-$backend-$replay.json" 2>"$out/step-$backend-$replay.log"
    done
done

for mode in none mask unreplayed unfolded; do
    case $mode in unreplayed | unfolded) ;; *) gen ndarray "$mode" "$tokens"; gen ndarray "$mode" "$tokens" "" burn-f32 ;; esac
    for backend in ndarray wgpu cuda; do
        case $mode in unreplayed | unfolded) [ "$backend" = ndarray ] && continue ;; esac
        [ "$backend" = ndarray ] || gen "$backend" "$mode" "$tokens" "$([ "$backend" = wgpu ] && echo 1)"
        [ "$backend" = wgpu ] && gen wgpu "$mode" 16 1
        python3 - "$out" "$backend" "$mode" "$tokens" <<'EOF'
import json, os, sys
out, backend, mode, n = sys.argv[1:5]
def load(path):
    try:
        return json.loads(open(path).read().strip().splitlines()[-1])
    except (OSError, IndexError, ValueError):
        return None
base = "none" if mode in ("unreplayed", "unfolded") else mode
run, cpu = load(f"{out}/{backend}-{mode}-{n}.json"), load(f"{out}/ndarray-burn-f32-{base}-{n}.json")
row = {"backend": backend, "model": os.environ.get("MODEL_NAME"), "mode": base,
       "weights": None, "decode_tps": None,
       "prefill_tps": None, "launches_per_token": None, "agreement": None,
       "replay": backend != "ndarray" and mode != "unreplayed",
       "prologue": backend != "ndarray" and mode != "unfolded"}
if run:
    row.update(weights=run["weights"], decode_tps=round(run["decode_tps"], 1),
               prefill_tps=round(run["prefill_tps"], 1), decode_tokens=run["decode_tokens"],
               warm_up=run.get("warm_up"))
    if cpu:
        row["agreement"] = run["ids"] == cpu["ids"]
    c1, c2 = load(f"{out}/{backend}-{mode}-16.counts"), load(f"{out}/{backend}-{mode}-{n}.counts")
    r1 = load(f"{out}/{backend}-{mode}-16.json")
    if c1 and c2 and r1 and run["decode_tokens"] > r1["decode_tokens"]:
        # The layer counts the process: a warmed-up run decodes its tokens twice (greedy:
        # the same tokens both times).
        runs_each = 2 if run.get("warm_up") and r1.get("warm_up") else 1
        row["launches_per_token"] = round((c2["dispatches"] - c1["dispatches"])
            / (runs_each * (run["decode_tokens"] - r1["decode_tokens"])), 1)
else:
    row["error"] = open(f"{out}/{backend}-{mode}-{n}.log").read()[-300:]
if backend != "ndarray" and base == "none":
    step = load(f"{out}/step-{backend}-{'unfolded' if mode == 'unfolded' else int(row['replay'])}.json")
    step = step.get("step") if step else None
    row["host_ms_per_token"] = step["host_ms_median"] if step else None
    row["host_cpu_ms_per_token"] = step.get("host_cpu_ms_median") if step else None
    row["first_step_ms"] = step["first_step_ms"] if step else None
print(json.dumps(row))
EOF
    done
done

# A long context: a prompt of 1,805 tokens (40 small generated functions in the chat
# template), so the cache's stores hold 2,048 rows and a GPU's decode step splits
# attention into 8 parts of 256 rows (crates/model/src/llama/gpu_attention_split.rs); on
# each GPU backend once split (the default) and once not (`ESPALIER_GPU_ATTENTION_ROWS=0`):
# `context: "long"`, `attention_rows`, `prefill_tokens`, `agreement` against ndarray's
# burn-f32 on the same prompt; 32 tokens each. `GPU_BENCH_LONG=0` skips them.
python3 "$here/scripts/gpu-long-prompt.py" >"$out/long-prompt.py"
long() {
    local backend=$1 rows=$2 weights=${3:-}
    local modeargs=()
    [ -n "$weights" ] && modeargs+=(--weights "$weights")
    env ESPALIER_GPU_REPLAY=1 ESPALIER_GPU_PROLOGUE=1 ESPALIER_GPU_ATTENTION_ROWS="$rows" \
        "$bundle/espalier" generate --backend "$backend" --model "$model" \
        --prompt "$(cat "$out/long-prompt.py")" "${modeargs[@]}" --max-tokens 32 --json --warm-up \
        >"$out/long-$backend-$rows$weights.json" 2>"$out/long-$backend-$rows$weights.log"
}
[ "${GPU_BENCH_LONG:-1}" = 0 ] || long ndarray 256 burn-f32
for backend in ndarray wgpu cuda; do
    [ "${GPU_BENCH_LONG:-1}" = 0 ] && break
    for rows in 256 0; do
        [ "$backend" = ndarray ] && [ "$rows" = 0 ] && continue
        long "$backend" "$rows"
        python3 - "$out" "$backend" "$rows" <<'EOF'
import json, os, sys
out, backend, rows = sys.argv[1:4]
def load(path):
    try:
        return json.loads(open(path).read().strip().splitlines()[-1])
    except (OSError, IndexError, ValueError):
        return None
run, ref = load(f"{out}/long-{backend}-{rows}.json"), load(f"{out}/long-ndarray-256burn-f32.json")
row = {"backend": backend, "model": os.environ.get("MODEL_NAME"), "context": "long",
       "mode": "none", "weights": None,
       "decode_tps": None, "prefill_tps": None, "launches_per_token": None, "agreement": None,
       "attention_rows": int(rows) if backend != "ndarray" else None}
if run:
    row.update(weights=run["weights"], decode_tps=round(run["decode_tps"], 1),
               prefill_tps=round(run["prefill_tps"], 1), prefill_tokens=run.get("prefill_tokens"))
    if ref:
        row["agreement"] = run["ids"] == ref["ids"]
else:
    row["error"] = open(f"{out}/long-{backend}-{rows}.log").read()[-300:]
print(json.dumps(row))
EOF
    done
done

# A user's own model: Qwen2.5-Coder-1.5B's shape in random Q4_K_M blocks (Q6_K embedding,
# V and down every other block), written here by our GGUF writer so nothing big travels;
# greedy, unconstrained, QWEN_TOKENS tokens; `agreement` against ndarray's burn-f32.
# `GPU_BENCH_QWEN=0` skips them.
if [ -x "$bundle/synthetic_model" ] && [ "${GPU_BENCH_QWEN:-1}" != 0 ]; then
    qwen=$out/qwen2.5-coder-1.5b-shape-q4_k_m.gguf
    [ -f "$qwen" ] || "$bundle/synthetic_model" "$bundle/ggml-vocab-qwen2.gguf" \
        qwen2.5-coder-1.5b-q4_k_m "$qwen" >&2
    qn=${QWEN_TOKENS:-32}
    model=$qwen
    gen ndarray qwen "$qn" "" burn-f32
    for backend in ndarray wgpu cuda; do
        gen "$backend" qwen "$qn"
        python3 - "$out" "$backend" "$qn" <<'EOF'
import json, sys
out, backend, n = sys.argv[1:4]
def load(path):
    try:
        return json.loads(open(path).read().strip().splitlines()[-1])
    except (OSError, IndexError, ValueError):
        return None
run, ref = load(f"{out}/{backend}-qwen-{n}.json"), load(f"{out}/ndarray-burn-f32-qwen-{n}.json")
row = {"backend": backend, "model": "qwen2.5-coder-1.5b-shape-q4_k_m", "mode": "none",
       "weights": None, "decode_tps": None, "prefill_tps": None, "launches_per_token": None,
       "agreement": None, "replay": backend != "ndarray"}
if run:
    row.update(weights=run["weights"], decode_tps=round(run["decode_tps"], 1),
               prefill_tps=round(run["prefill_tps"], 1))
    if ref:
        row["agreement"] = run["ids"] == ref["ids"]
else:
    row["error"] = open(f"{out}/{backend}-qwen-{n}.log").read()[-300:]
print(json.dumps(row))
EOF
    done
fi

