"""The paper's table from `espalier eval fim --set stack-* --out FILE` records.

Usage: python3 scripts/lab/fim/stack_table.py results/fim/stack-boundary.jsonl results/fim/stack-randspan.jsonl

A file may hold only some modes (the others print as -). Counts only cases that every
mode in the file reached (a run stopped early leaves
its last case incomplete). success = ast.parse accepts prefix + middle + suffix.
"""
import sys

from fim_records import MODES, complete_cases


def table(path):
    present, done = complete_cases([path])
    n = len(done)
    row = {m: None for m in MODES}
    for m in present:
        ok = sum(1 for c in done if c[m].get("parse_ok"))
        fin = sum(1 for c in done if c[m].get("finished"))
        okfin = sum(1 for c in done if c[m].get("parse_ok") and c[m].get("finished"))
        wrapped = sum(1 for c in done if c[m].get("wrap_up_from") is not None)
        row[m] = (ok, fin, okfin, wrapped)
    return n, row


print("| set | cases | none | checked | mask | finished none / checked / mask | mask finished (parse ok) | mask wrap-ups |")
print("|---|---|---|---|---|---|---|---|")
for path in sys.argv[1:]:
    n, row = table(path)
    name = path.rsplit("/", 1)[-1].replace(".jsonl", "")
    pct = lambda m: f"{row[m][0]}/{n} = {100.0 * row[m][0] / n:.1f}%" if n and row[m] else "-"
    fin = " / ".join(str(row[m][1]) if row[m] else "-" for m in MODES)
    m = row["mask"]
    mask_cols = f"{m[1]} ({m[2]}) | {m[3]}" if m else "- | -"
    print(f"| {name} | {n} | {pct('none')} | {pct('checked')} | {pct('mask')} | {fin} | {mask_cols} |")
