#!/usr/bin/env bash
# Every kernel the CUDA backend launches, compiled for an H100 without a GPU (issue 33).
#
#   bash scripts/check-cuda-kernels.sh [--espalier BIN --synthetic BIN]
#
# The CUDA backend compiles a kernel when it first launches it, so a kernel that does not
# compile (or needs more registers or shared memory than a block may have) shows itself
# only on a GPU. Here:
#   1. scripts/cuda-tools.sh: libdevice (which burn-cuda's LLVM backend links into
#      kernels calling exp / ln / ...) and ptxas, from NVIDIA's CUDA 13.0 wheels on PyPI;
#   2. scripts/cuda-stand-in/libcuda.c built as libcuda.so.1: a driver that answers as an
#      H100 (sm_90, driver 580) and runs nothing: every launched kernel is compiled to PTX
#      and written out, every distinct launch configuration listed;
#   3. `espalier --features cuda` and the synthetic model writer, built in target/cuda
#      (scripts/setup-cuda.sh first) unless given;
#   4. the generations gpu-bench.sh runs on a GPU, on the stand-in: SmolLM2-135M Q4_1
#      greedy replayed, launch by launch, with the norms in launches of their own, under
#      `--lang python --mode mask`, sampled (t 0.8: the sampler's lists on the device), a
#      long prompt with attention split over the cache, `--weights burn-f32` (burn's own
#      kernels), and Qwen2.5-Coder-1.5B's shape in random Q4_K_M blocks; each must exit 0
#      having decoded its tokens;
#   5. ptxas -arch=sm_90a -v on every kernel's PTX (an error fails the check), and every
#      launch configuration held against the H100's limits: <= 1,024 threads a block,
#      registers x threads <= 65,536, static + dynamic shared memory <= 227 KiB.
# Nothing runs on a device, so no figure here is a speed or an agreement: only that the
# device run (scripts/gpu-bench.sh, scripts/check-cuda-gpu.sh) will not stop at a kernel.
# The last line is JSON: runs, runs_ok, kernels, ptxas_ok, launch_configs, launches_fit,
# max_registers, spill_bytes, max_shared_bytes, graph_launches (per run: the replayed
# decode steps, CUDA graphs; the replayed runs must have some, `unreplayed` none),
# control_caught (a run without libdevice failed to compile its kernels, as it must),
# graph_to_read_ms and graph_to_mask_upload_ms (medians over the replayed steps, from the
# stand-in's timeline: under the mask the step's graph goes out before the CPU computes
# the mask, so on a GPU the pass runs while it does; host times, not device times),
# per_token (a replayed step at the driver: graphs, launches outside them, uploads,
# reads and their bytes; unconstrained and under the mask). Logs in $OUT_DIR (default
# /tmp/espalier-cuda-kernels).
set -uo pipefail
cd "$(dirname "$0")/.."

espalier=""
synthetic=""
while [ $# -gt 0 ]; do
    case "$1" in
        --espalier) espalier=$2; shift 2 ;;
        --synthetic) synthetic=$2; shift 2 ;;
        *) echo "usage: $0 [--espalier BIN --synthetic BIN]" >&2; exit 2 ;;
    esac
done
out=${OUT_DIR:-/tmp/espalier-cuda-kernels}
rm -rf "$out" && mkdir -p "$out/ptx" "$out/lib"

tools=$(bash scripts/cuda-tools.sh) || exit 1
cc -O2 -shared -fPIC -fvisibility=hidden -Wall -Wextra -Werror -o "$out/lib/libcuda.so.1" \
    scripts/cuda-stand-in/libcuda.c -lpthread || exit 1
ln -sf libcuda.so.1 "$out/lib/libcuda.so"
if [ -z "$espalier" ]; then
    export CARGO_TARGET_DIR=${ESPALIER_CUDA_TARGET_DIR:-$PWD/target/cuda}
    bash scripts/setup-cuda.sh >&2 || exit 1
    cargo build --release -p espalier-cli --features cuda || exit 1
    cargo build --release -p espalier-model --example synthetic_model || exit 1
    espalier=$CARGO_TARGET_DIR/release/espalier
    synthetic=$CARGO_TARGET_DIR/release/examples/synthetic_model
fi
bash scripts/fetch-model.sh >&2 || exit 1
smollm2=static/models/SmolLM2-135M-Instruct.Q4_1.gguf
"$synthetic" static/models/vocab/ggml-vocab-qwen2.gguf qwen2.5-coder-1.5b-q4_k_m \
    "$out/qwen2.5-coder-1.5b-shape-q4_k_m.gguf" >&2 || exit 1
python3 scripts/gpu-long-prompt.py >"$out/long-prompt.py"

# One generation on the stand-in: NAME, then env assignments, then `--` and its arguments.
runs=0
runs_ok=0
run() {
    local name=$1 env=()
    shift
    while [ "$1" != -- ]; do env+=("$1"); shift; done
    shift
    runs=$((runs + 1))
    # Read backs answer 104 (SmolLM2's "x": a name goes on growing under the Python mask).
    env LD_LIBRARY_PATH="$out/lib" CUDA_PATH="$tools" ESPALIER_STANDIN_PTX="$out/ptx" \
        ESPALIER_STANDIN_LAUNCHES="$out/launches.txt" ESPALIER_STANDIN_COUNTS="$out/$name.counts" \
        ESPALIER_STANDIN_TIMELINE="$out/$name.timeline" \
        ESPALIER_STANDIN_FILL=104 "${env[@]}" \
        "$espalier" generate --backend cuda --json "$@" >"$out/$name.json" 2>"$out/$name.log"
    local rc=$?
    local tokens
    tokens=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])["decode_tokens"])' \
        "$out/$name.json" 2>/dev/null || echo 0)
    if [ $rc = 0 ] && [ "$tokens" -gt 0 ]; then
        runs_ok=$((runs_ok + 1))
        echo "ok   $name ($tokens tokens; driver calls: $(tail -1 "$out/$name.counts"))" >&2
    else
        echo "FAIL $name (exit $rc, $tokens tokens):" >&2
        tail -20 "$out/$name.log" >&2
    fi
}
prompt=(--prompt 'def fibonacci(n):' --max-tokens 24)
run replayed ESPALIER_GPU_REPLAY=1 ESPALIER_GPU_PROLOGUE=1 -- --model "$smollm2" "${prompt[@]}"
run unreplayed ESPALIER_GPU_REPLAY=0 ESPALIER_GPU_PROLOGUE=1 -- --model "$smollm2" "${prompt[@]}"
run unfolded ESPALIER_GPU_REPLAY=1 ESPALIER_GPU_PROLOGUE=0 -- --model "$smollm2" "${prompt[@]}"
# The prompt is healed (its last token taken back and required as a prefix), so it is
# "x", which the stand-in's answer extends.
run mask -- --model "$smollm2" --prompt x --max-tokens 24 --lang python --mode mask
# Temperature alone: with top-k, the stand-in's equal logits put the end-of-text ids in
# the top 20 and the run may stop at its first token.
run sampled -- --model "$smollm2" "${prompt[@]}" --temperature 0.8 --seed 7
run long-split ESPALIER_GPU_ATTENTION_ROWS=256 -- --model "$smollm2" \
    --prompt "$(cat "$out/long-prompt.py")" --max-tokens 8
run long-unsplit ESPALIER_GPU_ATTENTION_ROWS=0 -- --model "$smollm2" \
    --prompt "$(cat "$out/long-prompt.py")" --max-tokens 8
run burn-f32 -- --model "$smollm2" "${prompt[@]}" --weights burn-f32
run qwen -- --model "$out/qwen2.5-coder-1.5b-shape-q4_k_m.gguf" --prompt 'def f(n):' --max-tokens 8

# The control: with no libdevice (CUDA_PATH at an empty toolkit) the first kernel that
# calls exp must fail to compile, and the generation with it: a kernel that does not
# compile fails this check, as it would on a GPU machine without a toolkit.
mkdir -p "$out/empty-toolkit"
env LD_LIBRARY_PATH="$out/lib" CUDA_PATH="$out/empty-toolkit" ESPALIER_STANDIN_FILL=104 \
    "$espalier" generate --backend cuda --json --model "$smollm2" "${prompt[@]}" \
    >"$out/control.json" 2>"$out/control.log"
control=$?
caught=false
[ $control != 0 ] && grep -q "libdevice.10.bc was not found" "$out/control.log" && caught=true
echo "control (no libdevice): exit $control, caught $caught" >&2

# Every kernel through ptxas, every launch against the limits.
python3 - "$out" "$tools/bin/ptxas" "$runs" "$runs_ok" "$caught" <<'EOF'
import glob, json, os, re, subprocess, sys
out, ptxas, runs, runs_ok = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
control_caught = sys.argv[5] == "true"
THREADS, REGISTERS, SHARED = 1024, 65536, 232448
kernels, failed = {}, []
for path in sorted(glob.glob(f"{out}/ptx/*.ptx")):
    name = os.path.basename(path)[:-4]
    p = subprocess.run([ptxas, "-arch=sm_90a", "-v", "-o", os.devnull, path],
                       capture_output=True, text=True)
    text = p.stdout + p.stderr
    if p.returncode != 0:
        failed.append(name)
        print(f"ptxas refused {name}:\n{text[-2000:]}", file=sys.stderr)
        continue
    regs = int(re.search(r"Used (\d+) registers", text).group(1))
    smem = re.search(r"(\d+) bytes smem", text)
    spill = sum(int(x) for x in re.findall(r"(\d+) bytes spill stores", text))
    kernels[name] = {"registers": regs, "static_shared": int(smem.group(1)) if smem else 0,
                     "spill_bytes": spill}
configs, misfits = 0, []
for line in open(f"{out}/launches.txt") if os.path.exists(f"{out}/launches.txt") else []:
    name, *dims = line.split()
    gx, gy, gz, bx, by, bz, dynamic = map(int, dims)
    configs += 1
    k = kernels.get(name)
    threads = bx * by * bz
    if k is None:
        misfits.append(f"{name}: launched, but its PTX was not checked")
        continue
    shared = k["static_shared"] + dynamic
    if threads > THREADS or k["registers"] * threads > REGISTERS or shared > SHARED:
        misfits.append(f"{name}: {threads} threads x {k['registers']} registers, "
                       f"{shared} bytes of shared memory")
for m in misfits:
    print(f"does not fit an H100: {m}", file=sys.stderr)
for name, k in sorted(kernels.items()):
    print(f"  {name}: {k['registers']} registers, {k['static_shared']} B static shared, "
          f"{k['spill_bytes']} B spilled", file=sys.stderr)
launches = [l.split() for l in open(f"{out}/launches.txt")] if configs else []
graphs = {}
for path in sorted(glob.glob(f"{out}/*.counts")):
    name = os.path.basename(path)[:-len(".counts")]
    graphs[name] = json.loads(open(path).read().splitlines()[-1])["graph_launches"]
replay_seen = graphs.get("replayed", 0) > 0 and graphs.get("unreplayed", 1) == 0

def after_graph(name):
    """Medians over a run's replayed steps (ms): from the step's graph launch to the
    first upload of a whole mask (49,152 ids: 6,144 bytes), and to its read back."""
    try:
        events = [l.split() for l in open(f"{out}/{name}.timeline")]
    except OSError:
        return None, None
    to_mask, to_read = [], []
    for i, (t, what, _, _) in enumerate(events):
        if what != "graph":
            continue
        for t2, what2, _, size in events[i + 1:]:
            if what2 == "write" and size == "6144" and len(to_mask) == len(to_read):
                to_mask.append((int(t2) - int(t)) / 1e6)
            if what2 == "read":
                to_read.append((int(t2) - int(t)) / 1e6)
                break
    median = lambda xs: round(sorted(xs)[len(xs) // 2], 4) if xs else None
    return median(to_mask), median(to_read)

def per_token(name):
    """What one replayed step sends and reads at the driver, averaged from the third
    graph launch to the last (past the recording): graphs, kernel launches outside
    them, uploads and their bytes, reads and their bytes."""
    try:
        events = [l.split() for l in open(f"{out}/{name}.timeline")]
    except OSError:
        return None
    graphs = [i for i, e in enumerate(events) if e[1] == "graph"]
    if len(graphs) < 4:
        return None
    window, steps = events[graphs[2]:graphs[-1]], len(graphs) - 3
    count = lambda what: sum(1 for e in window if e[1] == what) / steps
    size = lambda what: sum(int(e[3]) for e in window if e[1] == what) / steps
    return {"graphs": count("graph"), "launches": count("launch"), "uploads": count("write"),
            "upload_bytes": size("write"), "reads": count("read"), "read_bytes": size("read")}
if not replay_seen:
    print(f"the replayed run launched no graph, or the unreplayed one did: {graphs}",
          file=sys.stderr)
print(json.dumps({
    "runs": runs, "runs_ok": runs_ok,
    "kernels": len(kernels) + len(failed), "ptxas_ok": len(kernels),
    "launch_configs": configs, "launches_fit": not misfits and configs > 0,
    "max_registers": max((k["registers"] for k in kernels.values()), default=None),
    "spill_bytes": sum(k["spill_bytes"] for k in kernels.values()),
    "max_shared_bytes": max((kernels[l[0]]["static_shared"] + int(l[7]) for l in launches
                             if l[0] in kernels), default=None),
    "graph_launches": graphs, "control_caught": control_caught,
    "graph_to_read_ms": {"replayed": after_graph("replayed")[1], "mask": after_graph("mask")[1]},
    "graph_to_mask_upload_ms": after_graph("mask")[0],
    "per_token": {"replayed": per_token("replayed"), "mask": per_token("mask")},
}))
sys.exit(0 if runs_ok == runs and not failed and not misfits and configs > 0 and replay_seen
         and control_caught else 1)
EOF
