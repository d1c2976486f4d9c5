"""Writes the texts of real generations (prompt + completion) from evaluation records,
one file per record, for `espalier bench mask --finishing`: teacher-forced over them,
every timed state is one the decoder went through.

Usage: python3 scripts/lab/fim/generation_texts.py --lang python|go --mode mask --out DIR RECORDS.jsonl...

The prompt is the one the evaluation primed the constraint with (`Oracle::prompt`):
HumanEval's prompt for Python; for Go, HumanEval-X's prompt after `package main\n\n`
when it has no package clause (`go_prompt` in crates/decode/src/eval/go.rs).
"""
import argparse
import gzip
import json
import os

DATA = {
    "python": "../shared/data/HumanEval.jsonl.gz",
    "go": "../shared/data/humanevalx_go.jsonl.gz",
}


def prompt(lang, problem):
    p = problem["prompt"]
    if lang == "go" and not p.lstrip().startswith("package "):
        return "package main\n\n" + p
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lang", required=True, choices=sorted(DATA))
    ap.add_argument("--mode", default="mask")
    ap.add_argument("--out", required=True)
    ap.add_argument("records", nargs="+")
    a = ap.parse_args()
    problems = {}
    with gzip.open(DATA[a.lang], "rt") as f:
        for line in f:
            p = json.loads(line)
            problems[p["task_id"]] = p
    os.makedirs(a.out, exist_ok=True)
    ext = {"python": "py", "go": "go"}[a.lang]
    n = 0
    for path in a.records:
        for line in open(path):
            r = json.loads(line)
            if r.get("mode") != a.mode or r.get("completion") is None:
                continue
            text = prompt(a.lang, problems[r["task_id"]]) + r["completion"]
            name = r["task_id"].replace("/", "_") + f"_{r.get('sample', 0)}.{ext}"
            with open(os.path.join(a.out, name), "w") as f:
                f.write(text)
            n += 1
    print(f"{n} texts in {a.out}")


if __name__ == "__main__":
    main()
