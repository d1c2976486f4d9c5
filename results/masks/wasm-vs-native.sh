#!/usr/bin/env bash
# Exact Python masks, native against wasm under node, over the same steps in one run
# (issue 16: wasm at most 1.2x native at p50 and at max).
#
#   bash results/masks/wasm-vs-native.sh [ROUNDS] [PASSES]     (from the repository root)
#
# Input: the 17,961 teacher-forced steps of textwrap, heapq, colorsys, bisect and
# json/encoder with SmolLM2's 49,152-token vocabulary, exported once by
# `espalier bench mask --export` (cached in $CARGO_TARGET_DIR/espalier-cache).
# Both runtimes run the same harness (crates/constraint/wasm-bench: `--bin native`
# and the wasm32 cdylib driven by run.mjs), rounds interleaved (native, wasm,
# wasm-opt -O3 when binaryen is installed). Every run prints its JSON line; the last
# line is the summary: per round, wasm / native ratios of p50, p99 and max (wall) and
# of the CPU p50, and the same for the last pass (with PASSES > 1: the same steps
# again in the same process, warm code and heap).
set -euo pipefail
ROUNDS=${1:-3}
PASSES=${2:-2}
cd "$(dirname "$0")/../.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
M=crates/constraint/wasm-bench/Cargo.toml
PY=/usr/lib/python3.11
IN=${MASK_INPUT:-$CARGO_TARGET_DIR/espalier-cache/python-mask-steps.bin}
OUT=${OUT_DIR:-/tmp/wasm-vs-native}
mkdir -p "$OUT" "$(dirname "$IN")"
if [ ! -s "$IN" ]; then
  cargo build --release -p espalier-cli >&2
  "$CARGO_TARGET_DIR/release/espalier" bench mask --lang python --strategy check --export "$IN" \
    $PY/textwrap.py $PY/heapq.py $PY/colorsys.py $PY/bisect.py $PY/json/encoder.py >/dev/null
fi
cargo build --release --manifest-path $M --bin native >&2
cargo build --release --manifest-path $M --lib --target wasm32-unknown-unknown >&2
WASM=$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/espalier_constraint_wasm_bench.wasm
NATIVE=$CARGO_TARGET_DIR/release/native
OPT=""
if [ -x node_modules/.bin/wasm-opt ]; then
  OPT=$OUT/opt.wasm
  node_modules/.bin/wasm-opt -O3 --enable-simd --enable-bulk-memory --enable-sign-ext \
    --enable-nontrapping-float-to-int --enable-mutable-globals --enable-multivalue \
    --enable-reference-types "$WASM" -o "$OPT"
fi
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(git rev-parse --short HEAD)$(git diff --quiet || echo +dirty)"
: > "$OUT/runs.jsonl"
for r in $(seq 1 "$ROUNDS"); do
  "$NATIVE" "$IN" exact --passes "$PASSES" --dump "$OUT/native-$r.tsv" | tee -a "$OUT/runs.jsonl"
  node crates/constraint/wasm-bench/run.mjs "$IN" exact "$WASM" --passes "$PASSES" --dump "$OUT/wasm-$r.tsv" | tee -a "$OUT/runs.jsonl"
  if [ -n "$OPT" ]; then
    node crates/constraint/wasm-bench/run.mjs "$IN" exact "$OPT" --passes "$PASSES" | sed 's/"runtime":"node/"runtime":"wasm-opt node/' | tee -a "$OUT/runs.jsonl"
  fi
done
node - "$OUT/runs.jsonl" <<'EOF'
const fs = require('fs');
const runs = fs.readFileSync(process.argv[2], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const r2 = (x) => Math.round(x * 100) / 100;
const rounds = [];
let native = null;
for (const run of runs) {
  if (run.runtime === 'native') { native = run; continue; }
  const last = (x) => (x.passes.length ? x.passes[x.passes.length - 1] : x);
  const [n, w] = [last(native), last(run)];
  rounds.push({
    runtime: run.runtime,
    p50: r2(run.p50_us / native.p50_us), p99: r2(run.p99_us / native.p99_us), max: r2(run.max_us / native.max_us),
    cpu_p50: r2(run.cpu_p50_us / native.cpu_p50_us),
    last_pass: { p50: r2(w.p50_us / n.p50_us), p99: r2(w.p99_us / n.p99_us), max: r2(w.max_us / n.max_us) },
    native_us: [native.p50_us, native.p99_us, native.max_us], wasm_us: [run.p50_us, run.p99_us, run.max_us],
    load: run.load_avg_1m,
  });
}
console.log(JSON.stringify({ bench: 'mask-wasm-vs-native', strategy: 'exact', tokens: runs[0].tokens, rounds }));
EOF
