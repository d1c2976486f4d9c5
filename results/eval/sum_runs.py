"""Totals over several `espalier eval humaneval|mbpp --out FILE` record files (runs of
consecutive problem ranges), per mode: samples, problems, finished, syntax errors (all /
among finished), pass@1 (mean over samples), tokens, seconds in the constraint and in
decoding. Usage: python3 results/eval/sum_runs.py FILE.jsonl...
"""

import json
import sys
from collections import defaultdict


def passed(record):
    test = record.get("test")
    return isinstance(test, dict) and test.get("outcome") == "passed"


def main(paths):
    by_mode = defaultdict(list)
    for path in paths:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                by_mode[r["mode"]].append(r)
    if not by_mode:
        sys.exit("no records")
    header = "| mode | problems | samples | finished | syntax errors (all / among finished) | pass@1 | tokens | constraint s / decode s |"
    print(header)
    print("|---|---|---|---|---|---|---|---|")
    for mode, records in by_mode.items():
        problems = len({r["task_id"] for r in records})
        finished = sum(r["finished"] for r in records)
        # A record without a completion (the prompt was refused) counts as a syntax error.
        errors = sum(bool(r.get("syntax_error")) or r.get("error") is not None for r in records)
        errors_finished = sum(r["finished"] and bool(r.get("syntax_error")) for r in records)
        pass_at_1 = sum(passed(r) for r in records) / len(records)
        tokens = sum(r["tokens"] for r in records)
        constraint_s = sum(r["stats"].get("constraint_s", 0.0) for r in records)
        decode_s = sum(r["decode_s"] for r in records)
        print(
            f"| {mode} | {problems} | {len(records)} | {finished} | {errors} / {errors_finished} | "
            f"{pass_at_1:.3f} | {tokens} | {constraint_s:.2f} / {decode_s:.0f} |"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
