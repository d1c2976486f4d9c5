#!/usr/bin/env python3
"""Totals one or more `espalier eval slua --out FILE` record files (e.g. the two
halves of a run split with --offset/--limit) the way the eval's summary line does,
plus why each unfinished script stopped and when the wrap-up fired."""
import json
import sys
from collections import Counter

# The budget and wrap-up of the commands in results/eval/README.md: a wrap-up in force from step
# MAX_TOKENS - WRAP_UP on was started by the budget (a loop the guard found after that
# is recorded too, but changed nothing); one in force earlier was started by a loop.
MAX_TOKENS, WRAP_UP = 1500, 300

def trigger(r):
    """What started the wrap-up of a record: "loop", "budget" or None."""
    start = r["stats"].get("wrap_up_from")
    if start is None:
        return None
    return "budget" if start >= MAX_TOKENS - WRAP_UP else "loop"


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
        "wrap_up_after_loop": sum(1 for r in rs if trigger(r) == "loop"),
        "wrap_up_at_budget": sum(1 for r in rs if trigger(r) == "budget"),
        "finished_without_wrap_up": sum(1 for r in rs if r["finished"] and trigger(r) is None),
        "tokens": tokens, "decode_tps": tokens / secs if secs else 0.0,
        "constraint_s": round(sum(r["stats"]["constraint_s"] for r in rs), 3), "decode_s": round(secs, 1),
    }))
    for r in rs:
        s = r["stats"]
        why = r["stop"]["reason"] if r["stop"] else "error: " + str(r.get("error"))
        loop = s.get("loop_detected")
        t = trigger(r)
        if t == "loop":
            extra = f"loop ({loop['reason']}, period {loop.get('period')}) found, wrap-up from step {s['wrap_up_from']}, finished in {r['tokens'] - s['wrap_up_from']} more tokens"
        elif t == "budget":
            extra = f"no loop caught; budget wrap-up from step {s['wrap_up_from']}, finished in {r['tokens'] - s['wrap_up_from']} more tokens"
        else:
            extra = "finished on its own"
        print(f"  {r['category']:<10} {r['kind']:<7} {r['tokens']:>5} tokens  stop {why:<14} {(r['outcome'] or {}).get('outcome', 'not checked'):<12} {extra}")
