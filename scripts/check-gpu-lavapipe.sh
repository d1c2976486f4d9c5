#!/usr/bin/env bash
# The GPU path (native wgpu on Vulkan) proved on the CPU with Mesa's lavapipe (issue 33).
#
#   bash scripts/check-gpu-lavapipe.sh
#
# Steps (idempotent; every step runs, the script fails at the end if one failed):
#   1. installs lavapipe, the Vulkan loader and its headers (apt-get) when missing;
#   2. builds the counting Vulkan layer (scripts/gpu-count-layer/count_layer.c, gcc);
#   3. builds `espalier` and the agreement test with the wgpu feature (the workspace
#      selection, so burn is built once: ~10+ min cold on 2 cores, seconds warm);
#   4. the agreement test (crates/model/tests/backend_agreement.rs): the block kernels and
#      the masked argmax against their host twins, then a prompt + greedy steps on ndarray
#      and on wgpu (logits within tolerance, the same greedy tokens); then the agreement
#      again with the decode step's RMSNorm / SwiGLU folded into its products
#      (`ESPALIER_GPU_PROLOGUE=1`: a GPU's pass; a CPU adapter keeps their launches);
#   4b. the same agreement test on the synthetic models of scripts/synthetic/make-models.sh
#      (written there when missing; ESPALIER_SYNTHETIC_DIR): tiny llama and qwen2 files
#      in every GGUF type and Q4_K_M, each quantized one's matrices in the GPU kernel and
#      its steps replayed, the float ones on burn's matmul;
#   5. `espalier bench decode --backend wgpu --modes none` twice under the counting layer,
#      with TOKENS_SHORT and TOKENS_LONG tokens: everything the two runs share (loading,
#      kernel compilation, the prefill) cancels in the difference, so
#      (counts_long - counts_short) / (tokens_long - tokens_short) is what one decoded token
#      costs, counted by the layer (vkCmdDispatch*, vkQueueSubmit*, vkCmdCopyBuffer into
#      buffers no shader binds: the read-back staging buffers);
#   5b. the same two runs with the prologues folded (`ESPALIER_GPU_PROLOGUE=1`);
#   5c. and with attention split over the cache's rows in parts of 16
#      (`ESPALIER_GPU_ATTENTION_ROWS=16`, so that a short context splits);
#   5d. the default pass under the Python grammar's mask (`--modes mask`): a step with a
#      mask to compute submits its pass first, so the GPU runs it beside the mask (one
#      submit more than an unconstrained step, whose pass goes with the draw's read).
# The LAST line of stdout is one JSON object: `agreement`, `launches_per_token`,
# `submits_per_token`, `readback_bytes_per_token`, `decode_tps` (the long run's, lavapipe on
# this machine's CPUs, the layer's atomic counters included), `host_ms_per_token` (the
# host's time to record and submit a decode step, or to replay a recorded one: the median
# of the long run's `step` figures, `crates/lab/src/bench_step.rs`), `host_cpu_ms_per_token`
# (the same steps on CPU clocks: this thread's and cubecl's device threads', the whole step,
# lavapipe's own threads left out: `crates/lab/src/host_clock.rs`), `replay` (the cache's
# replay state after those steps), `synthetic_agreement` (step 4b's models that agree, of
# all), `prologue_agreement` and `prologue_launches_per_token` (the folded pass: steps 4
# and 5b), `split_agreement` and `split_launches_per_token` (the folded pass with attention
# split: steps 4 and 5c), `mask_submits_per_token` and `mask_launches_per_token` (step 5d).
# Logs: $OUT_DIR (default
# target/gpu-lavapipe). CARGO_TARGET_DIR is honoured (a directory of its own keeps the
# wgpu build from displacing the test run's). ESPALIER_GPU_BINS=DIR skips the build and
# runs DIR/espalier and DIR/backend_agreement (a kept build: the baseline of results/gpu).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT_DIR:-$PWD/target/gpu-lavapipe}
short=${TOKENS_SHORT:-8}
long=${TOKENS_LONG:-40}
mkdir -p "$out"
failed=()

echo "== 1. lavapipe and the Vulkan loader"
missing=()
for p in mesa-vulkan-drivers libvulkan1 libvulkan-dev gcc; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get install -y "${missing[@]}" >"$out/apt.log" 2>&1 \
        || { echo "apt-get install ${missing[*]} failed: $out/apt.log" >&2; exit 1; }
fi
export WGPU_BACKEND=vulkan

echo "== 2. the counting layer"
layer=$PWD/target/gpu-count-layer
mkdir -p "$layer"
gcc -O2 -shared -fPIC -fvisibility=hidden -Wall -Wextra -Werror \
    -o "$layer/libespalier_vk_count.so" scripts/gpu-count-layer/count_layer.c -lpthread || exit 1
cp scripts/gpu-count-layer/VK_LAYER_ESPALIER_count.json "$layer/"

echo "== 3. build (wgpu feature)"
sel=(--release --workspace --exclude espalier-python --features espalier-cli/wgpu)
if [ -n "${ESPALIER_GPU_BINS:-}" ]; then
    espalier=$ESPALIER_GPU_BINS/espalier
    agreement_bin=$ESPALIER_GPU_BINS/backend_agreement
    echo "kept binaries in $ESPALIER_GPU_BINS"
else
    start=$(date +%s)
    cargo build "${sel[@]}" --bin espalier 2>&1 | tail -3
    # The agreement tests are in espalier-model's one integration-test binary (`it`).
    agreement_bin=$(cargo test "${sel[@]}" --test it --no-run --message-format=json 2>/dev/null \
        | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("executable") and "espalier-model" in m["package_id"] and m["target"]["name"] == "it":
        print(m["executable"])' | tail -1)
    echo "build: $(( $(date +%s) - start )) s"
    espalier=${CARGO_TARGET_DIR:-$PWD/target}/release/espalier
fi
[ -x "$espalier" ] && [ -x "$agreement_bin" ] || { echo "no espalier or agreement test binary" >&2; exit 1; }

# SmolLM2's agreement test with the settings VAR=VALUE ... given after the log ($1).
agree() {
    local log=$1
    shift
    env "$@" ESPALIER_MODEL="$PWD/static/models/SmolLM2-135M-Instruct.Q4_1.gguf" "$agreement_bin" \
        --nocapture --exact backend_agreement::ndarray_and_wgpu_agree_in_both_formats >"$log" 2>&1
}

# `bench decode` of $short and $long tokens under the counting layer, with the settings
# VAR=VALUE ... given after the runs' name ($1, "" for the default pass) and step ($2);
# the mode `$modes` (default none: unconstrained).
counted() {
    local tag=$1 step=$2 n name
    shift 2
    for n in "$short" "$long"; do
        name=${tag:+$tag-}$n
        rm -f "$out/counts-$name.json"
        env "$@" VK_LAYER_PATH="$layer" VK_INSTANCE_LAYERS=VK_LAYER_ESPALIER_count \
            ESPALIER_VK_COUNTS="$out/counts-$name.json" \
            "$espalier" bench decode --backend wgpu --modes "${modes:-none}" --rounds 1 --tokens "$n" \
            >"$out/bench-$name.json" 2>"$out/bench-$name.log" \
            || failed+=("$step. bench decode --tokens $n ($out/bench-$name.log)")
        tail -n 2 "$out/bench-$name.log"
        cat "$out/counts-$name.json" 2>/dev/null || failed+=("$step. no counts for $n tokens")
    done
}

echo "== 4. agreement test (wgpu on lavapipe vs ndarray)"
start=$(date +%s)
agreement=true
: >"$out/agreement.log"
# One process per test: a second wgpu device in one process fails ("Service already
# initialized"), as nextest's process per test avoids.
for t in the_block_kernel_matches_its_host_twin_on_wgpu ndarray_and_wgpu_agree_in_both_formats; do
    if ! ESPALIER_MODEL=$PWD/static/models/SmolLM2-135M-Instruct.Q4_1.gguf \
        "$agreement_bin" --nocapture --exact "backend_agreement::$t" >>"$out/agreement.log" 2>&1; then
        agreement=false
        failed+=("4. $t ($out/agreement.log)")
    fi
done
grep -E "block kernel:|argmax|top lists|largest|greedy|test result" "$out/agreement.log" | tail -40
echo "agreement test: $agreement, $(( $(date +%s) - start )) s"
# The pass a GPU runs: RMSNorm and SwiGLU folded into the decode step's products (a CPU
# adapter such as lavapipe keeps their launches: crates/model/src/llama/gpu_quantized.rs,
# `prologues_for`), forced here so that lavapipe checks it end to end; then the same pass
# with attention split over the cache's rows in parts of 16 (a GPU splits stores of 512
# rows and more in parts of 256: crates/model/src/llama/gpu_attention_split.rs), so that
# the test's short context splits.
prologue_agreement=true
agree "$out/agreement-prologue.log" ESPALIER_GPU_PROLOGUE=1 || {
    prologue_agreement=false
    failed+=("4. the folded pass ($out/agreement-prologue.log)")
}
grep -E "largest|greedy on the device" "$out/agreement-prologue.log" | tail -3
echo "agreement with the prologues folded: $prologue_agreement"
split_agreement=true
agree "$out/agreement-split.log" ESPALIER_GPU_PROLOGUE=1 ESPALIER_GPU_ATTENTION_ROWS=16 || {
    split_agreement=false
    failed+=("4. the folded pass with attention split ($out/agreement-split.log)")
}
grep -E "largest|greedy on the device" "$out/agreement-split.log" | tail -3
echo "agreement with attention split: $split_agreement"

echo "== 4b. agreement on the synthetic models (every GGUF type, llama and qwen2)"
start=$(date +%s)
synthetic_dir=${ESPALIER_SYNTHETIC_DIR:-$PWD/target/synthetic-gguf}
[ -f "$synthetic_dir/llama-Q6_K.gguf" ] || bash scripts/synthetic/make-models.sh "$synthetic_dir" \
    >"$out/synthetic-models.log" 2>&1 || failed+=("4b. make-models.sh ($out/synthetic-models.log)")
synthetic_ok=0
synthetic_all=0
: >"$out/synthetic-agreement.log"
for model in "$synthetic_dir"/*.gguf; do
    [ -f "$model" ] || continue
    synthetic_all=$((synthetic_all + 1))
    log=$out/synthetic-$(basename "$model" .gguf).log
    if ESPALIER_MODEL=$model "$agreement_bin" --nocapture --exact \
        backend_agreement::ndarray_and_wgpu_agree_in_both_formats >"$log" 2>&1; then
        synthetic_ok=$((synthetic_ok + 1))
    else
        failed+=("4b. $(basename "$model") ($log)")
    fi
    echo "$(basename "$model"): $(grep -E 'gpu-blocks: replay|gpu-blocks: .*MB' "$log" | tr '\n' ' ')" \
        | tee -a "$out/synthetic-agreement.log"
done
[ "$synthetic_all" -gt 0 ] || failed+=("4b. no synthetic models in $synthetic_dir")
echo "synthetic agreement: $synthetic_ok of $synthetic_all, $(( $(date +%s) - start )) s"

echo "== 5. counted decode (tokens $short and $long)"
counted "" 5
echo "== 5b. counted decode, the prologues folded (a GPU's pass; tokens $short and $long)"
counted prologue 5b ESPALIER_GPU_PROLOGUE=1
echo "== 5c. counted decode, the prologues folded and attention split in parts of 16 rows"
counted split 5c ESPALIER_GPU_PROLOGUE=1 ESPALIER_GPU_ATTENTION_ROWS=16
echo "== 5d. counted decode under the Python grammar's mask (the pass submitted before the mask)"
modes=mask counted mask 5d

echo "load $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
if [ ${#failed[@]} -gt 0 ]; then
    printf 'FAILED: %s\n' "${failed[@]}" >&2
fi
python3 - "$out" "$short" "$long" "$agreement" "$synthetic_ok/$synthetic_all" "$prologue_agreement" "$split_agreement" <<'EOF'
import json, sys
out, short, long_, agreement = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "true"
def last_json(path):
    try:
        return json.loads(open(path).read().strip().splitlines()[-1])
    except (OSError, IndexError, ValueError):
        return None
c1, c2 = last_json(f"{out}/counts-{short}.json"), last_json(f"{out}/counts-{long_}.json")
b1, b2 = last_json(f"{out}/bench-{short}.json"), last_json(f"{out}/bench-{long_}.json")
result = {"agreement": agreement, "launches_per_token": None, "submits_per_token": None,
          "readback_bytes_per_token": None, "decode_tps": None, "host_ms_per_token": None,
          "replay": None, "synthetic_agreement": sys.argv[5],
          "prologue_agreement": sys.argv[6] == "true", "prologue_launches_per_token": None,
          "host_cpu_ms_per_token": None, "split_agreement": sys.argv[7] == "true",
          "split_launches_per_token": None, "mask_submits_per_token": None,
          "mask_launches_per_token": None}
def per_token(c1, c2, b1, b2, k, mode="none"):
    t1, t2 = b1["modes"][mode]["tokens"], b2["modes"][mode]["tokens"]
    return round((c2[k] - c1[k]) / (t2 - t1), 2) if t2 > t1 else None
if c1 and c2 and b1 and b2:
    m2 = b2["modes"]["none"]
    per = lambda k: per_token(c1, c2, b1, b2, k)
    result.update(launches_per_token=per("dispatches"), submits_per_token=per("submits"),
                  readback_bytes_per_token=per("readback_bytes"))
    step = b2.get("step") or {}
    result["host_ms_per_token"] = step.get("host_ms_median")
    result["host_cpu_ms_per_token"] = step.get("host_cpu_ms_median")
    result["replay"] = step.get("replay")
    result["decode_tps"] = m2["decode_tps"]
p1, p2 = last_json(f"{out}/counts-prologue-{short}.json"), last_json(f"{out}/counts-prologue-{long_}.json")
q1, q2 = last_json(f"{out}/bench-prologue-{short}.json"), last_json(f"{out}/bench-prologue-{long_}.json")
if p1 and p2 and q1 and q2:
    result["prologue_launches_per_token"] = per_token(p1, p2, q1, q2, "dispatches")
s1, s2 = last_json(f"{out}/counts-split-{short}.json"), last_json(f"{out}/counts-split-{long_}.json")
r1, r2 = last_json(f"{out}/bench-split-{short}.json"), last_json(f"{out}/bench-split-{long_}.json")
if s1 and s2 and r1 and r2:
    result["split_launches_per_token"] = per_token(s1, s2, r1, r2, "dispatches")
k1, k2 = last_json(f"{out}/counts-mask-{short}.json"), last_json(f"{out}/counts-mask-{long_}.json")
j1, j2 = last_json(f"{out}/bench-mask-{short}.json"), last_json(f"{out}/bench-mask-{long_}.json")
if k1 and k2 and j1 and j2:
    result["mask_submits_per_token"] = per_token(k1, k2, j1, j2, "submits", "mask")
    result["mask_launches_per_token"] = per_token(k1, k2, j1, j2, "dispatches", "mask")
print(json.dumps(result))
EOF
[ ${#failed[@]} -eq 0 ]
