#!/usr/bin/env python3
"""Totals one or more `espalier eval slua --out FILE` record files (e.g. the two
halves of a run split with --offset/--limit) the way the eval's summary line does,
plus why each unfinished script stopped and when the wrap-up fired."""
import json
import sys
from collections import Counter

records = [json.loads(l) for f in sys.argv[1:] for l in open(f) if l.strip()]
for mode in sorted({r["mode"] for r in records}):
    rs = [r for r in records if r["mode"] == mode]
    n = len(rs)
    fin = [r for r in rs if r["finished"]]
    outcome = Counter((r["outcome"] or {}).get("outcome", "not checked") for r in rs)
    tokens = sum(r["tokens"] for r in rs)
    secs = sum(r["decode_s"] for r in rs)
    print(json.dumps({
        "dataset": "slua", "mode": mode, "scripts": n, "finished": len(fin),
        "finished_fraction": len(fin) / n if n else 0.0,
        "outcomes": dict(outcome),
        "stops": dict(Counter(r["stop"]["reason"] if r["stop"] else "error" for r in rs)),
        "loops_wrapped_up": sum(1 for r in rs if r["stats"].get("loop_detected")),
        "budget_wrap_ups": sum(1 for r in rs if r["stats"].get("wrap_up_from") is not None and not r["stats"].get("loop_detected")),
        "tokens": tokens, "decode_tps": tokens / secs if secs else 0.0,
        "constraint_s": round(sum(r["stats"]["constraint_s"] for r in rs), 3), "decode_s": round(secs, 1),
    }))
    for r in rs:
        s = r["stats"]
        why = r["stop"]["reason"] if r["stop"] else "error: " + str(r.get("error"))
        loop = s.get("loop_detected")
        extra = f"loop ({loop['reason']}, period {loop.get('period')}) at step {s['wrap_up_from']}, wrapped up in {r['tokens'] - s['wrap_up_from']} tokens" if loop else (f"wrap-up from step {s['wrap_up_from']}" if s.get("wrap_up_from") is not None else "")
        print(f"  {r['category']:<10} {r['kind']:<7} {r['tokens']:>5} tokens  stop {why:<14} {(r['outcome'] or {}).get('outcome', 'not checked'):<12} {extra}")
