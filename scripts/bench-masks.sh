#!/usr/bin/env bash
# Same-run mask benchmark (issue 16): Espalier's `exact` and `syncode` masks against
# llguidance 1.9.1 on the same token sequences (the model's tokenizer), rounds
# interleaved. Prints one JSON line (last line of stdout) with per-engine percentiles
# and the ratios llguidance / Espalier per percentile; fails if any engine refuses a
# true token or llguidance does not accept a whole file.
#
#   bash scripts/bench-masks.sh [--rounds N] [FILE.py ...]
#
# Default files: BENCHMARKS.md's mask benchmark set. llguidance is built in its own
# workspace (bench/llguidance), which CI does not build.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=3
if [[ "${1:-}" == "--rounds" ]]; then ROUNDS="$2"; shift 2; fi
L=/usr/lib/python3.11
FILES=("$@")
if [[ ${#FILES[@]} -eq 0 ]]; then
    FILES=("$L/textwrap.py" "$L/heapq.py" "$L/colorsys.py" "$L/bisect.py" "$L/json/encoder.py")
fi
T="${CARGO_TARGET_DIR:-target}"
mkdir -p "$T/espalier-cache"
# The test run's selection (dev units included by the example): after scripts/test.sh
# nothing rebuilds; `-p espalier-cli` would resolve features differently and compile burn again.
cargo build --release --workspace --exclude espalier-python --bin espalier --example synthetic_model >&2
# Its own target folder: a separate workspace whose dependency builds must not mix
# with the main workspace's.
CARGO_TARGET_DIR="$T/bench-llg" cargo build --release --manifest-path bench/llguidance/Cargo.toml >&2
IN="$T/espalier-cache/bench-masks.input"
# The export also times exact masks once (its JSON line goes to stderr here).
"$T/release/espalier" bench mask --lang python --strategy exact --export "$IN" "${FILES[@]}" >&2
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$T/bench-llg/release/espalier-bench-llg" "$IN" --rounds "$ROUNDS" --store "$T/espalier-cache/python-smollm2.store"
