"""The errors by kind of `espalier eval humaneval|mbpp --out FILE` records, per mode, as
BENCHMARKS.md's names table lists them: NameError, UnboundLocalError, TypeError,
AssertionError, other failures, syntax errors, passed, unfinished (the budget cut the
program), and pyflakes' undefined-name and local-before-assignment reports over each
prompt + completion (pyflakes 3.2.0 from `bash scripts/pyflakes-venv.sh`: run this
with `target/pyflakes-venv/bin/python`). `--limit N`: the first N problems of each
record only (to compare a partial run with a whole one on the same problems);
`--same-problems-as RUN.jsonl` (repeatable): only the problems those records hold (a run started
at an offset, or stopped early, against a whole one).
Usage: target/pyflakes-venv/bin/python scripts/lab/eval/names_errors.py
  [--data ../shared/data/HumanEval.jsonl.gz] [--limit N] [--same-problems-as RUN.jsonl]
  FILE.jsonl...
"""

import argparse
import collections
import gzip
import json
import re

import pyflakes.api
import pyflakes.messages
import pyflakes.reporter

KINDS = ["NameError", "UnboundLocalError", "TypeError", "AssertionError"]


def kind(record):
    """The outcome of one record: passed, syntax, one of KINDS, or other."""
    if record.get("syntax_error"):
        return "syntax"
    test = record.get("test") or {}
    if test.get("outcome") == "passed":
        return "passed"
    error = test.get("error") or ""
    for k in ["UnboundLocalError"] + KINDS:
        if re.search(r"^%s\b" % k, error, re.M):
            return k
    return "other"


class Names(pyflakes.reporter.Reporter):
    """Keeps pyflakes' undefined-name and undefined-local messages."""

    def __init__(self):
        self.found = []

    def unexpectedError(self, filename, msg):
        pass

    def syntaxError(self, *args):
        pass

    def flake(self, msg):
        if isinstance(msg, (pyflakes.messages.UndefinedName, pyflakes.messages.UndefinedLocal)):
            self.found.append(str(msg))


def prompts(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return {r["task_id"]: r["prompt"] for r in rows}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="../shared/data/HumanEval.jsonl.gz")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--same-problems-as", action="append", default=[])
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    prompt = prompts(args.data)
    keep = {
        json.loads(line)["task_id"] for run in args.same_problems_as for line in open(run)
    }
    for path in args.files:
        rows = [json.loads(line) for line in open(path)]
        if args.limit is not None:
            ids = list(dict.fromkeys(r["task_id"] for r in rows))[: args.limit]
            rows = [r for r in rows if r["task_id"] in set(ids)]
        if keep:
            rows = [r for r in rows if r["task_id"] in keep]
        for mode in dict.fromkeys(r["mode"] for r in rows):
            rs = [r for r in rows if r["mode"] == mode]
            counts = collections.Counter(kind(r) for r in rs)
            flakes = []
            for r in rs:
                rep = Names()
                pyflakes.api.check(prompt[r["task_id"]] + r["completion"], r["task_id"], rep)
                flakes += [(r["task_id"], m) for m in rep.found]
            print(json.dumps({
                "file": path, "mode": mode, "problems": len(rs),
                **{k: counts[k] for k in KINDS}, "other": counts["other"],
                "syntax_error": counts["syntax"], "passed": counts["passed"],
                "unfinished": sum(not r["finished"] for r in rs),
                "loop_detected": sum(r["stats"].get("loop_detected") is not None for r in rs),
                "pyflakes_undefined": len(flakes),
            }))
            for task, msg in flakes:
                print(f"  {task}: {msg}")


if __name__ == "__main__":
    main()
