"""Totals over several `espalier eval humaneval|mbpp --out FILE` record files (runs of
consecutive problem ranges), per mode: samples, problems, prompts the grammar refuses
(counted the same way in every mode), finished, syntax errors (all / among finished,
refused prompts left out of the latter), pass@1 (mean over samples), tokens, seconds in
the constraint and in decoding. Usage: python3 scripts/lab/eval/sum_runs.py FILE.jsonl...
"""

import json
import sys
from collections import defaultdict


def passed(record):
    test = record.get("test")
    return isinstance(test, dict) and test.get("outcome") == "passed"


def refused_keys(records):
    """(task_id, sample) of the prompts the grammar refuses. Records carry
    `prompt_refused` since it was added (judged in every mode); in older records a
    refusal shows only under a constraint, as the error `the prompt is not a valid ...
    prefix`, and is applied here to every mode of the same problem and sample."""
    keys = set()
    for r in records:
        if r.get("prompt_refused") or "is not a valid" in (r.get("error") or ""):
            keys.add((r["task_id"], r["sample"]))
    return keys


def main(paths):
    by_mode = defaultdict(list)
    for path in paths:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                by_mode[r["mode"]].append(r)
    if not by_mode:
        sys.exit("no records")
    refused = refused_keys([r for records in by_mode.values() for r in records])
    header = (
        "| mode | problems | samples | refused | finished | syntax errors (all / among finished) "
        "| pass@1 | tokens | constraint s / decode s |"
    )
    print(header)
    print("|---|---|---|---|---|---|---|---|---|")
    for mode, records in by_mode.items():
        problems = len({r["task_id"] for r in records})
        finished = sum(r["finished"] for r in records)
        is_refused = [(r["task_id"], r["sample"]) in refused for r in records]
        # All samples: a record without a completion (the prompt was refused) counts.
        errors = sum(bool(r.get("syntax_error")) or r.get("error") is not None for r in records)
        # Finished samples that do not parse, refused prompts left out in every mode
        # (as `espalier eval` counts `syntax_errors_finished`).
        errors_finished = sum(
            r["finished"] and bool(r.get("syntax_error")) and not ref for r, ref in zip(records, is_refused)
        )
        passing = sum(passed(r) for r in records)
        tokens = sum(r["tokens"] for r in records)
        constraint_s = sum(r["stats"].get("constraint_s", 0.0) for r in records)
        decode_s = sum(r["decode_s"] for r in records)
        print(
            f"| {mode} | {problems} | {len(records)} | {sum(is_refused)} | {finished} | {errors} / {errors_finished} | "
            f"{passing / len(records):.3f} ({passing}/{len(records)}) | {tokens} | {constraint_s:.2f} / {decode_s:.0f} |"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
