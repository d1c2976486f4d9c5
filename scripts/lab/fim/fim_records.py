"""Reading `espalier eval fim --out FILE` records, shared by the table scripts
(`infill_table.py`, `stack_table.py`).

`complete_cases(paths)` reads one or more record files as one run (e.g. chunks run one
after another) and keeps only the cases that every mode present in them reached (a run
stopped early leaves its last case incomplete): it returns the modes present, in the
order of MODES, and the complete cases, each a dict mode -> record.
"""
import json
from collections import defaultdict

MODES = ["none", "checked", "mask"]


def complete_cases(paths):
    by_case = defaultdict(dict)
    for path in paths:
        for line in open(path):
            r = json.loads(line)
            by_case[r["task_id"]][r["mode"]] = r
    present = [m for m in MODES if any(m in c for c in by_case.values())]
    done = [c for c in by_case.values() if all(m in c for m in present)]
    return present, done
