#!/usr/bin/env bash
# Alternating `espalier bench mask --worst 5` runs of two builds, both strategies,
# 3 rounds (branch fsw): OUT.jsonl gets each run's JSON line with `binary`
# (before/after) and `round` added, OUT.txt the load average and the worst steps.
#
#   bash scripts/lab/masks/bench-mask-before-after.sh BEFORE_BIN AFTER_BIN OUT [FILE.py ...]
#
# Default files: BENCHMARKS.md's mask benchmark set plus dataclasses.py (80 f-strings).
set -euo pipefail
BEFORE="$1"; AFTER="$2"; OUT="$3"; shift 3
L=/usr/lib/python3.11
FILES=("$@")
if [[ ${#FILES[@]} -eq 0 ]]; then
    FILES=("$L/textwrap.py" "$L/heapq.py" "$L/colorsys.py" "$L/bisect.py" "$L/json/encoder.py" "$L/dataclasses.py")
fi
for round in 1 2 3; do
  for s in exact syncode; do
    for b in before after; do
      bin="$BEFORE"; [[ $b == after ]] && bin="$AFTER"
      echo "# round $round $b $s loadavg $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT.txt"
      nice -n 15 "$bin" bench mask --lang python --strategy "$s" --worst 5 "${FILES[@]}" 2>>"$OUT.txt" | tail -1 |
        python3 -c "import json,sys; d=json.loads(sys.stdin.read()); d['binary']='$b'; d['round']=$round; print(json.dumps(d))" >> "$OUT.jsonl"
    done
  done
done
