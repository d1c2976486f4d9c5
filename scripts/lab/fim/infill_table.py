"""The HumanEval infilling table from `espalier eval fim --set singleline|randomspan --out FILE`
records (several files are read as one run: e.g. the two halves of a set run side by side).

Usage: python3 scripts/lab/fim/infill_table.py FILE.jsonl [FILE.jsonl ...]

Counts only cases that every mode in the files reached. Per mode: cases, finished (EOS
or the stop string), syntax errors over all completions (the headline) and among the
finished ones, parse_ok (ast.parse accepts prefix + middle + suffix), pass@1 (the
tests pass), and how each generation ended.
"""
import sys
from collections import Counter

from fim_records import complete_cases

present, done = complete_cases(sys.argv[1:])
n = len(done)
print(f"{n} cases in {', '.join(p.rsplit('/', 1)[-1] for p in sys.argv[1:])}")
print("| mode | cases | finished | syntax errors (all) | syntax errors (finished) | parse_ok | pass@1 | ended by |")
print("|---|---|---|---|---|---|---|---|")
for m in present:
    rs = [c[m] for c in done]
    fin = sum(1 for r in rs if r.get("finished"))
    ok = sum(1 for r in rs if r.get("parse_ok"))
    err_fin = sum(1 for r in rs if r.get("finished") and not r.get("parse_ok"))
    passed = sum(1 for r in rs if r.get("passed"))
    ended = Counter((r.get("stop") or {}).get("reason", "error") for r in rs)
    ended_s = ", ".join(f"{k} {v}" for k, v in sorted(ended.items()))
    print(f"| {m} | {n} | {fin} | {n - ok} | {err_fin} | {ok} | {passed}/{n} = {passed / n:.3f} | {ended_s} |" if n else f"| {m} | 0 |")
